"""The easy bot: lays down what the greedy move generator finds, discards at random."""

from __future__ import annotations

from scala40_net.bots.base import TurnBot
from scala40_net.deal import DealState
from scala40_net.movegen import first_legal_play, operation_cards, wants_discard
from scala40_net.search import LayDown


class EasyBot(TurnBot):
    """Greedy lay-downs (``movegen``), a random legal discard; takes the discard it can use."""

    level = "easy"

    def takes_discard(self, before: DealState, after: DealState) -> bool:
        return wants_discard(before, before.turn) is not None

    def lay_down(self, state: DealState) -> LayDown | None:
        found = first_legal_play(state, state.turn)
        if found is None:
            return None
        used = {c for op in found.operations for c in operation_cards(op)}
        leftover = tuple(c for c in state.hand(state.turn) if c not in used)
        return LayDown(found.operations, leftover, 0, 0)

    def pick_discard(self, state: DealState, lay: LayDown, legal: list[int]) -> int:
        return self.rng.choice(legal)
