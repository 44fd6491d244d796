"""Dealing the hidden cards again, consistently with one seat's view: the expert's samples.

A seat knows its hand, the table, the discard pile, how many cards each hand
and the stock hold, and which cards others took from the pile and still hold
(``CardMemory.held``). Any placement of the other cards that agrees with all
of that is a deal the seat cannot tell from the real one; a sample is one
such placement, drawn uniformly with the bot's own ``random.Random``.
"""

from __future__ import annotations

import random
from dataclasses import replace

from scala40_net.bots.memory import CardMemory
from scala40_net.bots.unknown import unknown_cards
from scala40_net.deal import DealState


class Inconsistent(ValueError):
    """The seat's memory does not fit the counts it sees (a memory begun mid-deal, say)."""


def sample_deal(
    state: DealState, seat: int, memory: CardMemory | None, rng: random.Random
) -> DealState:
    """``state`` (a seat's playable state) with every hidden card placed at random.

    Raises ``Inconsistent`` when the cards the seat cannot place do not fill
    the hidden places exactly.
    """
    held = memory.held if memory is not None else {}
    pool = unknown_cards(state, seat, memory)
    # The pool comes ascending, so a sample depends on what the seat knows and the rng alone.
    rng.shuffle(pool)
    hands: list[tuple[int, ...]] = []
    for other, hand in zip(state.seats, state.hands, strict=True):
        if other == seat:
            hands.append(hand)
            continue
        known = sorted(held.get(other, set()))
        need = len(hand) - len(known)
        if need < 0 or need > len(pool):
            raise Inconsistent(f"seat {other} holds {len(hand)} cards, {len(known)} known")
        hands.append((*known, *pool[:need]))
        pool = pool[need:]
    if len(pool) != len(state.stock):
        raise Inconsistent(f"{len(pool)} cards left for a stock of {len(state.stock)}")
    return replace(state, hands=tuple(hands), stock=tuple(pool))
