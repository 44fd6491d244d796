"""The expert bot: each candidate draw and discard raced forward over sampled deals.

Candidates come from the hard bot's rules of thumb (its own move, its next
ranked discards, the opening laid or held back for a chiusura in mano; once
opened and holding its melds, the other discards of the cards left over). Each
is applied to the same deals sampled from the seat's view (``sampling``), and
the seat plays on alone with a fast medium policy until it goes out
(``race``): heads-up, a move is worth how few plays that takes; at a table of
three or more, minus the penalty the seat can expect when somebody else goes
out first (``deadline``). Where the hard bot looks one draw ahead exactly, the
races look several draws ahead over samples of them. The same samples for
every candidate make the comparison paired, and the hard bot's move is left
only for one the samples find clearly better.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from statistics import mean, stdev

from scala40_net.actions import Draw, DrawSource, Play
from scala40_net.bots.base import (
    accepts,
    after_taking_discard,
    legal_discards,
    playable_state,
    turn_key,
)
from scala40_net.bots.deadline import survival
from scala40_net.bots.hard import HardBot
from scala40_net.bots.race import RacePolicy, race
from scala40_net.bots.sampling import Inconsistent, sample_deal
from scala40_net.deal import DealState, apply
from scala40_net.search import LayDown, best_play
from scala40_net.views import DealView

# The default budget: plays made in races per decision (the work, counted so that a
# decision replays exactly, unlike a clock), the plays a race looks ahead, and the
# candidate moves weighed. Chosen by self-play against the hard bot (bench/README.md)
# with a decision's p99 under a second (bench/bench_bots.py prints it); at 4-player
# tables 400 plays left the expert behind hard on one of two seed sets, 600 ahead on both.
BUDGET = 600
HORIZON = 5
CANDIDATES = 4
# How sure the samples must be before the expert leaves the hard bot's move, in standard
# errors: heads-up, following the best mean (no margin) won fewer deals against hard than
# one standard error; at larger tables, where the races' clock is a table of averages
# (``deadline``), one standard error paid more penalty than hard, two (with no opening
# held back that hard lays) less (bench/README.md, "The expert at larger tables").
CONFIDENCE = 1.0
CONFIDENCE_AT_TABLE = 2.0

Move = Draw | Play


class ExpertBot(HardBot):
    """Weighs the hard bot's best few moves by racing them over sampled deals."""

    level = "expert"

    def __init__(
        self,
        rng: random.Random,
        budget: int = BUDGET,
        candidates: int = CANDIDATES,
        horizon: int = HORIZON,
    ) -> None:
        super().__init__(rng)
        self.budget = budget
        self.candidates = candidates
        self.horizon = horizon
        self._policy = RacePolicy(random.Random(0))  # deterministic: its rng is never drawn on

    # --- the draw -----------------------------------------------------------------

    def choose_draw(self, view: DealView) -> DrawSource:
        plain = super().choose_draw(view)
        state = playable_state(view)
        after = after_taking_discard(state)
        if after is None or self._put_back == turn_key(view):
            return plain
        if not self._free_pickup(state) and not self._usable(after):
            return DrawSource.STOCK  # taking it would only mean putting it back (R3.2)
        moves: list[Move] = [Draw(DrawSource.STOCK), Draw(DrawSource.DISCARD)]
        if plain is DrawSource.DISCARD:
            moves.reverse()  # ties go to the hard bot's choice
        best = self._weigh(state, moves)
        assert isinstance(best, Draw)
        return best.source

    @staticmethod
    def _usable(after: DealState) -> bool:
        with_it = best_play(after)
        return with_it is not None and not with_it.is_empty

    # --- the play -----------------------------------------------------------------

    def choose_play(self, view: DealView) -> Play | None:
        state = playable_state(view)
        plays = self._candidate_plays(state)
        if not plays:
            return super().choose_play(view)
        for play in plays:
            if _goes_out(state, play):
                return play
        if len(plays) == 1:
            return plays[0]
        best = self._weigh(state, list(plays))
        assert isinstance(best, Play)
        return best

    def _candidate_plays(self, state: DealState) -> list[Play]:
        """At most ``candidates`` plays worth weighing: the hard bot's own first, then the
        best of the other lay-down (opened now or held back, R9.3), then the next discards."""
        seat = state.turn
        own = self.play(state)
        lay = best_play(state)
        holding = own is not None and not own.operations and state.has_opened(seat)
        if holding and lay is not None and not lay.is_empty:
            held = self._held_discards(state, lay)
            if held:
                return held[: self.candidates]
        lays: list[LayDown] = [] if lay is None else [lay]
        # Holding the opening back is weighed heads-up, or where hard holds it: at a larger
        # table somebody may go out meanwhile and the hand pays 100 (R9.5), which hard's
        # rule for holding weighs and the races see only through their clock.
        hard_opens = own is not None and bool(own.operations)
        if (
            lay is not None
            and not lay.is_empty
            and not state.has_opened(seat)
            and state.taken_discard is None
            and (len(state.seats) == 2 or not hard_opens)
        ):
            lays.append(LayDown((), state.hand(seat), 0, 0))
        if own is not None and lays and own.operations != lays[0].operations:
            lays.reverse()  # the lay-down the hard bot did not choose comes first below
        by_lay: list[list[Play]] = []
        for option in lays:
            legal = legal_discards(state, option.operations, option.leftover)
            if legal:
                ranked, weighed = self.ranked_discards(state, option, legal)
                # Only jokers may go: hard weighs none of them and throws its first (R8).
                by_lay.append([Play(option.operations, card) for card in weighed or ranked[:1]])
        ordered = [] if own is None else [own]
        ordered += [plays[0] for plays in by_lay]
        ordered += [play for plays in by_lay for play in plays[1:]]
        unique = [p for p in dict.fromkeys(ordered) if accepts(state, p)]
        return unique[: self.candidates]

    def _held_discards(self, state: DealState, lay: LayDown) -> list[Play]:
        """For an opened seat holding its melds back (``HardBot``): the hard bot's discard
        first, then its next ranked ones among the cards the lay-down leaves over."""
        hand = state.hand(state.turn)
        spare = [c for c in legal_discards(state, (), hand) if c in lay.leftover]
        if not spare:
            return []
        own = self._held_back(state)
        _, weighed = self.ranked_discards(state, LayDown((), hand, 0, 0), spare)
        ordered = ([] if own is None else [own]) + [Play((), card) for card in weighed]
        return [p for p in dict.fromkeys(ordered) if accepts(state, p)]

    # --- weighing -----------------------------------------------------------------

    def _weigh(self, state: DealState, moves: Sequence[Move]) -> Move:
        """The hard bot's move (``moves[0]``) unless the samples say clearly that another is
        better: its mean gain over the same samples must beat ``CONFIDENCE`` standard errors.

        Whole rounds of samples are raced (``race``), one race for every move on
        each sample, until the plays made reach the budget.
        """
        seat = state.turn
        # Heads-up, going out first is the deal; at larger tables, the penalty paid.
        clock = survival(state, seat, self.horizon) if len(state.seats) > 2 else None
        worths: list[list[float]] = [[] for _ in moves]
        spent = 0
        while spent < self.budget:
            try:
                sample = sample_deal(state, seat, self.memory, self.rng)
            except Inconsistent:
                sample = sample_deal(state, seat, None, self.rng)
            for i, move in enumerate(moves):
                worth, plays = race(sample, seat, move, self._policy, self.horizon, clock)
                spent += plays + 1  # +1: the budget runs out even if every move is refused
                worths[i].append(worth)
        confidence = CONFIDENCE if clock is None else CONFIDENCE_AT_TABLE
        best, best_gain = 0, 0.0
        for i in range(1, len(moves)):
            gains = [a - b for a, b in zip(worths[i], worths[0], strict=True)]
            if clearly_better(gains, confidence) and mean(gains) > best_gain:
                best, best_gain = i, mean(gains)
        return moves[best]


def clearly_better(gains: Sequence[float], confidence: float = CONFIDENCE) -> bool:
    """Is the mean of ``gains`` above ``confidence`` standard errors (and above 0)?"""
    if len(gains) < 2:
        return False
    spread = stdev(gains)
    return mean(gains) > max(confidence * spread / math.sqrt(len(gains)), 0.0)


def _goes_out(state: DealState, play: Play) -> bool:
    """Does ``play`` end the deal with this seat out (R9.1)? Nothing beats that."""
    after, _ = apply(state, state.turn, play)
    return after.result is not None and after.result.closer == state.turn
