"""What one seat may see: the only place hidden information is removed, for events and states.

Streams, snapshots and reconnects all go through ``view_event`` and
``view_state``; ``seat=None`` is a spectator, who sees no hand.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import overload

from scala40_net.actions import DrawSource
from scala40_net.deal import DealState, Phase
from scala40_net.events import CardDrawn, DealEnded, DealStarted, Event
from scala40_net.match import MatchPhase, MatchState
from scala40_net.melds import Meld
from scala40_net.rules import Ruleset


@dataclass(frozen=True)
class DealView:
    """A deal as ``viewer`` sees it. Per-seat tuples follow ``seats``."""

    viewer: int | None
    ruleset: Ruleset
    deal_no: int
    seats: tuple[int, ...]
    dealer: int
    phase: Phase
    turn: int
    hand: tuple[int, ...] | None
    hand_counts: tuple[int, ...]
    opened: tuple[bool, ...]
    turns_played: tuple[int, ...]
    table: tuple[Meld, ...]
    owners: tuple[int, ...]
    discard_pile: tuple[int, ...]
    stock_count: int
    drawn: DrawSource | None
    taken_discard: int | None
    rebuilds: int
    result: DealEnded | None
    agreed_discard: int | None = None


@dataclass(frozen=True)
class MatchView:
    """A match as ``viewer`` sees it: everything is public except the deal's hidden cards."""

    viewer: int | None
    ruleset: Ruleset
    seats: tuple[int, ...]
    dealer: int
    phase: MatchPhase
    deal_no: int
    totals: tuple[int, ...]
    deals_won: tuple[int, ...]
    out: tuple[bool, ...]
    rientri: tuple[int, ...]
    chips: tuple[int, ...]
    pot: int
    pending_rientro: tuple[int, ...]
    winners: tuple[int, ...]
    deal: DealView | None


def view_event(event: Event, seat: int | None) -> Event:
    """``event`` with what ``seat`` may not know removed (others' hands, stock cards drawn)."""
    if isinstance(event, DealStarted):
        hands = tuple(
            h if s == seat else None for s, h in zip(event.seats, event.hands, strict=True)
        )
        return replace(event, hands=hands)
    if isinstance(event, CardDrawn) and event.source is DrawSource.STOCK and event.seat != seat:
        return replace(event, card=None)
    # Everything else is public: plays, the discard, rebuild counts, hands shown at the end.
    return event


def after_own_draw(view: DealView, drawn: CardDrawn) -> DealView:
    """The viewer's view right after its own draw ``drawn`` (as it saw it: with the card),
    from its view just before: what ``deal.apply`` does to a draw, on a view.

    A seat that follows the event stream needs no new snapshot to play the card it drew.
    """
    if view.viewer != drawn.seat or view.hand is None or drawn.card is None:
        raise ValueError("only the viewer's own draw, with its card, applies to its view")
    i = view.seats.index(drawn.seat)
    counts = list(view.hand_counts)
    counts[i] += 1
    from_stock = drawn.source is DrawSource.STOCK
    return replace(
        view,
        phase=Phase.PLAY,
        hand=(*view.hand, drawn.card),
        hand_counts=tuple(counts),
        discard_pile=view.discard_pile if from_stock else view.discard_pile[:-1],
        stock_count=view.stock_count - 1 if from_stock else view.stock_count,
        drawn=drawn.source,
        taken_discard=None if from_stock else drawn.card,
    )


@overload
def view_state(state: DealState, seat: int | None) -> DealView: ...
@overload
def view_state(state: MatchState, seat: int | None) -> MatchView: ...
def view_state(state: DealState | MatchState, seat: int | None) -> DealView | MatchView:
    """The snapshot ``seat`` may see of a deal or a match (own hand only, stock as a count)."""
    if isinstance(state, MatchState):
        return MatchView(
            seat,
            state.ruleset,
            state.seats,
            state.dealer,
            state.phase,
            state.deal_no,
            state.totals,
            state.deals_won,
            state.out,
            state.rientri,
            state.chips,
            state.pot,
            state.pending_rientro,
            state.winners,
            None if state.deal is None else view_state(state.deal, seat),
        )
    hand = state.hands[state.seats.index(seat)] if seat in state.seats else None
    return DealView(
        viewer=seat,
        ruleset=state.ruleset,
        deal_no=state.deal_no,
        seats=state.seats,
        dealer=state.dealer,
        phase=state.phase,
        turn=state.turn,
        hand=hand,
        hand_counts=tuple(len(h) for h in state.hands),
        opened=state.opened,
        turns_played=state.turns_played,
        table=state.table,
        owners=state.owners,
        discard_pile=state.discard_pile,
        stock_count=len(state.stock),
        drawn=state.drawn,
        taken_discard=state.taken_discard,
        rebuilds=state.rebuilds,
        result=state.result,
        agreed_discard=state.agreed_discard,
    )
