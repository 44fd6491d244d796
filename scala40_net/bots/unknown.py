"""The cards a seat cannot place: what the hard bot's look-ahead draws from.

A seat sees its hand, the table and the discard pile, and remembers the
cards others took from the pile and still hold (``CardMemory.held``). Every
other card of the deck is in the stock or in another hand, and by symmetry
the next card of the stock is any one of them with the same chance: that
set is what the look-ahead draws from.
"""

from __future__ import annotations

from collections.abc import Iterable

from scala40_net.bots.memory import CardMemory
from scala40_net.deal import DealState
from scala40_net.search import face_index


def unknown_cards(state: DealState, seat: int, memory: CardMemory | None = None) -> list[int]:
    """Card ids ``seat`` cannot place from its view and its memory, ascending."""
    known = set(state.hand(seat))
    known.update(c for meld in state.table for c in meld.cards)
    known.update(state.discard_pile)
    if memory is not None:
        known |= memory.held_by_others(seat)
    return [c for c in range(state.ruleset.deck_size) if c not in known]


def by_face(cards: Iterable[int]) -> dict[int, list[int]]:
    """Cards grouped by face index (-1 for the jokers): copies are alike in every meld."""
    out: dict[int, list[int]] = {}
    for card in cards:
        out.setdefault(face_index(card), []).append(card)
    return out
