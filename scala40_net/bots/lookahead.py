"""One draw ahead for the hard bot: what each discard leaves the hand for its next turn.

Every face the next draw may bring is tried, weighted by how many of its
copies are unknown to the seat (``unknown``), so the answer is exact for
one draw, with no sampling: before opening, how many unknown cards would let
the kept hand open (R5.1); once opened, how many would let it go out and
how many cards it would keep on average. Faces that cannot join the hand or
the table (nor free a joker there) are never searched: they only stay in hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from scala40_net.bots.unknown import by_face
from scala40_net.cards import face, is_joker
from scala40_net.deal import could_attach
from scala40_net.melds import ACE_HIGH, ACE_LOW, Meld
from scala40_net.rules import Ruleset
from scala40_net.search import best_lay_down, best_opening, can_open


def _scale(rank: int) -> tuple[int, ...]:
    return (ACE_LOW, ACE_HIGH) if rank == ACE_LOW else (rank,)


def joins(card: int, hand: Sequence[int]) -> bool:
    """Could ``card`` be in one meld with some card of ``hand`` (same rank, or suit within 2)?"""
    if is_joker(card):
        return bool(hand)
    f = face(card)
    for other in hand:
        if is_joker(other):
            return True
        g = face(other)
        if g.rank == f.rank and g.suit != f.suit:
            return True
        if g.suit == f.suit and any(
            0 < abs(a - b) <= 2 for a in _scale(f.rank) for b in _scale(g.rank)
        ):
            return True
    return False


class Outlook:
    """The next draw, face by face, over the cards the seat cannot place."""

    def __init__(self, unknown: Sequence[int], ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        # One card id stands for its face; the weight is how many copies may come.
        self.draws = [(ids[0], len(ids)) for ids in by_face(unknown).values()]
        self.total = len(unknown)

    def opening_outs(self, hand: Sequence[int], discards: Sequence[int]) -> dict[int, int]:
        """For each discard of ``hand``: how many unknown cards would open the hand kept.

        Each face is searched once with ``hand`` whole: a draw that cannot open
        it opens no part of it, and an opening that leaves the discard and one
        more card in hand is still there without the discard. Only the other
        pairs are searched again.
        """
        rules = self.ruleset
        out = dict.fromkeys(discards, 0)
        for card, n in self.draws:
            if not joins(card, hand):
                continue
            whole = best_opening([*hand, card], rules, enough=rules.opening_points)
            if whole is None:
                continue
            for discard in discards:
                if (discard in whole.leftover and len(whole.leftover) >= 2) or can_open(
                    [*_without(hand, discard), card], rules
                ):
                    out[discard] += n
        return out

    def closing(
        self, hand: Sequence[int], discards: Sequence[int], table: Sequence[Meld]
    ) -> dict[int, tuple[int, int]]:
        """For an opened hand: per discard, the unknown cards that let it go out next
        turn, and minus the cards it would keep summed over every unknown card.

        As for the opening, each face is searched once with ``hand`` whole; the
        best lay-down of the kept hand is the same one whenever it leaves the
        discard and another card in hand.
        """
        rules = self.ruleset
        keep = len(hand)  # cards after the discard and the next draw
        outs = dict.fromkeys(discards, 0)
        # A draw that joins nothing stays in hand with every kept card.
        left_total = dict.fromkeys(discards, keep * self.total)
        # The card a joker on the table stands for frees that joker (R7.1).
        swappable = {m.joker_as for m in table if m.joker is not None}
        for card, n in self.draws:
            if not (joins(card, hand) or could_attach(table, card) or face(card) in swappable):
                continue
            whole = best_lay_down([*hand, card], table, rules, opened=True)
            for discard in discards:
                if whole is not None and discard in whole.leftover and len(whole.leftover) >= 2:
                    left = len(whole.leftover) - 1
                else:
                    rest = [*_without(hand, discard), card]
                    kept = best_lay_down(rest, table, rules, opened=True)
                    left = keep if kept is None else len(kept.leftover)
                outs[discard] += n if left <= 1 else 0
                left_total[discard] -= n * (keep - left)
        return {d: (outs[d], -left_total[d]) for d in discards}


def _without(hand: Sequence[int], card: int) -> list[int]:
    kept = list(hand)
    kept.remove(card)
    return kept
