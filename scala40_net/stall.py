"""R10.2's stall, exactly: no card off the table can join a meld on it, nor make a new one.

The host knows every card, so the question "could any card still be laid?"
has an exact answer. It is asked after every play that lays, attaches or swaps
(only those change what the answer looks at) and when the stock has run out,
about every card off the table at once: hands, stock and pile,
whoever holds them, as `000_…` words it ("giochi che non è più possibile
allungare ed entrambi i giocatori non hanno la possibilità di formare un nuovo
gioco"). A card that could take a joker's place on the table (R7.1) still
counts as a card that can be laid, so such a deal is never called stalled.
"""

from __future__ import annotations

from collections.abc import Iterable

from scala40_net.cards import Face, Suit, face, is_joker
from scala40_net.melds import ACE_HIGH, ACE_LOW, GROUP_MAX, LONGEST_SEQUENCE, MELD_MIN, Meld


def run_fits(length: int, max_run: int | None) -> bool:
    """Can a sequence of ``length`` cards lie on the table, cut into runs of 3..max_run (R4.6)?"""
    if length > LONGEST_SEQUENCE:
        return False
    if max_run is None or length <= max_run:
        return True
    return any(MELD_MIN * k <= length <= max_run * k for k in range(2, length // MELD_MIN + 1))


def _scale_ranks(rank: int) -> tuple[int, ...]:
    return (ACE_LOW, ACE_HIGH) if rank == ACE_LOW else (rank,)


class OffTable:
    """The faces off the table, by suit on the scale 1..14 (an ace is at both ends)."""

    def __init__(self, cards: Iterable[int]) -> None:
        self.jokers = 0
        self.faces: set[Face] = set()
        self.scale: dict[Suit, set[int]] = {s: set() for s in Suit}
        for card in cards:
            if is_joker(card):
                self.jokers += 1
                continue
            f = face(card)
            assert f.suit is not None
            self.faces.add(f)
            self.scale[f.suit].update(_scale_ranks(f.rank))

    def new_meld(self) -> bool:
        """Could some of these cards make a meld of their own (R4)?"""
        joker = self.jokers > 0
        for rank in range(ACE_LOW, ACE_HIGH):
            suits = sum(Face(rank, s) in self.faces for s in Suit)
            if suits >= MELD_MIN or (joker and suits == MELD_MIN - 1):
                return True
        for ranks in self.scale.values():
            for r in ranks:
                if r + 1 in ranks and (r + 2 in ranks or joker):
                    return True
                if joker and r + 2 in ranks:
                    return True
        return False

    def joins(self, meld: Meld, max_run: int | None) -> bool:
        """Could one or more of these cards be attached to ``meld``, or take its joker's place?"""
        joker_free = meld.joker is None and self.jokers > 0
        if meld.joker_as is not None and meld.joker_as in self.faces:
            return True
        if not meld.is_sequence:
            if len(meld.cards) >= GROUP_MAX:
                return False
            taken = {f.suit for f in meld.stands_for}
            missing = [Face(meld.low, s) for s in Suit if s not in taken]
            return joker_free or any(f in self.faces for f in missing)
        return self._extends(meld, max_run, joker_free)

    def _extends(self, meld: Meld, max_run: int | None, joker_free: bool) -> bool:
        have = self.scale[meld.suit]
        aces_in_meld = sum(
            1
            for c, f in zip(meld.cards, meld.stands_for, strict=True)
            if not is_joker(c) and f.rank == ACE_LOW
        )
        below = range(meld.low - 1, ACE_LOW - 1, -1)
        above = range(meld.high + 1, ACE_HIGH + 1)
        for x in range(len(below) + 1):
            for y in range(len(above) + 1):
                if x + y == 0 or not run_fits(len(meld.cards) + x + y, max_run):
                    continue
                added = [*below[:x], *above[:y]]
                gaps = [r for r in added if r not in have]
                if len(gaps) > (1 if joker_free else 0):
                    continue
                aces = [r for r in added if r in (ACE_LOW, ACE_HIGH) and r not in gaps]
                # R4.1: one real ace per sequence; a free joker may stand for the other.
                spare = 1 if joker_free and not gaps else 0
                if aces_in_meld + len(aces) - spare <= 1:
                    return True
        return False


def is_stalled(table: Iterable[Meld], off_table: Iterable[int], max_run: int | None) -> bool:
    """R10.2: True when no card of ``off_table`` can be attached to a meld of ``table``
    (or take a joker's place in one) and no new meld can be made from those cards."""
    cards = OffTable(off_table)
    if cards.new_meld():
        return False
    return not any(cards.joins(meld, max_run) for meld in table)
