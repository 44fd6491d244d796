"""The exact search before its candidates were cached and its loop tightened: the reference.

Kept word for word so that tests can ask it and the faster search the same
questions and compare the answers; only a change of the rules is made in both
(R3.2: a taken card put in a joker's place is used, so a swap may use it; R8.2
never: a last card that attaches is no closing discard; R5.1: an opening is a new meld laid
before any swap, even where it is worth 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, product

from scala40_net.actions import Attach, NewMeld, Operation, SwapJoker
from scala40_net.cards import Face, Suit, face, is_joker
from scala40_net.deal import DealState, Phase, accepted_discards, may_close_in_first_turn
from scala40_net.errors import RuleViolation
from scala40_net.melds import (
    ACE_HIGH,
    ACE_LOW,
    GROUP_MAX,
    MELD_MIN,
    Meld,
    attach,
    face_points,
    joker_attach_faces,
    make_meld,
    scale_face,
    scale_points,
    split_run,
    swap_joker,
)
from scala40_net.movegen import run_lengths
from scala40_net.rules import DiscardAttachable, DiscardPickup, JokerSwap, Ruleset

FACES = 52
JOKER_PENALTY = 25
# In the opening total a joker counts as the card it stands for: never more than an ace.
JOKER_OPENING_BOUND = 11


def face_index(card: int) -> int:
    """0..51 for a suited card (suit * 13 + rank - 1); -1 for a joker."""
    f = face(card)
    if f.suit is None:
        return -1
    return int(f.suit) * 13 + f.rank - 1


def _face_of_index(i: int) -> Face:
    return Face(i % 13 + 1, Suit(i // 13))


def _scale_index(suit: int, rank: int) -> int:
    """Face index of scale rank ``rank`` (14 is the ace) of suit ``suit``."""
    return suit * 13 + (0 if rank == ACE_HIGH else rank - 1)


_PENALTY = tuple(face_points(_face_of_index(i)) for i in range(FACES))


@dataclass(frozen=True)
class _Step:
    """One attach of a slot's plan: to ``piece`` of the meld, with its cut (R4.6, S5).

    Piece 0 is the table meld itself; every run a cut sends to the end of the
    table is the next piece number, in the order the cuts happen.
    """

    piece: int
    layout: tuple[int, ...]
    joker_as: Face | None
    split: tuple[int, ...]


@dataclass(frozen=True)
class _Candidate:
    """One way to put cards of the hand on the table: a new meld or attaches to meld ``slot``.

    ``layout`` lists the face index of each card in the order the move gives
    them, -1 for the joker; ``joker_as`` is its declaration. An attach gives
    its operations as ``steps``: more than one when a run cut off under R4.6
    takes cards of its own in the same play.
    """

    faces: tuple[int, ...]
    jokers: int
    points: int
    relief: int
    layout: tuple[int, ...]
    joker_as: Face | None
    slot: int = -1
    steps: tuple[_Step, ...] = ()

    @property
    def is_new(self) -> bool:
        return self.slot < 0


@dataclass(frozen=True)
class LayDown:
    """A lay-down found by the search, ready to be followed by a discard.

    ``operations`` are in the order the engine accepts them; ``leftover`` is
    the hand after them (the discard is chosen among these cards, never the
    card taken from the discard pile, R3.3). ``opening_points`` is the R5.1
    total of the new melds; ``relief`` the R9.4 penalty of the cards that left
    the hand (a swapped-in joker that is laid again counts nothing).
    """

    operations: tuple[Operation, ...]
    leftover: tuple[int, ...]
    opening_points: int
    relief: int

    @property
    def is_empty(self) -> bool:
        return not self.operations


def _sequence_candidates(
    counts: Sequence[int], jokers: int, max_run: int | None
) -> list[_Candidate]:
    out: list[_Candidate] = []
    for suit in range(4):
        for lo in range(ACE_LOW, ACE_HIGH - 1):
            # Two missing cards among the first two (one without a joker) end the run at once.
            here = counts[_scale_index(suit, lo)] > 0
            if not here and (not jokers or not counts[_scale_index(suit, lo + 1)]):
                continue
            missing: list[int] = []
            positions: list[int] = []
            for hi in range(lo, ACE_HIGH + 1):
                fi = _scale_index(suit, hi)
                positions.append(fi)
                if counts[fi] == 0 or (hi == ACE_HIGH and lo == ACE_LOW):
                    # The second ace of A..K-A can only be a joker (R4.1).
                    missing.append(len(positions) - 1)
                if len(missing) > 1 or (missing and not jokers):
                    break
                n = len(positions)
                if n < 3 or run_lengths(n, max_run) is None:
                    continue
                points = sum(scale_points(r) for r in range(lo, hi + 1))
                places = missing if missing else [None, *(range(n) if jokers else [])]
                for place in places:
                    layout = tuple(-1 if k == place else fi_ for k, fi_ in enumerate(positions))
                    reals = tuple(sorted(x for x in layout if x >= 0))
                    joker_as = None if place is None else scale_face(lo + place, Suit(suit))
                    has_joker = 0 if place is None else 1
                    relief = sum(_PENALTY[x] for x in reals) + JOKER_PENALTY * has_joker
                    out.append(_Candidate(reals, has_joker, points, relief, layout, joker_as))
    return out


def _group_candidates(counts: Sequence[int], jokers: int) -> list[_Candidate]:
    out: list[_Candidate] = []
    for rank in range(1, 14):
        present = [s for s in range(4) if counts[s * 13 + rank - 1]]
        value = face_points(Face(rank, Suit.HEARTS))
        for size in (2, 3, 4):
            for suits in combinations(present, size):
                reals = tuple(s * 13 + rank - 1 for s in suits)
                relief = sum(_PENALTY[x] for x in reals)
                if size >= 3:
                    out.append(_Candidate(reals, 0, value * size, relief, reals, None))
                if jokers and size <= 3:
                    free = next(s for s in range(4) if s not in suits)
                    out.append(
                        _Candidate(
                            reals,
                            1,
                            value * (size + 1),
                            relief + JOKER_PENALTY,
                            (*reals, -1),
                            Face(rank, Suit(free)),
                        )
                    )
    return out


def _real_aces(meld: Meld) -> int:
    return sum(1 for c in meld.cards if not is_joker(c) and face(c).rank == ACE_LOW)


def _attach_candidates(
    slot: int, meld: Meld, counts: list[int], jokers: int, max_run: int | None
) -> list[_Candidate]:
    """Every set of hand cards that may go onto ``meld`` in this play (R6, R4.6).

    For a sequence that includes attaches to the runs cut off from it in the
    same play: each of them may take cards, and a joker, of its own.
    """
    if meld.is_sequence:
        out: list[_Candidate] = []
        seen: set[tuple[tuple[int, ...], int]] = set()
        for faces, n_jokers, steps, _ in _grow(meld, 0, counts, jokers, max_run, 1):
            reals = tuple(sorted(faces))
            # Only the cards matter to the search: one plan for each set of them is enough.
            if not reals or (reals, n_jokers) in seen:
                continue
            seen.add((reals, n_jokers))
            relief = sum(_PENALTY[x] for x in reals) + JOKER_PENALTY * n_jokers
            out.append(_Candidate(reals, n_jokers, 0, relief, (), None, slot, steps))
        return out
    out = []
    may_joker = bool(jokers) and meld.joker is None
    n_meld = len(meld.cards)
    taken = {f.suit for f in meld.stands_for}
    free = [s for s in range(4) if Suit(s) not in taken]
    have = [s for s in free if counts[s * 13 + meld.low - 1]]
    for size in range(1, GROUP_MAX - n_meld + 1):
        for suits in combinations(have, size):
            reals = tuple(s * 13 + meld.low - 1 for s in suits)
            relief = sum(_PENALTY[x] for x in reals)
            step = _Step(0, reals, None, ())
            out.append(_Candidate(reals, 0, 0, relief, reals, None, slot, (step,)))
            if may_joker and n_meld + size < GROUP_MAX:
                left = next(s for s in free if s not in suits)
                declared = Face(meld.low, Suit(left))
                step = _Step(0, (*reals, -1), declared, ())
                out.append(
                    _Candidate(
                        reals, 1, 0, relief + JOKER_PENALTY, step.layout, declared, slot, (step,)
                    )
                )
    return out


_Extension = tuple[tuple[int, ...], int, tuple[int, ...], Face | None, int]


def _run_extensions(
    meld: Meld, counts: Sequence[int], may_joker: bool, max_run: int | None
) -> list[_Extension]:
    """Every single attach to the sequence ``meld``, a lone joker included.

    Each is (real faces, jokers, layout, joker declaration, new length).
    """
    out: list[_Extension] = []
    suit = int(meld.suit)
    aces = _real_aces(meld)
    n_meld = len(meld.cards)
    for below in range(0, meld.low):
        low_part = [_scale_index(suit, r) for r in range(meld.low - below, meld.low)]
        low_missing = [k for k, fi in enumerate(low_part) if counts[fi] == 0]
        if len(low_missing) > 1 or (low_missing and not may_joker):
            break
        for above in range(0, ACE_HIGH - meld.high + 1):
            if below + above == 0:
                continue
            high_ranks = range(meld.high + 1, meld.high + above + 1)
            part = low_part + [_scale_index(suit, r) for r in high_ranks]
            ranks = [*range(meld.low - below, meld.low), *high_ranks]
            missing = [k for k, fi in enumerate(part) if counts[fi] == 0]
            ace_places = [k for k, r in enumerate(ranks) if r in (ACE_LOW, ACE_HIGH)]
            if len(missing) > 1 or (missing and not may_joker):
                break
            n_new = n_meld + len(part)
            if run_lengths(n_new, max_run) is None:
                continue
            places = missing if missing else [None, *(range(len(part)) if may_joker else [])]
            for place in places:
                real_places = [k for k in range(len(part)) if k != place]
                if aces + sum(1 for k in ace_places if k != place) > 1:
                    continue
                reals_list = [part[k] for k in real_places]
                if len(set(reals_list)) != len(reals_list):
                    continue
                layout = tuple(-1 if k == place else part[k] for k in range(len(part)))
                joker_as = None if place is None else scale_face(ranks[place], Suit(suit))
                has_joker = 0 if place is None else 1
                out.append((tuple(reals_list), has_joker, layout, joker_as, n_new))
    return out


def _cuts(n: int, max_run: int) -> list[tuple[int, ...]]:
    """Every way to cut a sequence of ``n`` cards into runs of 3..``max_run`` (R4.6), low first."""
    if n < MELD_MIN:
        return []
    out: list[tuple[int, ...]] = [(n,)] if n <= max_run else []
    for first in range(MELD_MIN, min(max_run, n - MELD_MIN) + 1):
        out += [(first, *rest) for rest in _cuts(n - first, max_run)]
    return out


_Plan = tuple[tuple[int, ...], int, tuple[_Step, ...], int]


def _grow(
    meld: Meld,
    piece: int,
    counts: list[int],
    jokers: int,
    max_run: int | None,
    next_piece: int,
) -> list[_Plan]:
    """Every non-empty plan of attaches to the sequence ``meld`` (piece ``piece`` of a slot).

    An attach that makes the sequence longer than ``max_run`` cuts it (R4.6);
    each run cut off is a meld of its own that may take cards, and a joker,
    in the same play, so every cut and every plan for each run is followed.
    A plan is (real faces, jokers, steps, next free piece number).
    """
    out: list[_Plan] = []
    may_joker = jokers > 0 and meld.joker is None
    for reals, has_joker, layout, joker_as, n_new in _run_extensions(
        meld, counts, may_joker, max_run
    ):
        if max_run is None or n_new <= max_run:
            out.append((reals, has_joker, (_Step(piece, layout, joker_as, ()),), next_piece))
            continue
        cuts = [c for c in _cuts(n_new, max_run) if len(c) > 1]
        first = _Step(piece, layout, joker_as, cuts[0])
        out.append((reals, has_joker, (first,), next_piece + len(cuts[0]) - 1))
        for x in reals:
            counts[x] -= 1
        grown = attach(meld, _stand_ins(layout, meld), joker_as)
        for cut in cuts:
            pieces = split_run(grown, max_run, cut)
            numbers = [piece, *range(next_piece, next_piece + len(pieces) - 1)]
            step = _Step(piece, layout, joker_as, cut)
            _grow_pieces(
                pieces,
                numbers,
                0,
                (reals, has_joker, (step,), next_piece + len(pieces) - 1),
                counts,
                jokers - has_joker,
                max_run,
                out,
            )
        for x in reals:
            counts[x] += 1
    return out


def _grow_pieces(
    pieces: Sequence[Meld],
    numbers: Sequence[int],
    i: int,
    plan: _Plan,
    counts: list[int],
    jokers: int,
    max_run: int | None,
    out: list[_Plan],
) -> None:
    """Extend ``plan`` with a plan (or none) for each of ``pieces[i:]``; keep those that add one."""
    if i == len(pieces):
        return
    _grow_pieces(pieces, numbers, i + 1, plan, counts, jokers, max_run, out)
    faces, n_jokers, steps, next_piece = plan
    for more, more_jokers, more_steps, after in _grow(
        pieces[i], numbers[i], counts, jokers, max_run, next_piece
    ):
        grown_plan = (faces + more, n_jokers + more_jokers, steps + more_steps, after)
        out.append(grown_plan)
        for x in more:
            counts[x] -= 1
        _grow_pieces(pieces, numbers, i + 1, grown_plan, counts, jokers - more_jokers, max_run, out)
        for x in more:
            counts[x] += 1


_JOKERS = (52, 53, 106, 107)


def _stand_ins(layout: Sequence[int], meld: Meld) -> tuple[int, ...]:
    """Card ids for ``layout`` that ``meld`` does not hold (only faces matter to the search)."""
    used = set(meld.cards)
    out: list[int] = []
    for x in layout:
        options = _JOKERS if x < 0 else (_some_card(x), _some_card(x) + 54)
        card = next(c for c in options if c not in used)
        used.add(card)
        out.append(card)
    return tuple(out)


@dataclass(frozen=True)
class _Swap:
    slot: int
    face: int
    joker: int


class _Search:
    """One depth-first search over a fixed hand, table and set of swaps."""

    def __init__(
        self,
        counts: list[int],
        jokers_in_hand: int,
        swaps: Sequence[_Swap],
        table: Sequence[Meld],
        ruleset: Ruleset,
        *,
        opened: bool,
        by_points: bool,
        taken_face: int | None,
        taken_must_open: bool,
        taken_must_use: bool,
        first_turn: bool,
        keep_discard: bool,
        best_value: int,
        stop_at: int | None = None,
    ) -> None:
        self.counts = counts
        self.own_jokers = jokers_in_hand
        self.swaps = swaps
        self.jokers = jokers_in_hand + len(swaps)
        self.table = table
        self.ruleset = ruleset
        self.opened = opened
        self.by_points = by_points
        self.taken_face = taken_face
        self.taken_must_open = taken_must_open
        self.taken_must_use = taken_must_use
        self.first_turn = first_turn
        self.keep_discard = keep_discard
        self.needed = ruleset.opening_points
        max_run = ruleset.max_run
        candidates = _sequence_candidates(counts, self.jokers, max_run)
        candidates += _group_candidates(counts, self.jokers)
        if table and (opened or not by_points):
            for slot, meld in enumerate(table):
                candidates += _attach_candidates(slot, meld, counts, self.jokers, max_run)
        self.lone_plans = [self._lone_plans(meld) for meld in table]
        self.by_min: list[list[_Candidate]] = [[] for _ in range(FACES)]
        for cand in candidates:
            self.by_min[cand.faces[0]].append(cand)
        # A card no candidate holds can never leave the hand: it adds nothing to the bound.
        usable = {x for cand in candidates for x in cand.faces}
        weight = [w if i in usable else 0 for i, w in enumerate(_PENALTY)]
        self.joker_weight = JOKER_OPENING_BOUND if by_points else JOKER_PENALTY
        self.weight = weight
        self.value = 0
        self.bound = sum(c * w for c, w in zip(counts, weight, strict=True))
        self.bound += self.joker_weight * self.jokers
        self.left = 0
        self.jokers_used = 0
        self.used_slots = 0
        self.chosen: list[_Candidate] = []
        self.taken_left = 0
        self.best_value = best_value
        self.best: tuple[list[_Candidate], int, int] | None = None
        # A yes/no question (``can_open``) ends at the first answer good enough.
        self.stop_at = stop_at
        self.stopped = False

    def run(self) -> None:
        self._dfs(0, 0)

    def _dfs(self, f: int, start: int) -> None:
        if self.stopped:
            return
        counts = self.counts
        while f < FACES and counts[f] == 0:
            f += 1
            start = 0
        if f == FACES:
            self._leaf()
            return
        if self.value + self.bound <= self.best_value:
            return
        options = self.by_min[f]
        weight = self.weight
        for k in range(start, len(options)):
            cand = options[k]
            if cand.jokers > self.jokers - self.jokers_used:
                continue
            if cand.slot >= 0 and self.used_slots >> cand.slot & 1:
                continue
            if any(counts[x] == 0 for x in cand.faces):
                continue
            for x in cand.faces:
                counts[x] -= 1
            gain = cand.points if self.by_points else cand.relief
            spent = sum(weight[x] for x in cand.faces) + self.joker_weight * cand.jokers
            self.value += gain
            self.bound -= spent
            self.jokers_used += cand.jokers
            if cand.slot >= 0:
                self.used_slots |= 1 << cand.slot
            self.chosen.append(cand)
            self._dfs(f, k)
            self.chosen.pop()
            if cand.slot >= 0:
                self.used_slots &= ~(1 << cand.slot)
            self.jokers_used -= cand.jokers
            self.bound += spent
            self.value -= gain
            for x in cand.faces:
                counts[x] += 1
        n = counts[f]
        counts[f] = 0
        self.left += n
        self.bound -= n * weight[f]
        if f == self.taken_face:
            self.taken_left = n
        self._dfs(f + 1, 0)
        if f == self.taken_face:
            self.taken_left = 0
        self.bound += n * weight[f]
        self.left -= n
        counts[f] = n

    def _lone_joker_slots(self) -> list[int]:
        """Table melds not attached to in this plan that could take jokers alone (R6.2).

        A slot is listed once for each joker it can take: more than one when
        a joker cuts its sequence (R4.6) and a run cut off takes another.
        """
        out: list[int] = []
        for slot in range(len(self.table)):
            if not self.used_slots >> slot & 1:
                out += [slot] * len(self.lone_plans[slot])
        return out

    def _lone_plans(self, meld: Meld) -> list[tuple[_Step, ...]]:
        """The steps that lay 1, 2, ... jokers alone on ``meld``, as far as it takes them."""
        max_run = self.ruleset.max_run
        if meld.is_sequence:
            by_count: dict[int, tuple[_Step, ...]] = {}
            for _, n_jokers, steps, _ in _grow(meld, 0, [0] * FACES, self.jokers, max_run, 1):
                by_count.setdefault(n_jokers, steps)
            return [by_count[k] for k in range(1, len(by_count) + 1)]
        # A group is never cut (R4.6 speaks of sequences): only its size limits it.
        if meld.joker is not None:
            return []
        for declared in joker_attach_faces(meld):
            try:
                attach(meld, (_JOKERS[0],), declared)
            except RuleViolation:
                continue
            return [(_Step(0, (-1,), declared, ()),)]
        return []

    def _leaf(self) -> None:
        chosen = self.chosen
        new = [c for c in chosen if c.is_new]
        laid_any = bool(chosen) or bool(self.swaps)
        taken_face = self.taken_face
        # A taken joker: jokers are alike, so any of the hand's own jokers laid is the taken one;
        # but every swapped joker must be laid too (R7.2), so the own ones are those laid beyond.
        taken_joker = taken_face is not None and taken_face < 0
        swapped = len(self.swaps)
        if taken_face is None:
            taken_stays = in_new = False
        elif taken_joker:
            taken_stays = self.jokers_used <= swapped
            in_new = any(c.jokers for c in new)
        else:
            taken_stays = (
                self.taken_left > 0
                and not any(taken_face in c.faces for c in chosen)
                and not any(s.face == taken_face for s in self.swaps)
            )
            in_new = any(taken_face in c.faces for c in new)
        if taken_face is not None:
            if self.taken_must_open and not in_new:
                return
            if self.taken_must_use and taken_stays and not taken_joker:
                return
        if not self.opened and laid_any:
            opening = self._opening_total(new)
            if opening < self.needed:
                return
        elif not self.opened:
            opening = 0
        else:
            opening = sum(c.points for c in new)
        jokers_left = self.jokers - self.jokers_used
        # Every swapped joker must be laid again (R7.2); spare jokers may go to the table alone.
        lone_slots = self._lone_joker_slots() if jokers_left and (self.opened or laid_any) else []
        must_lay = max(0, swapped - self.jokers_used)
        if must_lay > len(lone_slots):
            return
        best_extra: int | None = None
        for extra in range(min(jokers_left, len(lone_slots)), must_lay - 1, -1):
            stays = taken_stays and not (taken_joker and self.jokers_used + extra > swapped)
            if stays and self.taken_must_use:
                continue
            if self._keeps_discard(self.left + jokers_left - extra, jokers_left - extra, stays):
                best_extra = extra
                break
        if best_extra is None:
            return
        value = self.value + (0 if self.by_points else JOKER_PENALTY * best_extra)
        if value > self.best_value:
            self.best_value = value
            self.best = (list(chosen), best_extra, opening)
            self.stopped = self.stop_at is not None and value >= self.stop_at

    def _keeps_discard(self, left: int, jokers_left: int, taken_stays: bool) -> bool:
        if not self.keep_discard:
            return True
        if left == 0:
            return self.ruleset.close_without_discard and not self.first_turn
        discardable = left - (1 if taken_stays else 0)
        if discardable < 1:
            return False
        if left == 1:
            # Going out: never in one's first turn (R9.2), never on a joker (R8.3).
            return not self.first_turn and jokers_left == 0
        return True

    def _opening_total(self, new: list[_Candidate]) -> int:
        """R5.1 total reached before any swap, or -1 when no opening is laid before them
        (an opening is new melds even where it is worth 0: R5.1, R6.1, R7.1)."""
        taken = self.taken_face if self.taken_must_open else None
        if sum(c.jokers for c in new) <= self.own_jokers:
            # Every meld whole, before any swap: the common case, counted without a plan.
            if not new or (taken is not None and not any(_holds(c, taken) for c in new)):
                return -1
            return sum(c.points for c in new)
        plan = opening_first(new, self.own_jokers, taken, self.ruleset.max_run)
        if plan is None or not (plan.first or plan.deferred):
            return -1
        return plan.total


def _holds(cand: _Candidate, taken_face: int) -> bool:
    return cand.jokers > 0 if taken_face < 0 else taken_face in cand.faces


@dataclass(frozen=True)
class _Deferral:
    """A new meld whose joker comes from a swap, laid in two parts (S6, R7.3).

    ``bare`` (no joker, at least 3 cards) is laid with the opening and counts
    ``points`` in it; after the swap ``rest`` (the joker and the cards beyond
    it) is attached to the run of ``bare`` at that end: ``piece`` 0 the first
    run, -1 the last.
    """

    bare: tuple[int, ...]
    bare_split: tuple[int, ...]
    points: int
    rest: tuple[int, ...]
    rest_split: tuple[int, ...]
    piece: int


@lru_cache(maxsize=4096)
def _deferrals(cand: _Candidate, max_run: int | None) -> tuple[_Deferral, ...]:
    """Every way to lay ``cand`` without its joker first and attach the joker after a swap."""
    layout = cand.layout
    p = layout.index(-1)
    n = len(layout)
    if len({x % 13 for x in cand.faces}) == 1:
        # A group: its real cards, if they are three or more, and the joker later.
        if len(cand.faces) < MELD_MIN:
            return ()
        bare = tuple(x for x in layout if x >= 0)
        value = face_points(_face_of_index(bare[0])) * len(bare)
        return (_Deferral(bare, (), value, (-1,), (), 0),)
    k, first_real = next((k, x) for k, x in enumerate(layout) if x >= 0)
    rank = first_real % 13 + 1
    low = (ACE_HIGH if rank == ACE_LOW and k > 0 else rank) - k
    out: list[_Deferral] = []
    for lo, hi, piece in ((0, p, -1), (p + 1, n, 0)):
        bare = layout[lo:hi]
        rest = layout[hi:] if piece < 0 else layout[:lo]
        if len(bare) < MELD_MIN:
            continue
        points = sum(scale_points(low + i) for i in range(lo, hi))
        cuts = [()] if max_run is None or len(bare) <= max_run else _cuts(len(bare), max_run)
        for cut in cuts:
            end = (cut[piece] if cut else len(bare)) + len(rest)
            rest_split = run_lengths(end, max_run)
            if rest_split is not None:
                out.append(_Deferral(bare, cut, points, rest, rest_split, piece))
                break
    return tuple(out)


@dataclass(frozen=True)
class _Opening:
    """New melds in the order S6 asks: ``first`` whole, ``deferred`` bare, then the swaps,
    then the deferred jokers and ``later`` (melds that need a swapped joker)."""

    first: list[_Candidate]
    deferred: list[tuple[_Candidate, _Deferral]]
    later: list[_Candidate]
    total: int


def opening_first(
    new: list[_Candidate], own_jokers: int, taken_face: int | None, max_run: int | None
) -> _Opening | None:
    """Split new melds into those laid before any swap and those after (S6, R7.3).

    Before a swap only jokers already in hand exist, so at most ``own_jokers``
    melds with a joker are laid whole; another may be laid without it (its real
    cards a meld of their own) and take the swapped joker after the swap.
    The choice gives the highest total before the swap that holds the taken
    card; None when no choice holds it.
    """
    plain = [c for c in new if not c.jokers]
    with_joker = [c for c in new if c.jokers]
    base = sum(c.points for c in plain)
    plain_holds = (
        taken_face is not None and taken_face >= 0 and any(taken_face in c.faces for c in plain)
    )
    if len(with_joker) <= own_jokers:
        # Every joker meld whole: the most points, and a taken card anywhere is in the opening.
        if (
            taken_face is not None
            and not plain_holds
            and not any(_holds(c, taken_face) for c in with_joker)
        ):
            return None
        return _Opening(plain + with_joker, [], [], base + sum(c.points for c in with_joker))
    best: _Opening | None = None
    options: list[list[tuple[int, _Deferral | None]]] = []
    for c in with_joker:
        # 1: whole with an own joker; 0 with a deferral: bare now; 0 without: after the swap.
        options.append([(1, None), *((0, d) for d in _deferrals(c, max_run)), (0, None)])
    for choice in product(*options):
        if sum(whole for whole, _ in choice) > own_jokers:
            continue
        first = list(plain)
        deferred: list[tuple[_Candidate, _Deferral]] = []
        later: list[_Candidate] = []
        total = base
        holds = plain_holds
        for c, (whole, d) in zip(with_joker, choice, strict=True):
            if whole:
                first.append(c)
                total += c.points
                holds = holds or (taken_face is not None and _holds(c, taken_face))
            elif d is not None:
                deferred.append((c, d))
                total += d.points
                holds = holds or (taken_face is not None and taken_face in d.bare)
            else:
                later.append(c)
        if taken_face is not None and not holds:
            continue
        if best is None or total > best.total:
            best = _Opening(first, deferred, later, total)
    return best


def _hand_counts(hand: Sequence[int]) -> tuple[list[int], list[int], dict[int, list[int]]]:
    counts = [0] * FACES
    jokers: list[int] = []
    by_face: dict[int, list[int]] = {}
    for card in hand:
        fi = face_index(card)
        if fi < 0:
            jokers.append(card)
        else:
            counts[fi] += 1
            by_face.setdefault(fi, []).append(card)
    return counts, jokers, by_face


def _possible_swaps(
    table: Sequence[Meld], counts: Sequence[int], swappable: frozenset[int] | None
) -> list[_Swap]:
    out: list[_Swap] = []
    for slot, meld in enumerate(table):
        if swappable is not None and slot not in swappable:
            continue  # R7.4 owner: another player's meld keeps its joker.
        joker_as, joker = meld.joker_as, meld.joker
        if joker_as is None or joker is None or joker_as.suit is None:
            continue
        fi = int(joker_as.suit) * 13 + joker_as.rank - 1
        if not counts[fi]:
            continue
        try:
            swap_joker(meld, _some_card(fi))
        except RuleViolation:
            continue  # S4: the joker for a second ace stays.
        out.append(_Swap(slot, fi, joker))
    return out


def _swap_subsets(
    swaps: Sequence[_Swap], counts: Sequence[int], reserved: int | None
) -> list[tuple[_Swap, ...]]:
    out: list[tuple[_Swap, ...]] = []
    for size in range(len(swaps) + 1):
        for subset in combinations(swaps, size):
            need: dict[int, int] = {}
            for s in subset:
                need[s.face] = need.get(s.face, 0) + 1
            if all(counts[fi] - (fi == reserved) >= k for fi, k in need.items()):
                out.append(subset)
    return out


def _search(
    hand: Sequence[int],
    table: Sequence[Meld],
    ruleset: Ruleset,
    *,
    opened: bool,
    by_points: bool,
    taken: int | None,
    first_turn: bool,
    keep_discard: bool = True,
    floor: int = -1,
    stop_at: int | None = None,
    swappable: frozenset[int] | None = None,
) -> LayDown | None:
    """The best lay-down worth more than ``floor`` (or the first worth ``stop_at``), or None.

    ``first_turn`` says the seat may not go out (R9.2); ``swappable`` the table
    melds whose joker it may take (None: every meld, R7.4).
    """
    counts, own_jokers, _ = _hand_counts(hand)
    # R3.2: classic binds every taker to use the card; open_with_it only the unopened.
    classic = ruleset.discard_pickup is DiscardPickup.CLASSIC or (
        ruleset.discard_pickup is DiscardPickup.OPEN_WITH_IT and not opened
    )
    taken_face = None if taken is None else face_index(taken)
    swaps = _possible_swaps(table, counts, swappable) if table and not by_points else []
    # A swap uses the taken card (R3.2), but one that must open cannot wait for a swap (R7.3).
    must_open = classic and not opened
    reserved = taken_face if must_open and taken_face is not None and taken_face >= 0 else None
    best: tuple[_Search, list[_Candidate], int, int] | None = None
    best_value = floor
    for subset in _swap_subsets(swaps, counts, reserved):
        work = list(counts)
        after = list(table)
        for s in subset:
            work[s.face] -= 1
            after[s.slot], _ = swap_joker(after[s.slot], _some_card(s.face))
        # A swap takes its card out of the hand; the joker it frees was never in it.
        offset = 0 if by_points else sum(_PENALTY[s.face] - JOKER_PENALTY for s in subset)
        search = _Search(
            work,
            len(own_jokers),
            subset,
            after,
            ruleset,
            opened=opened,
            by_points=by_points,
            taken_face=taken_face,
            taken_must_open=classic and taken is not None and not opened,
            taken_must_use=classic and taken is not None,
            first_turn=first_turn,
            keep_discard=keep_discard,
            best_value=best_value - offset,
            stop_at=None if stop_at is None else stop_at - offset,
        )
        search.run()
        if search.best is not None and search.best_value + offset > best_value:
            best_value = search.best_value + offset
            chosen, extra, opening = search.best
            best = (search, chosen, extra, opening)
            if search.stopped:
                break
    if best is None:
        return None
    search, chosen, extra, opening = best
    return _build(hand, search, chosen, extra, opening, taken, opened, best_value)


def _some_card(fi: int) -> int:
    """A card id of face index ``fi`` (copies are alike wherever only the face matters)."""
    return (fi // 13) * 13 + fi % 13


def _build(
    hand: Sequence[int],
    search: _Search,
    chosen: list[_Candidate],
    extra: int,
    opening: int,
    taken: int | None,
    opened: bool,
    value: int,
) -> LayDown:
    """Turn the search's choice into engine operations on real card ids, in an accepted order."""
    pool: dict[int, list[int]] = {}
    for card in hand:
        fi = face_index(card)
        if fi >= 0:
            pool.setdefault(fi, []).append(card)
    if taken is not None and face_index(taken) >= 0:
        # The taken card goes into the melds before any copy of its face (R3.2, R3.3).
        copies = pool[face_index(taken)]
        copies.remove(taken)
        swapped_only = not any(face_index(taken) in c.faces for c in chosen) and any(
            s.face == face_index(taken) for s in search.swaps
        )
        if swapped_only:
            copies.append(taken)  # the swap takes it (R3.2)
        else:
            copies.insert(0, taken)
    own_jokers = sorted((c for c in hand if is_joker(c)), key=lambda c: c != taken)
    swapped_jokers = [s.joker for s in search.swaps]
    swap_ops: list[Operation] = []
    for s in search.swaps:
        swap_ops.append(SwapJoker(s.slot, pool[s.face].pop()))

    new = [c for c in chosen if c.is_new]
    attaches = [c for c in chosen if not c.is_new]
    plan = _Opening([], [], new, 0)
    if not opened and search.swaps:
        # Opening melds come first and may only use jokers already in hand (S6, R7.3). The
        # taken card must be among them only where R3.2 binds it to the opening, exactly as
        # the search counted it (``_Search._opening_total``): under ``free`` it need not be.
        taken_face = search.taken_face if search.taken_must_open else None
        found = opening_first(new, len(own_jokers), taken_face, search.ruleset.max_run)
        assert found is not None, "the search counted an opening that cannot be laid"
        plan = found
    elif not opened:
        plan = _Opening(new, [], [], opening)

    def cards_of(layout: Sequence[int], jokers: list[int]) -> tuple[int, ...]:
        return tuple(jokers.pop(0) if x < 0 else pool[x].pop(0) for x in layout)

    max_run = search.ruleset.max_run
    # Where each meld lies: a run cut off goes to the end of the table (S5).
    table_size = len(search.table)
    ops: list[Operation] = []

    def lay(cand: _Candidate, jokers: list[int]) -> None:
        nonlocal table_size
        cards = cards_of(cand.layout, jokers)
        meld = make_meld(cards, cand.joker_as)
        lengths = run_lengths(len(cards), max_run) if meld.is_sequence else ()
        assert lengths is not None
        ops.append(NewMeld(cards, cand.joker_as, lengths))
        table_size += len(split_run(meld, max_run, lengths))

    def attach_steps(slot: int, steps: Sequence[_Step], jokers: list[int]) -> None:
        nonlocal table_size
        where = [slot]
        for step in steps:
            cards = cards_of(step.layout, jokers)
            ops.append(Attach(where[step.piece], cards, step.joker_as, step.split))
            cut_off = max(1, len(step.split)) - 1
            where += range(table_size, table_size + cut_off)
            table_size += cut_off

    opening_jokers = list(own_jokers)
    for cand in plan.first:
        lay(cand, opening_jokers)
    ends: list[int] = []
    for _, deferral in plan.deferred:
        cards = cards_of(deferral.bare, [])
        ops.append(NewMeld(cards, None, deferral.bare_split))
        runs = len(split_run(make_meld(cards), max_run, deferral.bare_split))
        ends.append(table_size + (0 if deferral.piece == 0 else runs - 1))
        table_size += runs
    ops += swap_ops
    rest_jokers = swapped_jokers + opening_jokers
    for (cand, deferral), end in zip(plan.deferred, ends, strict=True):
        attach_steps(
            end, (_Step(0, deferral.rest, cand.joker_as, deferral.rest_split),), rest_jokers
        )
    for cand in plan.later:
        lay(cand, rest_jokers)
    for cand in attaches:
        attach_steps(cand.slot, cand.steps, rest_jokers)
    used_slots = {c.slot for c in attaches}
    free_slots = [s for s in search._lone_joker_slots() if s not in used_slots][:extra]
    for slot in dict.fromkeys(free_slots):
        attach_steps(slot, search.lone_plans[slot][free_slots.count(slot) - 1], rest_jokers)
    kept = {c for cards in pool.values() for c in cards} | set(rest_jokers)
    leftover = tuple(c for c in hand if c in kept)
    relief = (
        value
        if not search.by_points
        else sum(face_points(face(c)) for c in hand) - sum(face_points(face(c)) for c in leftover)
    )
    return LayDown(tuple(ops), leftover, opening, relief)


