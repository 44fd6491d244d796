"""Reading a hand for the bots: which cards are near a meld, and what each partial meld waits for.

A *partial* is two real cards that one more card turns into a meld: a pair of
one rank in different suits (a group waiting for a third suit), two cards of
a suit one apart (a sequence waiting at either end) or two apart (waiting in
the gap). The ace stands at both ends of a suit (R4.1). A joker completes any
partial, so it is counted apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from scala40_net.cards import Face, Suit, face, is_joker
from scala40_net.deal import could_attach
from scala40_net.melds import ACE_HIGH, ACE_LOW, Meld, face_points, scale_face


@dataclass(frozen=True)
class Partial:
    """Two cards of the hand and the faces that would make them a meld."""

    cards: tuple[int, int]
    wants: tuple[Face, ...]
    adjacent: bool  # a pair or two neighbours: two ways to complete, or a group's two suits


def _scale_ranks(f: Face) -> tuple[int, ...]:
    return (ACE_LOW, ACE_HIGH) if f.rank == ACE_LOW else (f.rank,)


def partials(hand: Iterable[int]) -> list[Partial]:
    """Every partial meld among the real cards of ``hand`` (each pair of cards at most once)."""
    reals = [c for c in hand if not is_joker(c)]
    out: list[Partial] = []
    for a, b in combinations(reals, 2):
        fa, fb = face(a), face(b)
        if fa == fb:
            continue
        if fa.rank == fb.rank:
            wants = tuple(Face(fa.rank, s) for s in Suit if s not in (fa.suit, fb.suit))
            out.append(Partial((a, b), wants, True))
            continue
        if fa.suit != fb.suit:
            continue
        suit = fa.suit
        assert suit is not None
        for ra in _scale_ranks(fa):
            for rb in _scale_ranks(fb):
                lo, hi = min(ra, rb), max(ra, rb)
                if hi - lo == 1:
                    ends = [r for r in (lo - 1, hi + 1) if ACE_LOW <= r <= ACE_HIGH]
                    wanted = tuple(scale_face(r, suit) for r in ends)
                    out.append(Partial((a, b), wanted, True))
                elif hi - lo == 2:
                    out.append(Partial((a, b), (scale_face(lo + 1, suit),), False))
    return out


def near_meld_strength(
    hand: Sequence[int], live: Callable[[Face], int] | None = None
) -> dict[int, int]:
    """For each real card of ``hand``: how many cards could complete its best partial (0: loose).

    ``live(face)`` is how many copies of a face may still come (two decks: 2
    by default); a partial whose wanted faces are all dead counts 0.
    """
    count = live or (lambda f: 2)
    strength = {c: 0 for c in hand if not is_joker(c)}
    for partial in partials(hand):
        outs = sum(count(f) for f in partial.wants)
        for c in partial.cards:
            strength[c] = max(strength[c], outs)
    return strength


def card_points(card: int) -> int:
    """R9.4 value of one card in hand."""
    return face_points(face(card))


def feeds(card: int, table: Sequence[Meld], next_opened: bool) -> bool:
    """Would ``card`` on the discard pile help the next player (R3.2 lets them take it to use)?"""
    return is_joker(card) or (next_opened and could_attach(table, card))
