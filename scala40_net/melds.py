"""Melds (R4): sequences and groups, joker declarations, points, attaching (R6), joker swaps (R7).

Ranks inside a sequence use a scale 1..14 where 1 is the ace below the 2 and
14 the ace above the king (R4.1): K-A-2 would need 13, 14, 15 and so never
fits. A meld always knows what each of its cards stands for, so the joker's
declaration (R4.4) is part of the meld and is kept when it grows (R6.3).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from scala40_net.cards import Face, Suit, cards_text, face, is_joker
from scala40_net.errors import Choices, Cuts, RuleViolation, refuse

ACE_LOW = 1
ACE_HIGH = 14
KING = 13
LONGEST_SEQUENCE = 14
GROUP_MAX = 4
MELD_MIN = 3


class MeldKind(StrEnum):
    SEQUENCE = "sequence"
    GROUP = "group"


def scale_face(rank: int, suit: Suit) -> Face:
    """The face of a scale rank (14 is the ace)."""
    return Face(ACE_LOW if rank == ACE_HIGH else rank, suit)


def scale_points(rank: int) -> int:
    """R1.4 value of a card at scale rank ``rank`` of a sequence (ace below the 2 is 1)."""
    if rank == ACE_LOW:
        return 1
    if rank == ACE_HIGH:
        return 11
    return min(rank, 10)


def face_points(f: Face) -> int:
    """R1.4 value of a face outside a sequence: ace 11, figures 10; a joker in hand 25 (R9.4)."""
    if f.is_joker:
        return 25
    if f.rank == ACE_LOW:
        return 11
    return min(f.rank, 10)


@dataclass(frozen=True)
class Meld:
    """A valid meld as it lies on the table.

    ``cards`` are card ids: a sequence low to high, a group in the order laid.
    ``stands_for`` is the face each card counts as (a joker's declaration, a
    real card's own face). ``low`` is the scale rank of the first card of a
    sequence, or the rank of a group.
    """

    kind: MeldKind
    cards: tuple[int, ...]
    stands_for: tuple[Face, ...]
    low: int

    @property
    def is_sequence(self) -> bool:
        return self.kind is MeldKind.SEQUENCE

    @property
    def joker_position(self) -> int | None:
        return next((i for i, c in enumerate(self.cards) if is_joker(c)), None)

    @property
    def joker(self) -> int | None:
        pos = self.joker_position
        return None if pos is None else self.cards[pos]

    @property
    def joker_as(self) -> Face | None:
        """What the joker of this meld stands for (R4.4), if it holds one."""
        pos = self.joker_position
        return None if pos is None else self.stands_for[pos]

    @property
    def high(self) -> int:
        """Scale rank of the last card of a sequence."""
        return self.low + len(self.cards) - 1

    @property
    def suit(self) -> Suit:
        """The suit of a sequence."""
        s = self.stands_for[0].suit
        assert s is not None
        return s

    @property
    def points(self) -> int:
        """R1.4 / R5.2 value: what the opening counts (a joker worth the card it stands for)."""
        if self.is_sequence:
            return sum(scale_points(self.low + i) for i in range(len(self.cards)))
        return sum(face_points(f) for f in self.stands_for)

    def __str__(self) -> str:
        text = cards_text(self.cards)
        joker_as = self.joker_as
        return f"{text} (JK={joker_as})" if joker_as is not None else text


def _real_aces(cards: Iterable[int]) -> int:
    return sum(1 for c in cards if not is_joker(c) and face(c).rank == ACE_LOW)


def _check_card_count(cards: Sequence[int]) -> None:
    if len(set(cards)) != len(cards):
        raise refuse(
            "R4", "CARD_TWICE", "the same card is listed twice in {cards}", cards=tuple(cards)
        )
    if len(cards) < MELD_MIN:
        # R4.2 for what can only be a group (real cards of one rank), R4.1 for the rest.
        ranks = {face(c).rank for c in cards if not is_joker(c)}
        raise refuse(
            "R4.2" if len(ranks) == 1 and len(cards) > 1 else "R4.1",
            "MELD_TOO_SHORT",
            "a meld has at least 3 cards, {cards} has {n}",
            cards=tuple(cards),
            n=len(cards),
        )
    jokers = sum(1 for c in cards if is_joker(c))
    if jokers > 1:
        raise refuse(
            "R4.3",
            "TOO_MANY_JOKERS",
            "a meld holds at most one joker, {cards} has {n}",
            cards=tuple(cards),
            n=jokers,
        )
    if len(cards) - jokers < 2:
        raise refuse("R4.3", "TOO_FEW_REAL_CARDS", "a meld needs at least two real cards")


def _check_declaration(
    cards: Sequence[int], joker_as: Face | None, expected: Sequence[Face]
) -> Face | None:
    """Check the declared joker against what the meld allows (R4.4); return it."""
    has_joker = any(is_joker(c) for c in cards)
    if not has_joker:
        if joker_as is not None:
            raise refuse(
                "R4.4",
                "NO_JOKER_TO_DECLARE",
                "{cards} has no joker, so nothing to declare",
                cards=tuple(cards),
            )
        return None
    options = Choices(tuple(expected))
    if joker_as is None:
        raise refuse(
            "R4.4",
            "JOKER_UNDECLARED",
            "the joker must declare the card it stands for ({options})",
            options=options,
        )
    if joker_as not in expected:
        if len(expected) == 1:
            raise refuse(
                "R4.4",
                "JOKER_DECLARED_WRONG",
                "the joker here stands for {options}, not {face}",
                options=options,
                face=joker_as,
            )
        raise refuse(
            "R4.4",
            "JOKER_DECLARED_WRONG",
            "the joker here may stand for {options}, not {face}",
            options=options,
            face=joker_as,
        )
    return joker_as


def _sequence_low(cards: Sequence[int]) -> int | None:
    """Scale rank of the first card if ``cards`` (one suit) are consecutive in the given order."""
    first_real = next(i for i, c in enumerate(cards) if not is_joker(c))
    anchor = face(cards[first_real]).rank
    for start_rank in (anchor, ACE_HIGH) if anchor == ACE_LOW else (anchor,):
        low = start_rank - first_real
        if low < ACE_LOW or low + len(cards) - 1 > ACE_HIGH:
            continue
        fits = True
        for i, c in enumerate(cards):
            if is_joker(c):
                continue
            r = face(c).rank
            want = low + i
            if not (r == want or (r == ACE_LOW and want == ACE_HIGH)):
                fits = False
                break
        if fits:
            return low
    return None


def _nothing_to_declare() -> RuleViolation:
    return refuse("R4.4", "NOTHING_TO_DECLARE", "no joker is attached, so nothing to declare")


def _not_a_sequence(cards: Sequence[int]) -> RuleViolation:
    ranks = [face(c).rank for c in cards if not is_joker(c)]
    if ACE_LOW in ranks and KING in ranks and 2 in ranks:
        misfits = _misfits_around_the_ace(cards)
        # Two sentences, not one with a word put in: each is translated whole.
        if len(misfits) == 1:
            return refuse(
                "R4.1", "ACE_IN_THE_MIDDLE",
                "{cards} does not fit: an ace goes below the 2 or above the K, never between them",
                cards=misfits,
            )  # fmt: skip
        return refuse(
            "R4.1", "ACE_IN_THE_MIDDLE",
            "{cards} do not fit: an ace goes below the 2 or above the K, never between them",
            cards=misfits,
        )  # fmt: skip
    return refuse(
        "R4.1",
        "NOT_A_SEQUENCE",
        "{cards} is not a sequence: one suit, consecutive ranks, laid low to high",
        cards=tuple(cards),
    )


def _misfits_around_the_ace(cards: Sequence[int]) -> tuple[int, ...]:
    """The real cards outside the longest run through the ace, read low or high (R4.1):
    in A-2-3-K, meant with the ace low, the K."""
    reals = [c for c in cards if not is_joker(c)]
    best: tuple[int, ...] = tuple(reals)
    for ace_at in (ACE_LOW, ACE_HIGH):
        scale = {c: ace_at if face(c).rank == ACE_LOW else face(c).rank for c in reals}
        held = set(scale.values())
        lo = hi = ace_at
        while lo - 1 in held:
            lo -= 1
        while hi + 1 in held:
            hi += 1
        out = tuple(c for c in reals if not lo <= scale[c] <= hi)
        if len(out) < len(best):
            best = out
    return best


def _one_ace() -> RuleViolation:
    return refuse(
        "R4.1", "TWO_ACES", "a sequence holds one ace only, at one end (A-2-3… or …Q-K-A)"
    )


def declarations(cards: Sequence[int]) -> tuple[Face, ...]:
    """Every card the joker of ``cards`` may stand for, in that order (R4.4).

    One for a sequence (its place) and a group of 4 (the missing suit), two
    for a group of 3 (either missing suit); empty when there is no joker or the
    cards make no meld whatever the declaration.
    """
    if not any(is_joker(c) for c in cards):
        return ()
    try:
        _check_card_count(cards)
    except RuleViolation:
        return ()
    reals = [face(c) for c in cards if not is_joker(c)]
    if len({f.rank for f in reals}) == 1:
        suits = {f.suit for f in reals}
        if len(suits) != len(reals) or len(cards) > GROUP_MAX:
            return ()
        return tuple(Face(reals[0].rank, s) for s in Suit if s not in suits)
    if len({f.suit for f in reals}) != 1:
        return ()
    low = _sequence_low(cards)
    if low is None or _real_aces(cards) > 1:
        return ()
    pos = next(i for i, c in enumerate(cards) if is_joker(c))
    suit = reals[0].suit
    assert suit is not None
    return (scale_face(low + pos, suit),)


def make_meld(cards: Sequence[int], joker_as: Face | None = None) -> Meld:
    """The meld ``cards`` make, or ``RuleViolation`` saying which part of R4 they break."""
    cards = tuple(cards)
    _check_card_count(cards)
    reals = [face(c) for c in cards if not is_joker(c)]
    same_rank = len({f.rank for f in reals}) == 1
    same_suit = len({f.suit for f in reals}) == 1
    if same_rank:
        rank = reals[0].rank
        suits = [f.suit for f in reals]
        if len(set(suits)) != len(suits):
            double = next(f for f in reals if suits.count(f.suit) > 1)
            raise refuse(
                "R4.2",
                "GROUP_SUIT_TWICE",
                "a group has cards of different suits: two {face} cannot be in one",
                face=double,
            )
        if len(cards) > GROUP_MAX:
            raise refuse(
                "R4.2",
                "GROUP_TOO_LONG",
                "a group has at most 4 cards, joker included, not {n}",
                n=len(cards),
            )
        missing = [Face(rank, s) for s in Suit if s not in suits]
        declared = _check_declaration(cards, joker_as, missing)
        stands_for = tuple(declared if is_joker(c) and declared else face(c) for c in cards)
        return Meld(MeldKind.GROUP, cards, stands_for, rank)
    if not same_suit:
        raise refuse(
            "R4",
            "NOT_A_MELD",
            "{cards} is neither a sequence (one suit) nor a group (one rank)",
            cards=tuple(cards),
        )
    if _real_aces(cards) > 1:
        raise _one_ace()
    low = _sequence_low(cards)
    if low is None:
        raise _not_a_sequence(cards)
    suit = reals[0].suit
    assert suit is not None
    stands = tuple(scale_face(low + i, suit) for i in range(len(cards)))
    pos = next((i for i, c in enumerate(cards) if is_joker(c)), None)
    _check_declaration(cards, joker_as, [stands[pos]] if pos is not None else [])
    return Meld(MeldKind.SEQUENCE, cards, stands, low)


def is_valid_meld(cards: Sequence[int], joker_as: Face | None = None) -> bool:
    try:
        make_meld(cards, joker_as)
    except RuleViolation:
        return False
    return True


def meld_points(cards: Sequence[int], joker_as: Face | None = None) -> int:
    """R1.4 points of the meld ``cards`` make (raises ``RuleViolation`` if they make none)."""
    return make_meld(cards, joker_as).points


def _attach_to_group(meld: Meld, cards: Sequence[int], joker_as: Face | None) -> Meld:
    all_cards = meld.cards + tuple(cards)
    if len(all_cards) > GROUP_MAX:
        raise refuse(
            "R4.2",
            "GROUP_WOULD_BE_TOO_LONG",
            "a group has at most 4 cards, this one would have {n}",
            n=len(all_cards),
        )
    taken = {f.suit for f in meld.stands_for}
    new_stands: list[Face] = []
    for c in cards:
        if is_joker(c):
            continue
        f = face(c)
        if f.rank != meld.low:
            raise refuse(
                "R6.1", "NOT_IN_GROUP", "{face} does not fit the group {meld}", face=f, meld=meld
            )
        if f.suit in taken:
            if meld.joker_as == f:
                raise refuse(
                    "R6.1",
                    "JOKER_ALREADY_STANDS",
                    "the joker already stands for {face}: swap it (R7.1) instead",
                    face=f,
                )
            raise refuse(
                "R4.2",
                "GROUP_HAS_SUIT",
                "a group has cards of different suits: {face} is already there",
                face=f,
            )
        taken.add(f.suit)
        new_stands.append(f)
    missing = [Face(meld.low, s) for s in Suit if s not in taken]
    joker_new = next((c for c in cards if is_joker(c)), None)
    if joker_new is None:
        if joker_as is not None:
            raise _nothing_to_declare()
        declared = None
    else:
        declared = _check_declaration([joker_new], joker_as, missing)
    stands = meld.stands_for + tuple(
        declared if is_joker(c) and declared is not None else face(c) for c in cards
    )
    return Meld(MeldKind.GROUP, all_cards, stands, meld.low)


def _scale_options(f: Face) -> tuple[int, ...]:
    # High first: an ace that fits either end of a 2…K sequence goes above the king.
    return (ACE_HIGH, ACE_LOW) if f.rank == ACE_LOW else (f.rank,)


def _attach_to_sequence(meld: Meld, cards: Sequence[int], joker_as: Face | None) -> Meld:
    suit = meld.suit
    joker_new = next((c for c in cards if is_joker(c)), None)
    if joker_new is None and joker_as is not None:
        raise _nothing_to_declare()
    new_faces: list[Face] = []
    for c in cards:
        if is_joker(c):
            if joker_as is None:
                ends = tuple(_joker_places(meld, cards))
                if ends:
                    raise refuse(
                        "R4.4",
                        "JOKER_UNDECLARED",
                        "the attached joker must declare the card it stands for ({options})",
                        options=Choices(ends),
                    )
                raise refuse(
                    "R4.4",
                    "JOKER_UNDECLARED",
                    "the attached joker must declare the card it stands for",
                )
            if joker_as.suit != suit or joker_as.is_joker:
                raise refuse(
                    "R4.4",
                    "JOKER_WRONG_SUIT",
                    "a joker attached here stands for a card of {suit}, not {face}",
                    suit=suit,
                    face=joker_as,
                )
            new_faces.append(joker_as)
        else:
            f = face(c)
            if f.suit != suit:
                raise refuse(
                    "R6.1",
                    "WRONG_SUIT",
                    "{face} is not of the suit of the sequence {meld}",
                    face=f,
                    meld=meld,
                )
            new_faces.append(f)
    if _real_aces(meld.cards + tuple(cards)) > 1:
        raise _one_ace()
    present = set(range(meld.low, meld.high + 1))
    for ranks in itertools.product(*(_scale_options(f) for f in new_faces)):
        if len(set(ranks)) != len(ranks) or present & set(ranks):
            continue
        every = present | set(ranks)
        lo, hi = min(every), max(every)
        if hi - lo + 1 != len(every) or lo < ACE_LOW or hi > ACE_HIGH:
            continue
        by_rank = dict(zip(range(meld.low, meld.high + 1), meld.cards, strict=True))
        by_rank.update(zip(ranks, cards, strict=True))
        ordered = tuple(by_rank[r] for r in range(lo, hi + 1))
        stands = tuple(scale_face(r, suit) for r in range(lo, hi + 1))
        return Meld(MeldKind.SEQUENCE, ordered, stands, lo)
    if joker_new is not None and joker_as is not None:
        raise refuse(
            "R6.1",
            "DOES_NOT_EXTEND",
            "{cards} (JK={face}) does not extend the sequence {meld} at either end",
            cards=tuple(cards),
            face=joker_as,
            meld=meld,
        )
    raise refuse(
        "R6.1",
        "DOES_NOT_EXTEND",
        "{cards} does not extend the sequence {meld} at either end",
        cards=tuple(cards),
        meld=meld,
    )


def _joker_places(meld: Meld, cards: Sequence[int]) -> list[Face]:
    """Every declaration a joker attached to the sequence ``meld`` with ``cards`` could
    take: beyond the real cards too (8H and a joker on 5H-6H-7H: 4H or 9H)."""
    out: list[Face] = []
    for rank in range(ACE_LOW, ACE_HIGH + 1):
        f = scale_face(rank, meld.suit)
        if f in out:
            continue
        try:
            attach(meld, cards, f)
        except RuleViolation:
            continue
        out.append(f)
    return out


def joker_attach_faces(meld: Meld) -> list[Face]:
    """Faces a joker attached alone to ``meld`` could be declared as (R6.2, R6.3)."""
    if meld.joker is not None:
        return []
    if meld.is_sequence:
        suit = meld.suit
        ends = [r for r in (meld.low - 1, meld.high + 1) if ACE_LOW <= r <= ACE_HIGH]
        return [scale_face(r, suit) for r in ends]
    if len(meld.cards) >= GROUP_MAX:
        return []
    taken = {f.suit for f in meld.stands_for}
    return [Face(meld.low, s) for s in Suit if s not in taken]


def attach(meld: Meld, cards: Sequence[int], joker_as: Face | None = None) -> Meld:
    """``meld`` with ``cards`` added (R6), or ``RuleViolation``; its joker stays put (R6.3)."""
    cards = tuple(cards)
    if not cards:
        raise refuse("R6.1", "ATTACH_NOTHING", "attach at least one card")
    if len(set(cards)) != len(cards):
        raise refuse("R6.1", "CARD_TWICE", "the same card is listed twice in {cards}", cards=cards)
    already = [c for c in cards if c in meld.cards]
    if already:
        raise refuse(
            "R6.1", "CARD_IN_MELD", "{card} is already in the meld {meld}",
            card=face(already[0]), meld=meld,
        )  # fmt: skip
    jokers = sum(1 for c in meld.cards + cards if is_joker(c))
    if jokers > 1:
        raise refuse("R4.3", "TOO_MANY_JOKERS", "a meld holds at most one joker")
    if meld.is_sequence:
        return _attach_to_sequence(meld, cards, joker_as)
    return _attach_to_group(meld, cards, joker_as)


def can_attach(meld: Meld, card: int) -> bool:
    """Could ``card`` alone be attached to ``meld`` (a joker under any declaration, R6.2)?"""
    if is_joker(card):
        return bool(joker_attach_faces(meld))
    f = face(card)
    if not meld.is_sequence:
        taken = {s.suit for s in meld.stands_for}
        return f.rank == meld.low and f.suit not in taken and len(meld.cards) < GROUP_MAX
    if f.suit != meld.suit:
        return False
    if f.rank == ACE_LOW:
        return _real_aces(meld.cards) == 0 and (meld.low == 2 or meld.high == KING)
    return f.rank in (meld.low - 1, meld.high + 1)


def attachable(meld: Meld) -> frozenset[int]:
    """What ``can_attach`` says yes to for ``meld``: the face indices (suit * 13 + rank - 1)
    of the cards that could be attached alone, and 52 if a joker could."""
    out: set[int] = set()
    if joker_attach_faces(meld):
        out.add(52)
    if not meld.is_sequence:
        if len(meld.cards) < GROUP_MAX:
            taken = {s.suit for s in meld.stands_for}
            out.update(int(s) * 13 + meld.low - 1 for s in Suit if s not in taken)
        return frozenset(out)
    base = int(meld.suit) * 13
    out.update(base + r - 1 for r in (meld.low - 1, meld.high + 1) if ACE_LOW < r <= KING)
    if _real_aces(meld.cards) == 0 and (meld.low == 2 or meld.high == KING):
        out.add(base)
    return frozenset(out)


def swap_joker(meld: Meld, card: int) -> tuple[Meld, int]:
    """Put ``card`` where the joker of ``meld`` is (R7.1); return the new meld and the joker."""
    pos = meld.joker_position
    if pos is None:
        raise refuse("R7.1", "NO_JOKER", "the meld {meld} has no joker to take", meld=meld)
    wanted = meld.stands_for[pos]
    if is_joker(card) or face(card) != wanted:
        raise refuse(
            "R7.1",
            "WRONG_SWAP",
            "the joker stands for {wanted}: only {wanted} can take its place, not {face}",
            wanted=wanted,
            face=face(card),
        )
    cards = (*meld.cards[:pos], card, *meld.cards[pos + 1 :])
    if meld.is_sequence and _real_aces(cards) > 1:
        raise refuse(
            "R4.1",
            "TWO_ACES",
            "a sequence holds one ace only: this joker cannot be swapped for a second ace",
        )
    return Meld(meld.kind, cards, meld.stands_for, meld.low), meld.cards[pos]


def run_cuts(n: int, max_run: int) -> list[tuple[int, ...]]:
    """Every way to cut a sequence of ``n`` cards into runs of 3..``max_run`` (R4.6), low first
    (the whole sequence, ``(n,)``, when it is short enough)."""
    if n < MELD_MIN:
        return []
    out: list[tuple[int, ...]] = [(n,)] if n <= max_run else []
    for first in range(MELD_MIN, min(max_run, n - MELD_MIN) + 1):
        out += [(first, *rest) for rest in run_cuts(n - first, max_run)]
    return out


def split_run(meld: Meld, max_run: int | None, lengths: Sequence[int] = ()) -> tuple[Meld, ...]:
    """Cut a sequence longer than ``max_run`` into runs of 3..max_run, low to high (R4.6).

    A 6-card sequence is cut 3+3 by itself; a longer one needs ``lengths`` from
    the player. Groups and short sequences come back whole (``lengths`` must
    then be empty or the whole length).
    """
    n = len(meld.cards)
    if max_run is None or not meld.is_sequence or n <= max_run:
        if lengths and tuple(lengths) != (n,):
            raise refuse(
                "R4.6",
                "NOTHING_TO_CUT",
                "only a sequence longer than the longest run allowed is cut",
            )
        return (meld,)
    cuts = run_cuts(n, max_run)
    if not cuts:
        raise refuse(
            "R4.6", "CANNOT_BE_CUT",
            "a sequence on the table has at most {max_run} cards, and no cut makes runs of "
            "3 to {max_run} of these {n}",
            max_run=max_run, n=n,
        )  # fmt: skip
    if not lengths:
        if n == 2 * MELD_MIN:
            lengths = (MELD_MIN, MELD_MIN)
        else:
            raise refuse(
                "R4.6", "SAY_THE_CUT",
                "a sequence on the table has at most {max_run} cards: say how to cut these "
                "{n} ({cuts})",
                max_run=max_run, n=n, cuts=Cuts(tuple(cuts)),
            )  # fmt: skip
    if tuple(lengths) not in cuts:
        raise refuse(
            "R4.6", "BAD_CUT",
            "these {n} cards are cut {cuts}, not {lengths}",
            n=n, cuts=Cuts(tuple(cuts)), lengths="+".join(map(str, lengths)),
        )  # fmt: skip
    pieces: list[Meld] = []
    start = 0
    for k in lengths:
        cards = meld.cards[start : start + k]
        pieces.append(
            Meld(MeldKind.SEQUENCE, cards, meld.stands_for[start : start + k], meld.low + start)
        )
        start += k
    return tuple(pieces)


@dataclass(frozen=True)
class ProposedMeld:
    """A new meld to check: its cards in order, the joker's declaration, the R4.6 split."""

    cards: tuple[int, ...]
    joker_as: Face | None = None
    split: tuple[int, ...] = ()


@dataclass(frozen=True)
class MeldCheck:
    """One proposed meld as the stateless "check melds" answer describes it.

    ``split`` gives the run lengths the meld lies as when R4.6 cuts it, else ().
    """

    cards: tuple[int, ...]
    valid: bool
    kind: MeldKind | None
    points: int
    joker_as: Face | None
    rule: str | None
    reason: str | None
    split: tuple[int, ...] = ()


@dataclass(frozen=True)
class OpeningCheck:
    """A proposed list of new melds: each one checked, their total, whether it opens (R5.1)."""

    melds: tuple[MeldCheck, ...]
    total: int
    needed: int
    would_open: bool


def check_meld(
    cards: Sequence[int],
    joker_as: Face | None = None,
    max_run: int | None = None,
    split: Sequence[int] = (),
) -> MeldCheck:
    """What laying ``cards`` as a new meld would give: the meld and its R4.6 cut, or why not."""
    cards = tuple(cards)
    try:
        meld = make_meld(cards, joker_as)
        pieces = split_run(meld, max_run, split)
    except RuleViolation as refusal:
        return MeldCheck(cards, False, None, 0, joker_as, refusal.rule, refusal.reason)
    runs = tuple(len(p.cards) for p in pieces) if len(pieces) > 1 else ()
    return MeldCheck(cards, True, meld.kind, meld.points, meld.joker_as, None, None, runs)


def check_opening(
    melds: Sequence[ProposedMeld], opening_points: int = 40, max_run: int | None = None
) -> OpeningCheck:
    """Check new melds as an opening (R5.1): only valid melds count, each card used once.

    Each meld is checked as the engine lays it under ``max_run`` (R4.6).
    """
    checks = [check_meld(m.cards, m.joker_as, max_run, m.split) for m in melds]
    seen: set[int] = set()
    for i, check in enumerate(checks):
        if check.valid and seen & set(check.cards):
            checks[i] = MeldCheck(
                check.cards, False, None, 0, check.joker_as, "R4", "a card is used in two melds"
            )
        seen |= set(check.cards)
    total = sum(c.points for c in checks if c.valid)
    would_open = bool(checks) and all(c.valid for c in checks) and total >= opening_points
    return OpeningCheck(tuple(checks), total, opening_points, would_open)