def best_opening(
    hand: Sequence[int],
    ruleset: Ruleset | None = None,
    *,
    taken: int | None = None,
    first_turn: bool = False,
    keep_discard: bool = True,
    enough: int | None = None,
) -> LayDown | None:
    """The new melds with the highest R5.1 total that reach ``opening_points``, or None.

    ``taken`` is a card just taken from the discard pile: under the classic
    R3.2 it must be inside the opening. With ``keep_discard`` (a hand after its
    draw) at least one card stays for a legal discard: not the taken card, not
    a lone joker, and no going out in ``first_turn`` (R3.3, R8.3, R9.2).
    With ``enough``, the search ends at the first opening worth that much:
    for a caller that only asks whether a total is reached.

    >>> from scala40_net.scenario import CardPool
    >>> pool = CardPool()
    >>> found = best_opening(pool.cards("9H 9D 9C 10S JS QS 4C"))
    >>> found.opening_points, len(found.operations)
    (57, 2)
    """
    rules = ruleset or Ruleset()
    found = _search(
        hand,
        (),
        rules,
        opened=False,
        by_points=True,
        taken=taken,
        first_turn=first_turn,
        keep_discard=keep_discard,
        # Nothing below the opening total is an answer: those branches are cut from the start.
        floor=rules.opening_points - 1 if rules.opening_points > 0 else -1,
        stop_at=enough,
    )
    if found is None or found.is_empty:
        return None
    return found


