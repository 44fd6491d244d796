"""The hard bot: medium's play, plus card memory, one draw of look-ahead, melds held back.

Heads-up, once opened it keeps the melds it could lay in hand until they let it go
out: a meld on the table is a place for the others to attach to (R6.1) and
a joker there is theirs to swap (R7.1), while a meld in hand costs no tempo,
since it can be laid in the turn that goes out. Measured heads-up against
medium (``bench/bench_bots.py``), that is the step from about 56% to 62%.
A discard it takes while holding is laid with the fewest operations that use
it (R3.2 asks no more), so taking it no longer lays every held meld: about
one point more heads-up against medium.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import combinations

from scala40_net.actions import Play
from scala40_net.bots.base import TurnBot, legal_discards
from scala40_net.bots.hand import card_points, feeds, near_meld_strength
from scala40_net.bots.lookahead import Outlook
from scala40_net.bots.medium import table_after
from scala40_net.bots.memory import CardMemory, visible_faces
from scala40_net.bots.unknown import unknown_cards
from scala40_net.cards import JOKER, Face, face, ids_with_face, is_joker
from scala40_net.deal import DealState
from scala40_net.events import Event
from scala40_net.movegen import operation_cards
from scala40_net.rules import UnopenedPenalty
from scala40_net.search import LayDown, best_opening, best_play

# Holding back an opening to go out in one turn (R9.3) only while the deal is young.
HOLD_MIN_STOCK = 20
HOLD_MIN_OPPONENT_CARDS = 7
HOLD_DOUBLED_CARDS = 9
# Before opening, when no single draw opens, the first few discards are weighed by how
# close the kept hand stays to an opening (``Prospects``).
LOOKAHEAD = 3
# Discards weighed by the one-draw look-ahead, at most.
WEIGHED = 8
# Heads-up and holding its melds, a taken discard is laid with at most this many operations.
TAKEN_OPERATIONS = 2


class HardBot(TurnBot):
    """Looks one draw ahead over the cards hidden from it, avoids what the next player
    collects, weighs a chiusura in mano."""

    level = "hard"

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.memory = CardMemory()

    def observe(self, event: Event) -> None:
        self.memory.observe(event)

    def buys_back(self, fee: int) -> bool:
        return True

    def play(self, state: DealState) -> Play | None:
        held = self._held_back(state)
        if held is None:
            held = self._taken_alone(state)
        return held if held is not None else super().play(state)

    def _held_back(self, state: DealState) -> Play | None:
        """Heads-up and opened, a play that lays nothing and throws a card the best lay-down
        leaves over, while that lay-down does not go out (None: play it as medium would).

        A taken discard must be used this turn (R3.2), so that play is made in full.
        """
        seat = state.turn
        if not state.has_opened(seat) or state.taken_discard is not None:
            return None
        if len(state.seats) > 2:
            # With more opponents someone goes out sooner, and held melds are caught in
            # hand: at 4-player tables holding cost hard more penalty than it saved.
            return None
        lay = best_play(state)
        if lay is None or lay.is_empty or len(lay.leftover) <= 1:
            return None
        hand = state.hand(seat)
        spare = [c for c in legal_discards(state, (), hand) if c in lay.leftover]
        if not spare:
            return None
        return Play((), self.pick_discard(state, LayDown((), hand, 0, 0), spare))

    def _taken_alone(self, state: DealState) -> Play | None:
        """Heads-up and opened, with the discard taken: the fewest operations (one or two) of
        the best lay-down that use it, the other melds still held, while it does not go out.

        The taken card must be laid this turn (R3.2), not the rest of the hand.
        """
        seat = state.turn
        taken = state.taken_discard
        if len(state.seats) > 2 or taken is None or not state.has_opened(seat):
            return None
        lay = best_play(state)
        if lay is None or lay.is_empty or len(lay.leftover) <= 1:
            return None
        hand = state.hand(seat)
        for size in range(1, min(TAKEN_OPERATIONS, len(lay.operations) - 1) + 1):
            for operations in combinations(lay.operations, size):
                used = {c for op in operations for c in operation_cards(op)}
                if taken not in used:
                    continue
                rest = tuple(c for c in hand if c not in used)
                spare = [c for c in legal_discards(state, operations, rest) if c in lay.leftover]
                if spare:
                    kept = LayDown(operations, rest, 0, 0)
                    return Play(operations, self.pick_discard(state, kept, spare))
        return None

    def takes_discard(self, before: DealState, after: DealState) -> bool:
        with_it = best_play(after)
        if with_it is None or with_it.is_empty:
            return False
        if before.has_opened(before.turn) or len(with_it.leftover) <= 1:
            return True
        # Taking the discard forces the opening now; while holding for a one-turn
        # close, only take it when it does not spoil that.
        return not self._holds_for_mano(after, with_it)

    def lay_down(self, state: DealState) -> LayDown | None:
        lay = best_play(state)
        seat = state.turn
        if lay is None or lay.is_empty or state.has_opened(seat) or state.taken_discard is not None:
            return lay
        if self._holds_for_mano(state, lay):
            return LayDown((), state.hand(seat), 0, 0)
        return lay

    def _holds_for_mano(self, state: DealState, lay: LayDown) -> bool:
        """Keep the opening back when one card short of going out in one turn, and it pays.

        It pays only against an opened opponent with many cards (their hand counts
        double, R9.3; an unopened one pays 100 either way, R9.5), and only while
        nobody is close to going out.
        """
        rules = state.ruleset
        if len(lay.leftover) != 2 or rules.unopened_penalty is not UnopenedPenalty.FLAT100:
            return False
        if not rules.closing_in_hand_double:
            return False  # no doubling to wait for (R9.3 off)
        if len(state.stock) < HOLD_MIN_STOCK:
            return False
        seat = state.turn
        others = [s for s in state.seats if s != seat]
        counts = {s: len(state.hand(s)) for s in others}
        if min(counts.values()) < HOLD_MIN_OPPONENT_CARDS:
            return False
        return any(state.has_opened(s) and counts[s] >= HOLD_DOUBLED_CARDS for s in others)

    def pick_discard(self, state: DealState, lay: LayDown, legal: list[int]) -> int:
        seat = state.turn
        ranked, candidates = self.ranked_discards(state, lay, legal)
        if len(candidates) < 2:
            return ranked[0]
        table = table_after(state, lay, legal[0])
        opened = state.has_opened(seat) or bool(lay.operations)
        outlook = Outlook(unknown_cards(state, seat, self.memory), state.ruleset)
        # Ties keep the heuristic order: the first in ``ranked`` wins them.
        if opened:
            closing = outlook.closing(lay.leftover, candidates, table)
            return max(candidates, key=lambda d: (closing[d], -ranked.index(d)))
        outs = outlook.opening_outs(lay.leftover, candidates)
        if max(outs.values()) > 0:
            return max(candidates, key=lambda d: (outs[d], -ranked.index(d)))
        shortlist = candidates[:LOOKAHEAD]
        prospects = Prospects(state, lay.leftover)
        return max(shortlist, key=lambda d: (prospects.after_discarding(d), -shortlist.index(d)))

    def ranked_discards(
        self, state: DealState, lay: LayDown, legal: list[int]
    ) -> tuple[list[int], list[int]]:
        """``legal`` in the order of the rules of thumb, and the few worth weighing further.

        The second list holds one card per face (copies are alike), no joker,
        nothing that feeds the next player unless every card does, at most ``WEIGHED``.
        """
        seat = state.turn
        table = table_after(state, lay, legal[0])
        next_seat = state.next_seat(seat)
        next_opened = state.has_opened(next_seat)
        live = self._live(state)
        near = near_meld_strength(lay.leftover, live)
        # Until it opens, a player pays 100 whatever the hand (R9.5): high cards are
        # worth more for reaching the opening than for their penalty.
        opened = state.has_opened(seat) or bool(lay.operations)
        flat = state.ruleset.unopened_penalty is UnopenedPenalty.FLAT100
        sign = 1 if (not opened and flat) else -1
        memory = self.memory

        def order(card: int) -> tuple[bool, bool, int, bool, bool, int]:
            return (
                is_joker(card),
                feeds(card, table, next_opened),
                near.get(card, 0),
                memory.wanted_by(next_seat, card),
                not memory.passed_on(next_seat, card),
                sign * card_points(card),
            )

        ranked = sorted(legal, key=order)
        safe = [c for c in ranked if not order(c)[1]] or ranked
        # Copies of a face are alike; a joker goes only when nothing else may.
        candidates = list({face(c): c for c in reversed(safe) if not is_joker(c)}.values())
        # The look-ahead weighs the first few by the rules of thumb: that bounds its time.
        return ranked, sorted(candidates, key=ranked.index)[:WEIGHED]

    def _live(self, state: DealState) -> Callable[[Face], int]:
        seen = visible_faces(state, state.hand(state.turn))
        decks = state.ruleset.decks
        return lambda f: max(0, (2 * decks if f.is_joker else decks) - seen[f])


class Prospects:
    """How close the hand kept after a discard is to an opening (R5.1).

    Draws are random, so what counts is how far the hand is from the opening
    total: the exact search is asked what the hand reaches with one, then two
    ideal cards (a joker stands for each).
    """

    def __init__(self, state: DealState, hand: Sequence[int]) -> None:
        self.ruleset = state.ruleset
        self.hand = tuple(hand)

    def after_discarding(self, discard: int) -> tuple[int, int]:
        kept = [c for c in self.hand if c != discard]
        needed = self.ruleset.opening_points
        free = replace(self.ruleset, opening_points=0)
        spare = [j for j in ids_with_face(JOKER, self.ruleset.decks) if j not in kept]
        reach: list[int] = []
        for wild in (1, 2):
            found = best_opening([*kept, *spare[:wild]], free, keep_discard=False, enough=needed)
            reach.append(min(found.opening_points, needed) if found is not None else 0)
        return reach[0], reach[1]
