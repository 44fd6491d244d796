"""Card ids, faces and their text form, exactly as FAIR_DEAL.md ("Card ids") defines them.

A card is an ``int`` id: ``54*copy + 13*suit + (rank - 1)`` for suited cards,
``54*copy + 52`` and ``54*copy + 53`` for the two jokers of a copy. The id names
one physical card (the fair-deal verifier follows every one of them); the
*face* is what players see, and two copies of 7H have the same face.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

CARDS_PER_DECK = 54
JOKER_RANK = 0
RANK_TEXT = {1: "A", 11: "J", 12: "Q", 13: "K"}
RANK_BY_TEXT = {"A": 1, "J": 11, "Q": 12, "K": 13} | {str(r): r for r in range(2, 11)}


class Suit(IntEnum):
    """Suit index of the card ids: hearts, diamonds, clubs, spades."""

    HEARTS = 0
    DIAMONDS = 1
    CLUBS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        return "HDCS"[self]

    @property
    def symbol(self) -> str:
        return "♥♦♣♠"[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.HEARTS, Suit.DIAMONDS)


SUIT_BY_LETTER = {s.letter: s for s in Suit}


class CardTextError(ValueError):
    """Text that does not name a card (``AH``, ``10D``, ``QC``, ``KS``, ``JK``)."""


@dataclass(frozen=True, order=True)
class Face:
    """What a card shows: a rank (1 = ace … 13 = king) and a suit, or a joker."""

    rank: int
    suit: Suit | None

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER_RANK

    def __str__(self) -> str:
        if self.suit is None:
            return "JK"
        return f"{RANK_TEXT.get(self.rank, str(self.rank))}{self.suit.letter}"


JOKER = Face(JOKER_RANK, None)


def card_id(rank: int, suit: Suit, copy: int = 0) -> int:
    """The id of a suited card of deck copy ``copy``."""
    if not 1 <= rank <= 13:
        raise ValueError(f"rank {rank} is not 1..13")
    if copy not in (0, 1):
        raise ValueError(f"deck copy {copy} is not 0 or 1")
    return CARDS_PER_DECK * copy + 13 * int(suit) + (rank - 1)


def joker_id(copy: int = 0, which: int = 0) -> int:
    """The id of joker ``which`` (0 or 1) of deck copy ``copy``."""
    if copy not in (0, 1) or which not in (0, 1):
        raise ValueError("joker copy and index are 0 or 1")
    return CARDS_PER_DECK * copy + 52 + which


def deck_size(decks: int) -> int:
    """Number of cards with ``decks`` French decks of 54 (R1.1)."""
    return CARDS_PER_DECK * decks


def canonical_deck(decks: int) -> list[int]:
    """A fresh deck in canonical order: ascending id (FAIR_DEAL.md)."""
    return list(range(deck_size(decks)))


def is_joker(card: int) -> bool:
    return card % CARDS_PER_DECK >= 52


def _face_of(card: int) -> Face:
    within = card % CARDS_PER_DECK
    if within >= 52:
        return JOKER
    return Face(within % 13 + 1, Suit(within // 13))


# Faces are looked up far more often than anything else in the engine: a table keeps it cheap.
_FACES = tuple(_face_of(card) for card in range(2 * CARDS_PER_DECK))


def face(card: int) -> Face:
    """The face of a card id."""
    if card < 0 or card >= 2 * CARDS_PER_DECK:
        raise ValueError(f"card id {card} is not 0..107")
    return _FACES[card]


def rank(card: int) -> int:
    return face(card).rank


def suit(card: int) -> Suit | None:
    return face(card).suit


def card_text(card: int) -> str:
    """Text form of a card id: rank then suit letter, ``JK`` for a joker."""
    return str(face(card))


def cards_text(cards: Iterable[int]) -> str:
    return " ".join(card_text(c) for c in cards)


def parse_face(text: str) -> Face:
    """Parse ``AH``, ``10D``, ``qc``, ``JK`` (case-insensitive) into a face.

    >>> str(parse_face("10d"))
    '10D'
    """
    word = text.strip().upper()
    if word in ("JK", "JOKER"):
        return JOKER
    if len(word) < 2:
        raise CardTextError(f"{text!r} is not a card: write rank then suit, like 7H, 10D, QS or JK")
    rank_text, suit_letter = word[:-1], word[-1]
    if suit_letter not in SUIT_BY_LETTER:
        raise CardTextError(
            f"{text!r} is not a card: "
            "the suit must be H, D, C or S (hearts, diamonds, clubs, spades)"
        )
    if rank_text not in RANK_BY_TEXT:
        raise CardTextError(f"{text!r} is not a card: the rank must be A, 2-10, J, Q or K")
    return Face(RANK_BY_TEXT[rank_text], SUIT_BY_LETTER[suit_letter])


def parse_faces(text: str) -> list[Face]:
    return [parse_face(word) for word in text.split()]


def ids_with_face(f: Face, decks: int = 2) -> list[int]:
    """Every card id that shows face ``f`` in a game of ``decks`` decks."""
    if f.is_joker:
        return [joker_id(c, w) for c in range(decks) for w in (0, 1)]
    assert f.suit is not None
    return [card_id(f.rank, f.suit, c) for c in range(decks)]


def pick_from_hand(faces: Iterable[Face], hand: Iterable[int]) -> list[int]:
    """Map faces a person typed onto distinct card ids held in ``hand``.

    Raises ``CardTextError`` naming the first face the hand does not hold (again).
    """
    available = list(hand)
    chosen: list[int] = []
    for f in faces:
        match = next((c for c in available if face(c) == f), None)
        if match is None:
            raise CardTextError(f"{f} is not in your hand")
        available.remove(match)
        chosen.append(match)
    return chosen