def can_open(
    hand: Sequence[int], ruleset: Ruleset | None = None, *, first_turn: bool = False
) -> bool:
    """Does ``hand`` (after its draw) hold an opening (R5.1) that keeps a legal discard?

    The same exact search as ``best_opening``, but every branch that cannot
    reach ``opening_points`` is cut from the start and the first opening found
    ends it: the question asked many times over when a bot weighs its draws.
    """
    rules = ruleset or Ruleset()
    counts, own_jokers, _ = _hand_counts(hand)
    search = _Search(
        counts,
        len(own_jokers),
        (),
        (),
        rules,
        opened=False,
        by_points=True,
        taken_face=None,
        taken_must_open=False,
        taken_must_use=False,
        first_turn=first_turn,
        keep_discard=True,
        best_value=rules.opening_points - 1,
        stop_at=rules.opening_points,
    )
    search.run()
    return search.best is not None


def best_lay_down(
    hand: Sequence[int],
    table: Sequence[Meld],
    ruleset: Ruleset,
    *,
    opened: bool,
    taken: int | None = None,
    first_turn: bool = False,
) -> LayDown | None:
    """``best_play`` for a hand and a table given apart from a deal (what-if questions)."""
    return _search(
        hand, table, ruleset, opened=opened, by_points=False, taken=taken, first_turn=first_turn
    )


