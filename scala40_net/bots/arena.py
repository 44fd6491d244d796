"""Engine-only games between bots, in one process: whole deals and whole matches.

No host, no network: the bots see exactly what a seat sees (``views``) and the
engine applies their moves. Decks and rebuilt stocks come from the fair-deal
derivation (FAIR_DEAL.md) of seeds named by a label, so a game replays
exactly and nothing here shuffles.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from scala40_net.actions import Action, Draw, RebuildStock, ReturnDiscard
from scala40_net.bots.base import Bot
from scala40_net.deal import DealState, Phase, apply, start_deal
from scala40_net.errors import RuleViolation
from scala40_net.events import Event
from scala40_net.fairdeal import spec
from scala40_net.match import (
    BuyBack,
    MatchPhase,
    MatchState,
    Retire,
    StartDeal,
    apply_match,
    start_match,
)
from scala40_net.rules import Ruleset
from scala40_net.views import view_event, view_state

MAX_STEPS = 20_000


class BotMoveRefused(AssertionError):
    """A bot proposed a move the engine refused: a bug in the bot, never a rule dispute."""


@dataclass(frozen=True)
class Dealing:
    """The fair-deal derivation of one deal from a label: its deck and its rebuild key."""

    deck: tuple[int, ...]
    key: bytes

    @classmethod
    def of(
        cls, label: str, deal_no: int, ruleset: Ruleset, seats: Sequence[int], dealer: int
    ) -> Dealing:
        derivation = spec.derive_deal(
            host_seed=hashlib.sha256(label.encode()).digest(),
            table_id=label,
            deal_no=deal_no,
            dealer=dealer,
            cutter=spec.cutter_seat(dealer, seats),
            seats_in_play=sorted(seats),
            deck_size=ruleset.deck_size,
            reveals=(),
        )
        return cls(tuple(derivation.deck), derivation.mix_key)

    def rebuilt(self, rebuild_no: int, discard_pile: Sequence[int]) -> RebuildStock:
        return RebuildStock(tuple(spec.rebuild_stock(self.key, rebuild_no, discard_pile)))


@dataclass
class Timings:
    """Seconds each bot decision took, by level (for the benchmark)."""

    by_level: dict[str, list[float]] = field(default_factory=dict)

    def add(self, level: str, seconds: float) -> None:
        self.by_level.setdefault(level, []).append(seconds)


def _tell(bots: Mapping[int, Bot], events: Sequence[Event]) -> None:
    for event in events:
        for seat, bot in bots.items():
            bot.observe(view_event(event, seat))


def decide(state: DealState, bot: Bot, timings: Timings | None = None) -> Action:
    """The move of the seat to move, from its view: a draw, a play, or putting the discard back."""
    seat = state.turn
    view = view_state(state, seat)
    started = time.perf_counter()
    action: Action
    if state.phase is Phase.DRAW:
        action = Draw(bot.choose_draw(view))
    else:
        play = bot.choose_play(view)
        action = play if play is not None else ReturnDiscard()
    if timings is not None:
        timings.add(bot.level, time.perf_counter() - started)
    return action


def _refused(bot: Bot, seat: int, action: Action, error: RuleViolation) -> BotMoveRefused:
    return BotMoveRefused(f"{bot.level} bot at seat {seat}: {action} refused: {error}")


def play_deal(
    bots: Mapping[int, Bot],
    ruleset: Ruleset,
    dealer: int,
    label: str,
    deal_no: int = 1,
    timings: Timings | None = None,
    on_turn: Callable[[DealState], None] | None = None,
) -> DealState:
    """Play one deal to its end between ``bots`` (seat -> bot); returns the final state.

    ``on_turn``, if given, is called with the whole state before each seat's move
    (the benchmarks' measurements; a bot never sees it).
    """
    seats = sorted(bots)
    dealing = Dealing.of(label, deal_no, ruleset, seats, dealer)
    state, events = start_deal(ruleset, seats, dealer, dealing.deck, deal_no)
    _tell(bots, events)
    for _ in range(MAX_STEPS):
        if state.is_over:
            return state
        if state.phase is Phase.REBUILD:
            state, events = apply(
                state, None, dealing.rebuilt(state.rebuilds + 1, state.discard_pile)
            )
        else:
            seat = state.turn
            if on_turn is not None:
                on_turn(state)
            action = decide(state, bots[seat], timings)
            try:
                state, events = apply(state, seat, action)
            except RuleViolation as error:
                raise _refused(bots[seat], seat, action, error) from error
        _tell(bots, events)
    raise BotMoveRefused(f"deal {label} did not end in {MAX_STEPS} steps")


def play_match(
    bots: Mapping[int, Bot], ruleset: Ruleset, first_dealer: int, label: str
) -> MatchState:
    """Play a whole match (R11) between ``bots``; returns the final match state."""
    match = start_match(ruleset, sorted(bots), first_dealer)
    dealing: Dealing | None = None
    for _ in range(MAX_STEPS * 20):
        events: list[Event]
        if match.phase is MatchPhase.OVER:
            return match
        if match.phase is MatchPhase.RIENTRO:
            seat = match.pending_rientro[0]
            answer = BuyBack() if bots[seat].buys_back(match.rientro_fee(seat)) else Retire()
            match, events = apply_match(match, seat, answer)
        elif match.phase is MatchPhase.DEAL_DUE:
            seats = match.seats_in_play
            dealing = Dealing.of(label, match.deal_no + 1, ruleset, seats, match.dealer)
            match, events = apply_match(match, None, StartDeal(dealing.deck))
        else:
            deal = match.deal
            assert deal is not None and dealing is not None
            if deal.phase is Phase.REBUILD:
                rebuilt = dealing.rebuilt(deal.rebuilds + 1, deal.discard_pile)
                match, events = apply_match(match, None, rebuilt)
            else:
                seat = deal.turn
                action = decide(deal, bots[seat])
                try:
                    match, events = apply_match(match, seat, action)
                except RuleViolation as error:
                    raise _refused(bots[seat], seat, action, error) from error
        _tell(bots, events)
    raise BotMoveRefused(f"match {label} did not end")
