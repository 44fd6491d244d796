"""What a seat (or the table) can do in a deal: small frozen, hashable action values."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from scala40_net.cards import Face


class DrawSource(StrEnum):
    """Where the card of a draw comes from (R3 step 1)."""

    STOCK = "stock"
    DISCARD = "discard"


@dataclass(frozen=True)
class Draw:
    """Step 1 of a turn: take the top of the stock or of the discard pile (R3, R3.2)."""

    source: DrawSource


@dataclass(frozen=True)
class NewMeld:
    """Lay down a new meld (R4, R5).

    ``cards`` in the player's order: a sequence low to high (the order places
    the joker, R4.4); a group in any order. ``joker_as`` is the card the joker
    stands for, required when ``cards`` holds a joker. ``split`` gives the run
    lengths, low to high, when ``max_run`` (R4.6) makes the player cut a long
    sequence; empty means no cut, or the automatic 3+3 of a 6-card sequence.
    """

    cards: tuple[int, ...]
    joker_as: Face | None = None
    split: tuple[int, ...] = ()


@dataclass(frozen=True)
class Attach:
    """Add cards from hand to meld number ``meld`` of the table (R6); fields as in ``NewMeld``."""

    meld: int
    cards: tuple[int, ...]
    joker_as: Face | None = None
    split: tuple[int, ...] = ()


@dataclass(frozen=True)
class SwapJoker:
    """Put ``card`` in place of the joker of meld ``meld`` and take the joker in hand (R7)."""

    meld: int
    card: int


Operation = NewMeld | Attach | SwapJoker


@dataclass(frozen=True)
class Play:
    """Step 2 of a turn, checked and applied whole or not at all.

    ``discard`` is ``None`` only when the play lays every card and the ruleset
    lets a player go out without a discard (R9.1, ``close_without_discard``).
    """

    operations: tuple[Operation, ...] = ()
    discard: int | None = None

    def cards_from_hand(self) -> list[int]:
        """The cards the play takes from the hand: laid, attached, swapped in, discarded."""
        taken: list[int] = []
        for operation in self.operations:
            if isinstance(operation, NewMeld | Attach):
                taken += operation.cards
            elif isinstance(operation, SwapJoker):
                taken.append(operation.card)
        if self.discard is not None:
            taken.append(self.discard)
        return taken


@dataclass(frozen=True)
class ReturnDiscard:
    """Put back the card just taken from the discard pile and draw from the stock instead.

    A player who took the discard but cannot meet R3.2 with it would otherwise
    be stuck; see "Settled points" in docs/RULES.md.
    """


@dataclass(frozen=True)
class RebuildStock:
    """The table's answer when the stock ran out (R10.1): the new stock, top first.

    The order comes from outside (the fair-deal reshuffle), like the deck; it
    must be exactly the discard pile less its top card.
    """

    order: tuple[int, ...]


Action = Draw | Play | ReturnDiscard | RebuildStock