def best_play(state: DealState, seat: int | None = None) -> LayDown | None:
    """The lay-down that takes the most penalty points out of ``seat``'s hand this turn.

    For a seat that has not opened, an opening (R5) followed by whatever it
    then allows, or nothing; for an opened seat, new melds, attaches and joker
    swaps. The seat must be in the play step of its turn. None when no play
    meets R3.2 with the card taken from the discard pile (it must go back).
    """
    seat = state.turn if seat is None else seat
    if state.phase is not Phase.PLAY or state.turn != seat:
        raise ValueError("best_play needs the seat to move, after its draw")
    i = state.index(seat)
    rules = state.ruleset
    swappable = None
    if rules.joker_swap is JokerSwap.OWNER:
        own = (seat, state.partner(seat))
        swappable = frozenset(k for k, owner in enumerate(state.owners) if owner in own)

    def search(first_turn: bool) -> LayDown | None:
        return _search(
            state.hands[i],
            state.table,
            rules,
            opened=state.opened[i],
            by_points=False,
            taken=state.taken_discard,
            first_turn=first_turn,
            swappable=swappable,
        )

    found = search(state.turns_played[i] == 0 and not may_close_in_first_turn(state))
    if (
        found is not None
        and len(found.leftover) == 1
        and rules.discard_attachable is DiscardAttachable.NEVER
        and not accepted_discards(state, found.operations, found.leftover)
    ):
        # R8.2 never: the last card may not be discarded if it attaches: no going out.
        found = search(True)
    return found
