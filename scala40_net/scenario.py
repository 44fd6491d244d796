"""Positions written as text (hands, table, discard pile) for tests, examples and bot puzzles.

Cards are written as faces (``7H``, ``JK``); each face takes the lowest card id
of that face still unused, so every card of the deck is still somewhere: the
cards not named make the stock. ``JK=8H`` writes a joker declared as 8H.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from scala40_net.cards import Face, face, parse_face
from scala40_net.deal import DealState, Phase, deal_order
from scala40_net.melds import Meld, make_meld
from scala40_net.rules import HAND_SIZE, Ruleset


@dataclass
class CardPool:
    """Card ids of one game, handed out by face, each at most once."""

    decks: int = 2
    used: set[int] = field(default_factory=set)

    def take(self, f: Face) -> int:
        for card in range(54 * self.decks):
            if card not in self.used and face(card) == f:
                self.used.add(card)
                return card
        raise ValueError(f"no {f} left in {self.decks} deck(s)")

    def cards(self, text: str) -> tuple[int, ...]:
        return tuple(self.take(parse_face(word.split("=")[0])) for word in text.split())

    def meld(self, text: str) -> Meld:
        """A meld from text such as ``7H JK=8H 9H`` (the joker's declaration after ``=``)."""
        joker_as = next((parse_face(w.split("=")[1]) for w in text.split() if "=" in w), None)
        return make_meld(self.cards(text), joker_as)

    def rest(self) -> tuple[int, ...]:
        return tuple(c for c in range(54 * self.decks) if c not in self.used)


def stacked_deck(
    ruleset: Ruleset,
    seats: Sequence[int],
    dealer: int,
    hands: Mapping[int, str],
    first_discard: str,
    stock_top: str = "",
) -> list[int]:
    """A deck that ``start_deal`` deals into exactly these hands (R2.3); unnamed cards fill up."""
    pool = CardPool(ruleset.decks)
    order = deal_order(seats, dealer)
    named = {s: list(pool.cards(hands.get(s, ""))) for s in order}
    discard = pool.cards(first_discard)
    top = list(pool.cards(stock_top))
    filler = [c for c in pool.rest() if c not in top]
    for s in order:
        while len(named[s]) < HAND_SIZE:
            named[s].append(filler.pop(0))
    deck = [named[order[k % len(order)]][k // len(order)] for k in range(HAND_SIZE * len(order))]
    return deck + list(discard) + top + filler


def position(
    ruleset: Ruleset | None = None,
    hands: Mapping[int, str] | None = None,
    table: Sequence[str] = (),
    owners: Sequence[int] = (),
    opened: Iterable[int] = (),
    discard_pile: str = "5C",
    stock_top: str = "",
    turn: int | None = None,
    dealer: int | None = None,
    turns_played: int = 1,
    phase: Phase = Phase.DRAW,
) -> DealState:
    """A deal in mid-play: every card of the deck is in a hand, on the table, pile or stock."""
    rules = ruleset or Ruleset()
    hands = hands or {0: "", 1: ""}
    seats = tuple(sorted(hands))
    pool = CardPool(rules.decks)
    hand_cards = tuple(pool.cards(hands[s]) for s in seats)
    melds = tuple(pool.meld(text) for text in table)
    pile = pool.cards(discard_pile)
    top = pool.cards(stock_top)
    stock = top + pool.rest()
    dealer = seats[-1] if dealer is None else dealer
    return DealState(
        ruleset=rules,
        seats=seats,
        dealer=dealer,
        hands=hand_cards,
        opened=tuple(s in set(opened) for s in seats),
        turns_played=(turns_played,) * len(seats),
        table=melds,
        owners=tuple(owners) if owners else (seats[0],) * len(melds),
        stock=stock,
        discard_pile=pile,
        turn=deal_order(seats, dealer)[0] if turn is None else turn,
        phase=phase,
    )
