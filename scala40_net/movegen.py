"""A simple greedy move generator: melds in a hand, attaches, joker swaps, a legal play.

Good enough to play legal, lively games (simulations, the easiest bot); it
does not search for the best play. Every play it proposes is checked by the
engine itself before it is returned, so it never decides legality alone.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from itertools import pairwise

from scala40_net.actions import Attach, Draw, DrawSource, NewMeld, Operation, Play, SwapJoker
from scala40_net.cards import Face, Suit, face, is_joker
from scala40_net.deal import DealState, Phase, apply, could_attach
from scala40_net.errors import RuleViolation
from scala40_net.melds import (
    ACE_HIGH,
    ACE_LOW,
    Meld,
    attach,
    can_attach,
    face_points,
    joker_attach_faces,
    make_meld,
    scale_face,
    split_run,
    swap_joker,
)
from scala40_net.rules import DiscardPickup


def run_lengths(n: int, max_run: int | None) -> tuple[int, ...] | None:
    """How to cut a sequence of ``n`` under R4.6: () for no cut needed, None if impossible."""
    if max_run is None or n <= max_run or n == 6:
        return ()
    pieces = -(-n // max_run)
    base, extra = divmod(n, pieces)
    lengths = (base + 1,) * extra + (base,) * (pieces - extra)
    return lengths if min(lengths) >= 3 else None


def _sequences_of_suit(by_rank: dict[int, int], jokers: Sequence[int]) -> list[NewMeld]:
    out: list[NewMeld] = []
    for ace_rank in (ACE_LOW, ACE_HIGH):
        scale = {(ace_rank if r == ACE_LOW else r): c for r, c in by_rank.items()}
        runs: list[list[int]] = []
        for r in range(ACE_LOW, ACE_HIGH + 1):
            if r in scale:
                if runs and runs[-1][-1] == r - 1:
                    runs[-1].append(r)
                else:
                    runs.append([r])
        for run in runs:
            if len(run) >= 3:
                out.append(NewMeld(tuple(scale[r] for r in run)))
        if not jokers:
            continue
        joker = jokers[0]
        suit = face(next(iter(by_rank.values()))).suit
        assert suit is not None
        for a, b in pairwise(runs):
            if b[0] - a[-1] == 2:
                gap = a[-1] + 1
                cards = (*(scale[r] for r in a), joker, *(scale[r] for r in b))
                out.append(NewMeld(cards, scale_face(gap, suit)))
        for run in runs:
            if len(run) >= 2 and run[-1] < ACE_HIGH:
                cards = (*(scale[r] for r in run), joker)
                out.append(NewMeld(cards, scale_face(run[-1] + 1, suit)))
            elif len(run) >= 2 and run[0] > ACE_LOW:
                cards = (joker, *(scale[r] for r in run))
                out.append(NewMeld(cards, scale_face(run[0] - 1, suit)))
    return out


def candidate_melds(hand: Sequence[int]) -> list[NewMeld]:
    """Melds that can be made from ``hand`` (maximal runs, full groups, one-joker variants)."""
    jokers = [c for c in hand if is_joker(c)]
    by_rank_suit: dict[tuple[int, Suit], int] = {}
    for c in hand:
        f = face(c)
        if f.suit is not None:
            by_rank_suit.setdefault((f.rank, f.suit), c)
    out: list[NewMeld] = []
    for rank in range(1, 14):
        present = [(s, by_rank_suit[(rank, s)]) for s in Suit if (rank, s) in by_rank_suit]
        cards = tuple(c for _, c in present)
        if len(cards) >= 3:
            out.append(NewMeld(cards))
        if jokers and 2 <= len(cards) <= 3:
            missing = next(s for s in Suit if (rank, s) not in by_rank_suit)
            out.append(NewMeld((*cards, jokers[0]), Face(rank, missing)))
    per_suit: dict[Suit, dict[int, int]] = defaultdict(dict)
    for (rank, s), c in by_rank_suit.items():
        per_suit[s][rank] = c
    for ranks in per_suit.values():
        out += _sequences_of_suit(ranks, jokers)
    return out


def _points(meld: NewMeld) -> int:
    return make_meld(meld.cards, meld.joker_as).points


def greedy_melds(hand: Sequence[int], must_hold: int | None = None) -> list[NewMeld]:
    """Non-overlapping melds from ``hand``, biggest first (those holding ``must_hold`` first)."""
    candidates = candidate_melds(hand)
    candidates.sort(key=lambda m: (must_hold not in m.cards, -_points(m), len(m.cards)))
    used: set[int] = set()
    chosen: list[NewMeld] = []
    for meld in candidates:
        if used.isdisjoint(meld.cards):
            chosen.append(meld)
            used.update(meld.cards)
    return chosen


class _Planner:
    """Builds operations while keeping its own copy of the table in step with the engine's."""

    def __init__(self, state: DealState, seat: int) -> None:
        self.max_run = state.ruleset.max_run
        self.table: list[Meld] = list(state.table)
        self.hand: list[int] = list(state.hand(seat))
        self.ops: list[Operation] = []

    def _place(self, index: int | None, meld: Meld) -> bool:
        lengths = run_lengths(len(meld.cards), self.max_run)
        if lengths is None:
            return False
        pieces = split_run(meld, self.max_run, lengths)
        if index is None:
            self.table.extend(pieces)
        else:
            self.table[index] = pieces[0]
            self.table.extend(pieces[1:])
        return True

    def new_meld(self, op: NewMeld) -> bool:
        meld = make_meld(op.cards, op.joker_as)
        lengths = run_lengths(len(meld.cards), self.max_run)
        if lengths is None or not self._place(None, meld):
            return False
        self.ops.append(NewMeld(op.cards, op.joker_as, lengths))
        for c in op.cards:
            self.hand.remove(c)
        return True

    def attach_card(self, card: int) -> bool:
        for i, meld in enumerate(self.table):
            if is_joker(card):
                faces = joker_attach_faces(meld)
                if not faces:
                    continue
                grown = attach(meld, (card,), faces[-1])
                joker_as: Face | None = faces[-1]
            elif can_attach(meld, card):
                grown = attach(meld, (card,))
                joker_as = None
            else:
                continue
            lengths = run_lengths(len(grown.cards), self.max_run)
            if lengths is None:
                continue
            self._place(i, grown)
            self.ops.append(Attach(i, (card,), joker_as, lengths))
            self.hand.remove(card)
            return True
        return False

    def swap_jokers(self) -> None:
        for i, meld in enumerate(list(self.table)):
            wanted = meld.joker_as
            card = next((c for c in self.hand if wanted is not None and face(c) == wanted), None)
            if card is None:
                continue
            try:
                swapped, joker = swap_joker(meld, card)
            except RuleViolation:
                continue
            saved = (list(self.table), list(self.hand), list(self.ops))
            self.table[i] = swapped
            self.hand.remove(card)
            self.hand.append(joker)
            self.ops.append(SwapJoker(i, card))
            if not self.attach_card(joker):
                self.table, self.hand, self.ops = saved


