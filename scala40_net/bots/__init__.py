"""Bots of four strengths that play from a seat's view: ``make_bot(level, rng)``.

``easy`` lays down what a greedy generator finds and discards at random;
``medium`` plays the exact best lay-down (``scala40_net.search``), keeps cards
near a meld and does not feed the next player; ``hard`` also remembers what
was taken and thrown, and keeps the hand that opens, then goes out, with the
most of the draws it cannot see (``lookahead``); it weighs going out in one
turn, and once opened holds its melds in hand until they go out. ``expert``
weighs hard's best few moves by racing each: over deals sampled from what its
seat has seen, how few plays of its own it then needs to go out (``race``),
or at a larger table the penalty it can expect when another seat goes out
first (``deadline``).
Randomness comes only from the ``random.Random`` given to the bot.
"""

from __future__ import annotations

import random

from scala40_net.bots.base import Bot, TurnBot, playable_state
from scala40_net.bots.easy import EasyBot
from scala40_net.bots.expert import ExpertBot
from scala40_net.bots.hard import HardBot
from scala40_net.bots.medium import MediumBot

LEVELS = ("easy", "medium", "hard", "expert")
_BY_LEVEL: dict[str, type[TurnBot]] = {
    "easy": EasyBot,
    "medium": MediumBot,
    "hard": HardBot,
    "expert": ExpertBot,
}


def make_bot(level: str, rng: random.Random | None = None) -> Bot:
    """A bot of ``level`` (easy, medium, hard or expert) whose choices draw on ``rng``."""
    try:
        kind = _BY_LEVEL[level]
    except KeyError:
        raise ValueError(
            f"unknown bot level {level!r}: choose one of {', '.join(LEVELS)}"
        ) from None
    return kind(rng or random.Random())


__all__ = [
    "LEVELS",
    "Bot",
    "EasyBot",
    "ExpertBot",
    "HardBot",
    "MediumBot",
    "make_bot",
    "playable_state",
]
