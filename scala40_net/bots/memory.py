"""What the hard bot remembers of a deal: the cards each seat took from the pile or threw."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from scala40_net.actions import DrawSource
from scala40_net.cards import Face, face
from scala40_net.deal import DealState
from scala40_net.events import (
    CardDrawn,
    CardsAttached,
    DealStarted,
    DiscardReturned,
    Event,
    JokerSwapped,
    MeldLaid,
    Played,
)


@dataclass
class CardMemory:
    """Public facts of the current deal, from the events one seat sees."""

    taken: dict[int, list[Face]] = field(default_factory=dict)
    discarded: dict[int, list[Face]] = field(default_factory=dict)
    # Card ids a seat took from the pile and has not yet laid, thrown or put back:
    # they are in that seat's hand, so never in the stock.
    held: dict[int, set[int]] = field(default_factory=dict)

    def observe(self, event: Event) -> None:
        if isinstance(event, DealStarted):
            self.taken.clear()
            self.discarded.clear()
            self.held.clear()
        elif isinstance(event, CardDrawn) and event.source is DrawSource.DISCARD:
            if event.card is not None:
                self.taken.setdefault(event.seat, []).append(face(event.card))
                self.held.setdefault(event.seat, set()).add(event.card)
        elif isinstance(event, DiscardReturned):
            self.held.get(event.seat, set()).discard(event.card)
        elif isinstance(event, Played):
            gone = self.held.get(event.seat, set())
            for op in event.operations:
                if isinstance(op, MeldLaid | CardsAttached):
                    gone.difference_update(op.cards)
                elif isinstance(op, JokerSwapped):
                    gone.discard(op.card)
            if event.discard is not None:
                gone.discard(event.discard)
                self.discarded.setdefault(event.seat, []).append(face(event.discard))

    def held_by_others(self, seat: int) -> set[int]:
        """Cards known to be in another seat's hand (taken from the pile, not yet played)."""
        return {c for s, cards in self.held.items() if s != seat for c in cards}

    def wanted_by(self, seat: int, card: int) -> bool:
        """Is ``card`` close to what ``seat`` took from the pile (same rank, or suit within 2)?

        A player who took a card built a meld around it and may extend it.
        """
        f = face(card)
        if f.is_joker:
            return True
        for t in self.taken.get(seat, ()):
            if t.rank == f.rank or (t.suit == f.suit and abs(t.rank - f.rank) <= 2):
                return True
        return False

    def passed_on(self, seat: int, card: int) -> bool:
        """Did ``seat`` itself throw a card of this rank (so it is unlikely to want it)?"""
        rank = face(card).rank
        return any(f.rank == rank and not f.is_joker for f in self.discarded.get(seat, ()))


def visible_faces(state: DealState, hand: Iterable[int]) -> Counter[Face]:
    """Faces a seat can count: its own hand, every meld on the table, the discard pile."""
    seen: Counter[Face] = Counter(face(c) for c in hand)
    seen.update(face(c) for meld in state.table for c in meld.cards)
    seen.update(face(c) for c in state.discard_pile)
    return seen