def _discard_order(hand: Sequence[int], table: Sequence[Meld]) -> list[int]:
    # Keep jokers; get rid of high cards that attach nowhere first.
    return sorted(hand, key=lambda c: (is_joker(c), could_attach(table, c), -face_points(face(c))))


def candidate_plays(state: DealState, seat: int) -> Iterator[Play]:
    """Plays to try, most ambitious first (melds, swaps, attaches), down to a bare discard."""
    opened = state.has_opened(seat)
    melds = greedy_melds(state.hand(seat), state.taken_discard)
    for level in (3, 2, 1, 0):
        planner = _Planner(state, seat)
        laid_points = 0
        if level >= 1:
            for meld in melds:
                if len(planner.hand) - len(meld.cards) >= 1 and planner.new_meld(meld):
                    laid_points += _points(meld)
        if level >= 1 and not (opened or laid_points >= state.ruleset.opening_points):
            continue
        if level >= 3:
            planner.swap_jokers()
        if level >= 2:
            for card in sorted(planner.hand, key=is_joker):
                if len(planner.hand) > 1 and card in planner.hand:
                    planner.attach_card(card)
        if state.ruleset.close_without_discard and not planner.hand:
            yield Play(tuple(planner.ops), None)
        for discard in _discard_order(planner.hand, planner.table):
            yield Play(tuple(planner.ops), discard)


def operation_cards(op: Operation) -> tuple[int, ...]:
    """The cards of the hand an operation puts on the table."""
    return (op.card,) if isinstance(op, SwapJoker) else op.cards


def first_legal_play(state: DealState, seat: int, limit: int = 60) -> Play | None:
    """The first candidate play the engine accepts, or None (then put the discard back)."""
    for k, play in enumerate(candidate_plays(state, seat)):
        if k >= limit:
            break
        try:
            apply(state, seat, play)
        except RuleViolation:
            continue
        return play
    return None


def wants_discard(state: DealState, seat: int) -> Play | None:
    """If taking the top discard leads to a legal play that uses it, that play; else None."""
    if state.phase is not Phase.DRAW or not state.discard_pile or state.discard_barred:
        return None
    after, _ = apply(state, seat, Draw(DrawSource.DISCARD))
    play = first_legal_play(after, seat)
    if play is None:
        return None
    if state.ruleset.discard_pickup is DiscardPickup.FREE or (
        state.ruleset.discard_pickup is DiscardPickup.OPEN_WITH_IT and state.has_opened(seat)
    ):
        taken = after.taken_discard
        used = any(
            taken in getattr(op, "cards", (getattr(op, "card", None),)) for op in play.operations
        )
        if not used:
            return None
    return play
