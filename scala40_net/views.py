"""What one seat may see: the only place hidden information is removed, for events and states.

Streams, snapshots and reconnects all go through ``view_event`` and
``view_state``; ``seat=None`` is a spectator, who sees no hand. A seat that
follows its stream carries its view from event to event (``view_at_start``,
then ``after_event``): the screen, the network bot and the host's bots all
hold this one view, and try their moves on it with ``playable_state``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import overload

from scala40_net.actions import DrawSource
from scala40_net.deal import DealState, Phase, agreed_mark, deal_order, set_at
from scala40_net.events import (
    CardDrawn,
    CardsAttached,
    DealEnded,
    DealStarted,
    DiscardReturned,
    Event,
    JokerSwapped,
    Played,
    StockRebuilt,
)
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
    discard_barred: bool = False  # the seat to move put the discard back this turn (R3.2)


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


def view_at_start(ruleset: Ruleset, started: DealStarted, viewer: int | None) -> DealView:
    """The viewer's view of a deal just dealt (``started`` as the viewer saw it, ``view_event``):
    what ``deal.start_deal`` makes of the deck, on a view."""
    n = len(started.seats)
    hand = started.hands[started.seats.index(viewer)] if viewer in started.seats else None
    return DealView(
        viewer=viewer,
        ruleset=ruleset,
        deal_no=started.deal_no,
        seats=started.seats,
        dealer=started.dealer,
        phase=Phase.DRAW,
        turn=deal_order(started.seats, started.dealer)[0],
        hand=hand,
        hand_counts=started.hand_counts,
        opened=(False,) * n,
        turns_played=(0,) * n,
        table=(),
        owners=(),
        discard_pile=(started.first_discard,),
        stock_count=started.stock_count,
        drawn=None,
        taken_discard=None,
        rebuilds=0,
        result=None,
    )


def after_event(view: DealView, event: Event) -> DealView:
    """The viewer's view right after ``event`` (as the viewer saw it, ``view_event``), from
    its view just before: what ``deal.apply`` does to the state, on a view.

    A seat that follows the event stream needs no new snapshot to move: a deal's
    events after its start carry everything its view holds. Raises ``ValueError``
    for an event that no view before it can be carried across (a new deal's start,
    the match's own events).
    """
    if isinstance(event, CardDrawn):
        return _after_draw(view, event)
    if isinstance(event, DiscardReturned):
        i = view.seats.index(event.seat)
        return replace(
            view,
            phase=Phase.DRAW,
            hand=_without(view.hand, (event.card,)) if view.viewer == event.seat else view.hand,
            hand_counts=_plus(view.hand_counts, i, -1),
            discard_pile=(*view.discard_pile, event.card),
            drawn=None,
            taken_discard=None,
            discard_barred=True,
        )
    if isinstance(event, Played):
        return _after_play(view, event)
    if isinstance(event, StockRebuilt):
        return replace(
            view,
            phase=Phase.DRAW,
            stock_count=event.count,
            discard_pile=view.discard_pile[-1:],
            rebuilds=event.r,
        )
    if isinstance(event, DealEnded):
        return replace(view, phase=Phase.OVER, result=event)
    raise ValueError(f"{type(event).__name__} does not follow from a view before it")


def _after_draw(view: DealView, drawn: CardDrawn) -> DealView:
    i = view.seats.index(drawn.seat)
    hand = view.hand
    if view.viewer == drawn.seat:
        if hand is None or drawn.card is None:
            raise ValueError("the viewer's own draw comes with its card")
        hand = (*hand, drawn.card)
    from_stock = drawn.source is DrawSource.STOCK
    return replace(
        view,
        phase=Phase.PLAY,
        hand=hand,
        hand_counts=_plus(view.hand_counts, i, 1),
        discard_pile=view.discard_pile if from_stock else view.discard_pile[:-1],
        stock_count=view.stock_count - 1 if from_stock else view.stock_count,
        drawn=drawn.source,
        taken_discard=None if from_stock else drawn.card,
    )


def _after_play(view: DealView, played: Played) -> DealView:
    """R3 step 2 on a view: the melds where the event placed them, the discard on the pile,
    the turn to the next seat (or the stock to rebuild, or the deal over)."""
    i = view.seats.index(played.seat)
    table = list(view.table)
    owners = list(view.owners)
    hand = list(view.hand) if view.hand is not None and view.viewer == played.seat else None
    count = view.hand_counts[i]
    for op in played.operations:
        # A run cut from a meld on the table stays its layer's (R7.4, S21), as in the engine.
        owner = owners[op.meld] if isinstance(op, CardsAttached) else played.seat
        for index, meld in op.placed:
            if index < len(table):
                table[index] = meld
            else:
                table.append(meld)
                owners.append(owner)
        if isinstance(op, JokerSwapped):  # a card for the joker: the hand's count holds
            if hand is not None:
                hand.remove(op.card)
                hand.append(op.joker)  # as the engine does: into the hand, laid later
            continue
        count -= len(op.cards)
        if hand is not None:
            for card in op.cards:
                hand.remove(card)
    if played.discard is not None:
        count -= 1
        if hand is not None:
            hand.remove(played.discard)
    seats = view.seats
    if played.went_out:
        phase, turn = Phase.OVER, view.turn
    else:
        turn = seats[(i + 1) % len(seats)]
        # The stock ran out: rebuilt next (or the deal ends void, its own event says so).
        phase = Phase.DRAW if view.stock_count else Phase.REBUILD
    return replace(
        view,
        phase=phase,
        turn=turn,
        hand=tuple(hand) if hand is not None else view.hand,
        hand_counts=set_at(view.hand_counts, i, count),
        opened=set_at(view.opened, i, view.opened[i] or played.opened),
        turns_played=_plus(view.turns_played, i, 1),
        table=tuple(table),
        owners=tuple(owners),
        discard_pile=(
            (*view.discard_pile, played.discard)
            if played.discard is not None
            else view.discard_pile
        ),
        drawn=None,
        taken_discard=None,
        agreed_discard=agreed_mark(view.ruleset, table, played.discard),
        discard_barred=False,
    )


def _without(hand: tuple[int, ...] | None, cards: tuple[int, ...]) -> tuple[int, ...] | None:
    if hand is None:
        return None
    left = list(hand)
    for card in cards:
        left.remove(card)
    return tuple(left)


def _plus(values: tuple[int, ...], i: int, step: int) -> tuple[int, ...]:
    return set_at(values, i, values[i] + step)


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
        discard_barred=state.discard_barred,
    )


# Stands for every card the seat cannot see. It must be a real card id, since the engine
# values the other hands when a play goes out; no move of the seat touches them.
HIDDEN = 0


def playable_state(view: DealView) -> DealState:
    """A deal state the engine can try this seat's moves on, built from its view alone.

    The engine has no public entry point for a state with hidden cards; this is
    the smallest one: every card the seat cannot see is ``HIDDEN``.
    """
    assert view.viewer is not None and view.hand is not None
    hands = tuple(
        view.hand if seat == view.viewer else (HIDDEN,) * count
        for seat, count in zip(view.seats, view.hand_counts, strict=True)
    )
    return DealState(
        ruleset=view.ruleset,
        seats=view.seats,
        dealer=view.dealer,
        hands=hands,
        opened=view.opened,
        turns_played=view.turns_played,
        table=view.table,
        owners=view.owners,
        stock=(HIDDEN,) * view.stock_count,
        discard_pile=view.discard_pile,
        turn=view.turn,
        phase=view.phase,
        deal_no=view.deal_no,
        drawn=view.drawn,
        taken_discard=view.taken_discard,
        discard_barred=view.discard_barred,
        rebuilds=view.rebuilds,
        result=view.result,
        agreed_discard=view.agreed_discard,
    )
