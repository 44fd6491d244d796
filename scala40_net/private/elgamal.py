"""The encrypted deck: each card a fixed group element, ElGamal under the seats' joint key.

Card ``c`` (the ids of ``scala40_net.cards``) is ``M_c = from_hash(SHA-512("scala40/private/
v1/card" || be16(c)))``. A ciphertext is ``(A, B) = (r·G, M + r·Y)`` under the joint key
``Y = Σ Y_i``; the deck before any shuffle is every card *openly* encrypted, ``(0, M_c)`` in id
order (as is a rebuilt stock's discards), so anyone can check it. Seat ``i``'s decryption
share of a card is ``D_i = x_i·A``; with every seat's share, ``M = B - Σ D_i``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from scala40_net.private.encoding import Reader, Writer
from scala40_net.private.group import IDENTITY, Point, base_times, hash_to_point, total

CARD_TAG = b"scala40/private/v1/card"


class UnknownCard(ValueError):
    """A fully opened ciphertext that is no card of the deck."""


@cache
def card_point(card: int) -> Point:
    """``M_c``: card ``c``'s fixed group element."""
    return hash_to_point(CARD_TAG, card.to_bytes(2, "big"))


@cache
def _card_by_point(deck_size: int) -> dict[Point, int]:
    return {card_point(c): c for c in range(deck_size)}


def card_of(point: Point, deck_size: int) -> int:
    """The card whose element ``point`` is (UnknownCard otherwise)."""
    card = _card_by_point(deck_size).get(point)
    if card is None:
        raise UnknownCard("the opened element is no card of the deck")
    return card


@dataclass(frozen=True)
class Ciphertext:
    """``(A, B) = (r·G, M + r·Y)``."""

    a: Point
    b: Point

    def reencrypted(self, joint_key: Point, r: int) -> Ciphertext:
        """``(A + r·G, B + r·Y)``: the same card, unlinkable to this ciphertext."""
        return Ciphertext(self.a + base_times(r), self.b + r * joint_key)

    def write(self, w: Writer) -> None:
        w.point(self.a).point(self.b)

    @staticmethod
    def read(r: Reader) -> Ciphertext:
        return Ciphertext(r.point(), r.point())

    def __bytes__(self) -> bytes:
        return self.a.data + self.b.data


Deck = tuple[Ciphertext, ...]


def open_deck(cards: Iterable[int]) -> Deck:
    """``(0, M_c)`` for each card in the given order: encrypted openly, for anyone to check."""
    return tuple(Ciphertext(IDENTITY, card_point(c)) for c in cards)


def joint_key(keys: Iterable[Point]) -> Point:
    """``Y = Σ Y_i``: only all seats together can remove it."""
    return total(keys)


def share(secret: int, ct: Ciphertext) -> Point:
    """Seat ``i``'s decryption share ``D_i = x_i·A``."""
    return secret * ct.a


def unmask(ct: Ciphertext, shares: Sequence[Point]) -> Point:
    """``B - Σ D_i``: the card's element once every seat's share is in."""
    return ct.b - total(shares)


def write_deck(w: Writer, deck: Sequence[Ciphertext]) -> None:
    w.u16(len(deck))
    for ct in deck:
        ct.write(w)


def read_deck(r: Reader) -> Deck:
    return tuple(Ciphertext.read(r) for _ in range(r.u16()))


def deck_bytes(deck: Sequence[Ciphertext]) -> bytes:
    w = Writer()
    write_deck(w, deck)
    return bytes(w)
