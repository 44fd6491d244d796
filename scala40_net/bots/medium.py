"""The medium bot: the best lay-down, keeps cards near a meld, does not feed the next player."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from scala40_net.actions import Play
from scala40_net.bots.base import TurnBot
from scala40_net.bots.hand import card_points, feeds, near_meld_strength
from scala40_net.cards import is_joker
from scala40_net.deal import DealState, accepted_discards, apply
from scala40_net.melds import Meld
from scala40_net.search import LayDown, has_play


class MediumBot(TurnBot):
    """Lays the exact best lay-down; discards the costliest loose card that does not feed."""

    level = "medium"

    def takes_discard(self, before: DealState, after: DealState) -> bool:
        # Taken only to use at once: to open with it, or, once opened, to lay it.
        return has_play(after)

    def pick_discard(self, state: DealState, lay: LayDown, legal: list[int]) -> int:
        return min(legal, key=discard_order(state, lay, table_after(state, lay, legal[0])))


def discard_order(
    state: DealState, lay: LayDown, table: Sequence[Meld]
) -> Callable[[int], tuple[bool, bool, bool, int]]:
    """Medium's preference among discards, least wanted first: no joker, nothing that
    feeds the next player, a loose card before one near a meld, the costliest first."""
    next_opened = state.has_opened(state.next_seat(state.turn))
    near = near_meld_strength(lay.leftover)

    def order(card: int) -> tuple[bool, bool, bool, int]:
        return (
            is_joker(card),
            feeds(card, table, next_opened),
            near.get(card, 0) > 0,
            -card_points(card),
        )

    return order


def table_after(state: DealState, lay: LayDown, discard: int) -> tuple[Meld, ...]:
    """The table once the lay-down is played (the discard does not change it)."""
    after, _ = apply(state, state.turn, Play(lay.operations, discard))
    return after.table


def bare_discard(state: DealState) -> int | None:
    """The discard of a turn that lays nothing, in medium's order (None: no discard allowed).

    A joker only when nothing else may go, never a card that feeds the next player
    while another may, a loose card before one near a meld, the costliest first. It
    reads the state alone (no randomness, no memory), so the host's turn played for an
    absent seat is the same turn again when its journal is played back.
    """
    hand = state.hand(state.turn)
    legal = accepted_discards(state, (), hand)
    if not legal:
        return None
    return min(legal, key=discard_order(state, LayDown((), hand, 0, 0), state.table))
