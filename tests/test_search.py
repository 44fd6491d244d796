"""The exact lay-down search against a brute force judged by the engine, and rule cases (R3-R9)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scala40_net.actions import Attach, DrawSource, NewMeld, Operation, Play, SwapJoker
from scala40_net.cards import Face, Suit, card_id, face, is_joker, joker_id
from scala40_net.deal import DealState, Phase, apply, could_attach
from scala40_net.errors import RuleViolation
from scala40_net.melds import (
    Meld,
    attach,
    declarations,
    face_points,
    is_valid_meld,
    make_meld,
    scale_face,
    split_run,
    swap_joker,
)
from scala40_net.movegen import operation_cards, run_lengths
from scala40_net.rules import DiscardAttachable, DiscardPickup, Ruleset
from scala40_net.scenario import CardPool, position
from scala40_net.search import LayDown, best_opening, best_play, can_open, has_play

# Brute force: every meld, attach and swap the engine's own meld functions accept, in every
# order, each final play judged by deal.apply. Nothing of the search is used.

Arrangement = tuple[tuple[int, ...], Face | None]


def arrangements(cards: Sequence[int]) -> list[Arrangement]:
    """Every order and declaration in which ``cards`` make a valid meld."""
    reals = [c for c in cards if not is_joker(c)]
    jokers = [c for c in cards if is_joker(c)]
    if len(jokers) > 1:
        return []
    orders: set[tuple[int, ...]] = set()
    for ace_high in (False, True):
        base = sorted(reals, key=lambda c: 14 if ace_high and face(c).rank == 1 else face(c).rank)
        if jokers:
            orders.update(tuple(base[:k] + jokers + base[k:]) for k in range(len(base) + 1))
        else:
            orders.add(tuple(base))
    out: list[Arrangement] = []
    for order in sorted(orders):
        for declared in declarations(order) or (None,):
            if is_valid_meld(order, declared):
                out.append((order, declared))
    return out


def play_state(
    hand: Sequence[int],
    table: Sequence[Meld] = (),
    rules: Ruleset | None = None,
    opened: bool = False,
    taken: int | None = None,
    first_turn: bool = False,
) -> DealState:
    """Seat 0 after its draw, holding ``hand``; seat 1 holds the rest of the deck's spare cards."""
    used = set(hand) | {c for meld in table for c in meld.cards}
    rest = [c for c in range(108) if c not in used]
    return DealState(
        ruleset=rules or Ruleset(),
        seats=(0, 1),
        dealer=1,
        hands=(tuple(hand), tuple(rest[:5])),
        opened=(opened, True),
        turns_played=(0 if first_turn else 2, 2),
        table=tuple(table),
        owners=(1,) * len(table),
        stock=tuple(rest[6:]),
        discard_pile=(rest[5],),
        turn=0,
        phase=Phase.PLAY,
        drawn=DrawSource.STOCK if taken is None else DrawSource.DISCARD,
        taken_discard=taken,
    )


def accepted(state: DealState, operations: Sequence[Operation], hand: Sequence[int]) -> bool:
    """Does the engine accept these operations followed by some discard (or none)?"""
    for discard in [*hand, None]:
        try:
            apply(state, 0, Play(tuple(operations), discard))
        except RuleViolation:
            continue
        return True
    return False


def cut(meld: Meld, max_run: int | None) -> tuple[int, ...] | None:
    """The run lengths R4.6 asks for ``meld`` (None: it cannot lie there); a group stays whole."""
    return run_lengths(len(meld.cards), max_run) if meld.is_sequence else ()


def new_meld(order: tuple[int, ...], declared: Face | None, rules: Ruleset) -> NewMeld | None:
    lengths = cut(make_meld(order, declared), rules.max_run)
    return None if lengths is None else NewMeld(order, declared, lengths)


def brute_best_opening(state: DealState) -> int | None:
    """The highest opening total over every partition of the hand into melds the engine accepts."""
    hand = state.hands[0]
    best: int | None = None

    def walk(remaining: list[int], laid: list[tuple[NewMeld, int]]) -> None:
        nonlocal best
        if not remaining:
            total = sum(points for _, points in laid)
            if laid and (best is None or total > best):
                ops = [op for op, _ in laid]
                left = [c for c in hand if all(c not in op.cards for op in ops)]
                if accepted(state, ops, left):
                    best = total
            return
        first, others = remaining[0], remaining[1:]
        walk(others, laid)
        for size in range(2, len(others) + 1):
            for rest in itertools.combinations(others, size):
                options = arrangements((first, *rest))
                if not options:
                    continue
                order, declared = max(options, key=lambda a: make_meld(*a).points)
                op = new_meld(order, declared, state.ruleset)
                if op is None:
                    continue
                left = [c for c in others if c not in rest]
                walk(left, [*laid, (op, make_meld(order, declared).points)])

    walk(list(hand), [])
    return best


def joker_faces(meld: Meld) -> list[Face]:
    if meld.is_sequence:
        return [scale_face(r, meld.suit) for r in range(1, 15)]
    return [Face(meld.low, s) for s in Suit]


def brute_best_relief(state: DealState) -> int | None:
    """The most R9.4 points any accepted play takes out of the hand (None: no play is legal)."""
    hand0 = state.hands[0]
    max_run = state.ruleset.max_run
    before = sum(face_points(face(c)) for c in hand0)
    best: int | None = None
    # The engine judges the order of a play (S6), so each order of operation kinds is its own state.
    seen: set[tuple[frozenset[int], tuple[Meld, ...], tuple[str, ...]]] = set()

    def place(table: list[Meld], index: int | None, meld: Meld) -> list[Meld] | None:
        lengths = cut(meld, max_run)
        if lengths is None:
            return None
        pieces = split_run(meld, max_run, lengths)
        out = list(table)
        if index is None:
            out += pieces
        else:
            out[index] = pieces[0]
            out += pieces[1:]
        return out

    def walk(hand: list[int], table: list[Meld], ops: list[Operation], depth: int) -> None:
        nonlocal best
        key = (frozenset(hand), tuple(table), tuple(type(op).__name__ for op in ops))
        if key in seen:
            return
        seen.add(key)
        relief = before - sum(face_points(face(c)) for c in hand)
        if (best is None or relief > best) and accepted(state, ops, hand):
            best = relief
        # Up to 6 cards and 2 table jokers: every card laid by its own operation plus every swap
        # (an unopened hand may need its opening, two swaps and two attaches: five operations).
        if depth == 8:
            return
        for size in range(1, len(hand) + 1):
            for cards in itertools.combinations(hand, size):
                left = [c for c in hand if c not in cards]
                if size >= 3:
                    for order, declared in arrangements(cards):
                        grown = place(table, None, make_meld(order, declared))
                        op = new_meld(order, declared, state.ruleset)
                        if grown is not None and op is not None:
                            walk(left, grown, [*ops, op], depth + 1)
                for index, meld in enumerate(table):
                    has_joker = any(is_joker(c) for c in cards)
                    for declared in joker_faces(meld) if has_joker else [None]:
                        try:
                            grown_meld = attach(meld, cards, declared)
                        except RuleViolation:
                            continue
                        grown = place(table, index, grown_meld)
                        lengths = cut(grown_meld, max_run)
                        if grown is not None and lengths is not None:
                            op_a = Attach(index, cards, declared, lengths)
                            walk(left, grown, [*ops, op_a], depth + 1)
        for index, meld in enumerate(table):
            for card in hand:
                try:
                    swapped, joker = swap_joker(meld, card)
                except RuleViolation:
                    continue
                after = list(table)
                after[index] = swapped
                rest = [c for c in hand if c != card] + [joker]
                walk(rest, after, [*ops, SwapJoker(index, card)], depth + 1)

    walk(list(hand0), list(state.table), [], 0)
    return best


# Positions: a few faces close together, so that melds, attaches and swaps are frequent.

SUITS = (Suit.HEARTS, Suit.SPADES)
RANKS = (1, 2, 3, 4, 5, 11, 12, 13)


@st.composite
def hands(draw: st.DrawFn, low: int, high: int) -> list[int]:
    universe = [card_id(r, s, k) for r in RANKS for s in SUITS for k in (0, 1)]
    universe += [card_id(r, Suit.CLUBS, 0) for r in (1, 4, 12)]
    universe += [joker_id(0, 0), joker_id(1, 1)]
    return draw(st.lists(st.sampled_from(universe), min_size=low, max_size=high, unique=True))


@st.composite
def table_melds(draw: st.DrawFn, hand: Sequence[int]) -> list[Meld]:
    used = set(hand)
    table: list[Meld] = []
    for _ in range(draw(st.integers(0, 2))):
        if draw(st.booleans()):
            s = draw(st.sampled_from(SUITS))
            low = draw(st.sampled_from((1, 2, 3, 10, 11)))
            length = draw(st.integers(3, 4))
            ranks = [1 if r == 14 else r for r in range(low, low + length)]
            faces = [Face(r, s) for r in ranks]
        else:
            rank = draw(st.sampled_from(RANKS))
            suits = draw(st.sampled_from([(0, 1, 3), (0, 2, 3), (1, 2, 3)]))
            faces = [Face(rank, Suit(x)) for x in suits]
        cards = []
        for f in faces:
            assert f.suit is not None
            free = [card_id(f.rank, f.suit, k) for k in (0, 1)]
            free = [c for c in free if c not in used]
            if not free:
                break
            cards.append(free[0])
        if len(cards) != len(faces):
            continue
        jokers = [j for j in (joker_id(0, 1), joker_id(1, 0)) if j not in used]
        place = draw(st.integers(-1, len(cards) - 1))
        declared = None
        if place >= 0:
            declared = faces[place]
            cards[place] = jokers[0]
        used.update(cards)
        table.append(make_meld(cards, declared))
    return table


def check_play(state: DealState, found: LayDown | None) -> None:
    """The search's play is accepted by the engine with a discard from its leftover."""
    if found is None:
        return
    assert accepted(state, found.operations, found.leftover)


@pytest.mark.long(12)
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    hand=hands(3, 9),
    threshold=st.sampled_from((0, 12, 24, 40)),
    first_turn=st.booleans(),
    take=st.integers(-3, 8),
    max_run=st.sampled_from((None, None, 4)),
)
def test_best_opening_equals_brute_force(
    hand: list[int], threshold: int, first_turn: bool, take: int, max_run: int | None
) -> None:
    rules = Ruleset(opening_points=threshold, max_run=max_run)
    taken = hand[take] if 0 <= take < len(hand) else None
    state = play_state(hand, rules=rules, taken=taken, first_turn=first_turn)
    found = best_opening(hand, rules, taken=taken, first_turn=first_turn)
    expected = brute_best_opening(state)
    assert (found.opening_points if found else None) == expected
    check_play(state, found)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    opened=st.booleans(),
    first_turn=st.booleans(),
    take=st.integers(-4, 5),
    max_run=st.sampled_from((None, None, 4)),
    threshold=st.sampled_from((20, 20, 0)),
)
def test_best_play_equals_brute_force(
    data: st.DataObject,
    opened: bool,
    first_turn: bool,
    take: int,
    max_run: int | None,
    threshold: int,
) -> None:
    hand = data.draw(hands(2, 6))
    table = data.draw(table_melds(hand))
    rules = Ruleset(opening_points=threshold, max_run=max_run)
    taken = hand[take] if 0 <= take < len(hand) else None
    state = play_state(hand, table, rules, opened=opened, taken=taken, first_turn=first_turn)
    found = best_play(state)
    expected = brute_best_relief(state)
    assert (found.relief if found else None) == expected
    check_play(state, found)


# Rule cases, each named after its clause.


def test_r5_2_examples_open_or_not() -> None:
    pool = CardPool()
    found = best_opening(pool.cards("9H 9D 9C 10S JS QS 2D"))
    assert found is not None and found.opening_points == 57
    pool = CardPool()
    assert best_opening(pool.cards("4H 4D 4C 3S 4S 5S 6S 7S 2C")) is None


def test_r1_4_ace_high_counts_eleven_and_joker_stands_for_its_card() -> None:
    pool = CardPool()
    # Q-K-A (31) with JK for J in front (41), or the joker in a group of 2s: the search sees both.
    found = best_opening(pool.cards("QH KH AH JK 2C 2D 5S"))
    assert found is not None and found.opening_points == 41
    melds = [make_meld(op.cards, op.joker_as) for op in found.operations if isinstance(op, NewMeld)]
    assert [m.points for m in melds] == [41]


def test_r3_2_the_taken_discard_must_be_inside_the_opening() -> None:
    pool = CardPool()
    hand = pool.cards("KH KD KC QS QD QC 2S 5D")
    taken = hand[-1]
    assert best_opening(hand, taken=taken) is None
    found = best_opening(hand, taken=hand[0])
    assert found is not None and any(hand[0] in op.cards for op in found.operations)  # type: ignore[union-attr]


def test_r3_3_the_taken_discard_is_never_the_only_card_left() -> None:
    pool = CardPool()
    hand = pool.cards("KH KD KC QS QD QC 7D")
    rules = Ruleset(discard_pickup="free")  # type: ignore[arg-type]
    drawn = best_play(play_state(hand, rules=rules, opened=True))
    assert drawn is not None and drawn.leftover == hand[-1:]
    state = play_state(hand, rules=rules, opened=True, taken=hand[-1])
    taken = best_play(state)
    assert taken is not None and hand[-1] in taken.leftover and len(taken.leftover) == 4
    check_play(state, taken)


def test_r9_2_no_going_out_in_the_first_turn() -> None:
    pool = CardPool()
    hand = pool.cards("KH KD KC KS QS QD QC 7D")
    first = best_opening(hand, first_turn=True)
    assert first is not None and first.opening_points == 60 and len(first.leftover) == 2
    later = best_opening(hand, first_turn=False)
    assert later is not None and later.opening_points == 70 and len(later.leftover) == 1


def test_r8_3_a_joker_is_never_left_as_the_closing_discard() -> None:
    pool = CardPool()
    hand = pool.cards("KH KD KC QS QD QC JK")
    found = best_opening(hand)
    assert found is not None and len(found.leftover) == 1 and not is_joker(found.leftover[0])


def test_r7_swap_frees_a_joker_for_a_new_meld() -> None:
    state = position(
        hands={0: "8H 4C 4D 9S", 1: "2C 2D"},
        table=["7H JK=8H 9H"],
        opened=[0],
        phase=Phase.PLAY,
        turn=0,
    )
    found = best_play(state)
    assert found is not None
    assert any(isinstance(op, SwapJoker) for op in found.operations)
    assert found.relief == 8 + 4 + 4
    check_play(state, found)


def test_r7_2_the_swapped_joker_is_laid_again_and_the_own_joker_stays() -> None:
    # Swapping 6H frees the run's joker, which must be laid again (R7.2): the run takes it,
    # and then no other joker, so the hand's own joker is one of the cards left.
    state = position(
        hands={0: "6H JK 2C 8D", 1: "2D"},
        table=["5H JK=6H 7H"],
        opened=[0],
        phase=Phase.PLAY,
        turn=0,
    )
    found = best_play(state)
    assert found is not None
    own_joker = next(c for c in state.hand(0) if is_joker(c))
    assert own_joker in found.leftover and len(found.leftover) == 3
    laid = {c for op in found.operations for c in operation_cards(op)}
    assert found.leftover == tuple(c for c in state.hand(0) if c not in laid)
    check_play(state, found)


def test_r6_attach_a_chain_to_both_ends() -> None:
    state = position(
        hands={0: "3H 7H 8H KS", 1: "2C"},
        table=["4H 5H 6H"],
        opened=[0],
        phase=Phase.PLAY,
        turn=0,
    )
    found = best_play(state)
    assert found is not None and found.leftover == state.hands[0][-1:]
    check_play(state, found)


def test_r4_6_max_run_cuts_or_forbids() -> None:
    pool = CardPool()
    hand = pool.cards("3H 4H 5H 6H 7H 8H 9H 2C")
    found = best_opening(hand, Ruleset(max_run=5))
    assert found is not None and found.opening_points == 42
    check_play(play_state(hand, rules=Ruleset(max_run=5)), found)
    pool = CardPool()
    hand = pool.cards("3H 4H 5H 6H 9C 9D 9S 2C")
    assert best_opening(hand).opening_points == 45  # type: ignore[union-attr]
    # Runs of at most 3: 3-4-5-6 cannot be laid, 4-5-6 can.
    assert best_opening(hand, Ruleset(max_run=3)).opening_points == 42  # type: ignore[union-attr]


def test_r7_3_a_taken_discard_cannot_wait_for_a_swapped_joker() -> None:
    # 5H was taken to open: only 5H JK 7H would hold it, and that joker comes from a swap,
    # which is allowed only once the opening (with 5H in it) is complete.
    state = position(
        hands={0: "QH QC QD QS 5H 7H JD 2C", 1: "3C"},
        table=["JH JC JK=JD"],
        phase=Phase.PLAY,
        turn=0,
    )
    taken = state.hands[0][4]
    state = play_state(state.hands[0], state.table, taken=taken)
    assert best_play(state) is None
    assert brute_best_relief(state) is None


def test_r4_6_a_run_cut_off_in_the_play_takes_a_second_attach() -> None:
    # AS AS 5S JK against 2S 3S 4S JK=5S, runs of at most 4: swap 5S, attach AS with the
    # freed joker as 6S (A..6 is cut 3+3), then the own joker as 4S on the cut-off A-2-3.
    rules = Ruleset(opening_points=20, max_run=4)
    table = [make_meld((40, 41, 42, 53), Face(5, Suit.SPADES))]
    state = play_state([39, 93, 43, 52], table, rules, opened=True)
    found = best_play(state)
    assert found is not None and found.relief == brute_best_relief(state) == 41
    check_play(state, found)


def test_r3_2_a_taken_joker_is_not_the_swapped_one_laid_again() -> None:
    # JK (taken) AH 2S against 2H 2D JK=2S: swapping 2S frees a joker that must be laid (R7.2),
    # and the group has room for one joker only, so the taken joker would stay: no play.
    table = [make_meld((1, 14, 53), Face(2, Suit.SPADES))]
    state = play_state([52, 0, 40], table, Ruleset(opening_points=20), opened=True, taken=52)
    assert best_play(state) is None
    assert brute_best_relief(state) is None


def test_r4_6_groups_are_never_cut() -> None:
    # Runs of at most 3 leave a group of 4 whole: AH AH 4H 4D 4S with the taken joker opens 37.
    rules = Ruleset(opening_points=10, max_run=3)
    state = play_state([52, 0, 54, 3, 29, 42], rules=rules, taken=52)
    found = best_play(state)
    assert found is not None and found.relief == brute_best_relief(state) == 37
    check_play(state, found)


def test_r7_3_an_opening_meld_takes_the_swapped_joker_after_the_swap() -> None:
    # AH (taken) AH 2S 5S QH KH against 3S 4S JK=5S, runs of at most 4: open with Q-K-A
    # (the taken AH in it), swap 5S, attach the freed joker as JH to Q-K-A and 2S to 2-3-4-5.
    rules = Ruleset(opening_points=20, max_run=4)
    table = [make_meld((41, 42, 53), Face(5, Suit.SPADES))]
    state = play_state([0, 54, 40, 43, 11, 12], table, rules, taken=0)
    found = best_play(state)
    assert found is not None and found.relief == brute_best_relief(state) == 38
    check_play(state, found)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hand=hands(3, 10), threshold=st.sampled_from((12, 24, 40)), first_turn=st.booleans())
def test_can_open_agrees_with_brute_force(
    hand: list[int], threshold: int, first_turn: bool
) -> None:
    rules = Ruleset(opening_points=threshold)
    state = play_state(hand, rules=rules, first_turn=first_turn)
    assert can_open(hand, rules, first_turn=first_turn) == (brute_best_opening(state) is not None)


def test_r1_4_a_joker_standing_for_a_high_ace_counts_11_in_the_opening() -> None:
    # QD KD KD KC KS JK (4C to discard): Q-K-JK(AD) + KD KC KS = 31 + 30 = 61, not the
    # 30 + 30 of JK(JD)-Q-K with the same group.
    pool = CardPool()
    hand = pool.cards("QD KD KD KC KS JK 4C")
    state = play_state(hand)
    found = best_opening(hand)
    assert found is not None and found.opening_points == brute_best_opening(state) == 61
    assert Face(1, Suit.DIAMONDS) in [op.joker_as for op in found.operations]  # type: ignore[union-attr]
    check_play(state, found)


def _run_with_joker(low: int, length: int, place: int, suit: Suit) -> list[int]:
    """The sequence ``low``..``low + length - 1`` of ``suit`` (14 = ace), a joker at ``place``."""
    cards = [card_id(1 if r == 14 else r, suit, 0) for r in range(low, low + length)]
    cards[place] = joker_id(0, 0)
    return cards


@pytest.mark.parametrize(
    ("low", "length"), [(1, 3), (1, 4), (2, 3), (2, 4), (10, 4), (11, 3), (11, 4), (12, 3)]
)
@pytest.mark.parametrize("threshold", [0, 40])
def test_best_opening_equals_brute_force_with_a_joker_at_every_place(
    low: int, length: int, threshold: int
) -> None:
    # Ace low (A-2-3…) and high (…Q-K-A), the joker at every place of the run, with a group
    # of the run's top (or bottom) rank that competes for the same cards.
    rules = Ruleset(opening_points=threshold)
    for place in range(length):
        run = _run_with_joker(low, length, place, Suit.DIAMONDS)
        edge = 1 if low + length - 1 == 14 else min(low + length - 1, 13)
        rivals = [card_id(edge, Suit.CLUBS, 0), card_id(edge, Suit.SPADES, 0)]
        extra = [card_id(edge, Suit.DIAMONDS, 1), card_id(4, Suit.HEARTS, 1)]
        hand = [*run, *rivals, *extra]
        state = play_state(hand, rules=rules)
        found = best_opening(hand, rules)
        assert (found.opening_points if found else None) == brute_best_opening(state), (
            low,
            length,
            place,
        )
        check_play(state, found)


def test_r4_6_a_face_is_never_laid_more_often_than_the_hand_holds_it() -> None:
    # Runs of at most 4 (tradizionale plays 5): 8D 9D on 4D-7D makes six cards, cut 3+3,
    # and the cut-off piece may take the other 8D. The search once let that attach use both
    # 8Ds while two new groups used them too, and building the play failed (IndexError).
    pool = CardPool()
    table = [pool.meld("4D 5D 6D 7D")]
    hand = list(pool.cards("8D JK 2S QC 3D 8H 8C 9D 8D 4C JK JK"))
    state = play_state(hand, table, Ruleset(max_run=4))
    found = best_play(state)
    assert found is not None
    check_play(state, found)


def test_r3_2_the_taken_card_put_in_a_jokers_place_is_used() -> None:
    # AS taken from the pile by an opened player: in place of the joker of AH AD JK=AS it is
    # used (R3.2), and the freed joker is laid with AH 2H (R7.2).
    table = [make_meld((54, 13, 53), Face(1, Suit.SPADES))]
    state = play_state([4, 58, 0, 1, 39], table, opened=True, taken=39)
    found = best_play(state)
    assert found is not None and found.relief == brute_best_relief(state) == 24
    check_play(state, found)


def test_r8_2_never_the_best_play_keeps_a_card_that_may_be_discarded() -> None:
    # 2H 3H 4H laid would leave 8C, which attaches to 5C 6C 7C: under never it may not be
    # the closing discard, so the best play attaches 8C and keeps a card to discard.
    pool = CardPool()
    table = [pool.meld("5C 6C 7C")]
    hand = list(pool.cards("2H 3H 4H 8C"))
    rules = Ruleset(discard_attachable=DiscardAttachable.NEVER)
    state = play_state(hand, table, rules, opened=True)
    found = best_play(state)
    assert found is not None and len(found.leftover) == 3
    check_play(state, found)
    # Under classic the last card may go: 2H 3H 4H laid, 8C the closing discard.
    classic = play_state(hand, table, opened=True)
    assert len(best_play(classic).leftover) == 1  # type: ignore[union-attr]


def test_r5_1_an_opening_worth_0_is_still_a_new_meld_before_any_swap() -> None:
    # With opening_points 0 an unopened seat still opens only by laying a meld (R5.1): 8H in
    # place of the run's joker and the joker attached alone would be a swap and an attach by
    # a seat that has not opened, which the engine refuses (R7.1, R6.1).
    def at_free_opening(hand: str) -> DealState:
        return position(
            ruleset=Ruleset(opening_points=0),
            hands={0: hand, 1: "2D"},
            table=["7H JK=8H 9H"],
            phase=Phase.PLAY,
            turn=0,
        )

    state = at_free_opening("8H 2C 3D KS 4S")
    found = best_play(state)
    assert found is not None and found.is_empty
    check_play(state, found)
    # With a meld of its own to lay first, the same seat opens, then swaps and attaches.
    state = at_free_opening("8H 2C 3C 4C KS 4S")
    found = best_play(state)
    assert found is not None
    assert isinstance(found.operations[0], NewMeld)
    assert any(isinstance(op, SwapJoker) for op in found.operations)
    check_play(state, found)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    opened=st.booleans(),
    pickup=st.sampled_from(tuple(DiscardPickup)),
    max_run=st.sampled_from((None, None, 4)),
)
def test_r8_2_agreed_no_search_answer_attaches_or_swaps_the_agreed_discard(
    data: st.DataObject, opened: bool, pickup: DiscardPickup, max_run: int | None
) -> None:
    """Under discard_attachable=agreed the seat took a discard that could be attached: the
    search never attaches it nor puts it in a joker's place (R8.2), so the engine accepts every
    answer, and the answer is still the best the engine accepts."""
    hand = data.draw(hands(1, 5))
    table = data.draw(table_melds(hand))
    used = set(hand) | {c for meld in table for c in meld.cards}
    universe = [card_id(r, s, k) for r in RANKS for s in SUITS for k in (0, 1)]
    universe += [joker_id(0, 0), joker_id(1, 1), joker_id(0, 1), joker_id(1, 0)]
    fitting = [c for c in universe if c not in used and could_attach(table, c)]
    assume(fitting)
    taken = data.draw(st.sampled_from(fitting))
    hand.insert(data.draw(st.integers(0, len(hand))), taken)
    rules = Ruleset(
        opening_points=20,
        max_run=max_run,
        discard_pickup=pickup,
        discard_attachable=DiscardAttachable.AGREED,
    )
    state = play_state(hand, table, rules, opened=opened, taken=taken)
    state = replace(state, agreed_discard=taken)
    found = best_play(state)
    check_play(state, found)
    assert (found.relief if found else None) == brute_best_relief(state)
    if found is not None:
        assert has_play(state) == (not found.is_empty)


def test_r8_2_agreed_the_taken_copy_stays_and_the_other_is_attached() -> None:
    # Two 10H in hand, one of them the agreed discard just taken (free pickup: it need not
    # be used): the one attached to JH QH KH is the other copy, and the taken one stays.
    pool = CardPool()
    table = [pool.meld("JH QH KH")]
    taken, other, *rest = pool.cards("10H 10H 2C 5D")
    rules = Ruleset(discard_pickup=DiscardPickup.FREE, discard_attachable=DiscardAttachable.AGREED)
    state = play_state([taken, other, *rest], table, rules, opened=True, taken=taken)
    state = replace(state, agreed_discard=taken)
    found = best_play(state)
    assert found is not None and found.relief == 10
    assert found.operations == (Attach(0, (other,), None, ()),)
    assert taken in found.leftover and other not in found.leftover
    check_play(state, found)
    # Under classic pickup the taken card must be used, and no new meld can lay it: put back.
    classic = replace(state, ruleset=replace(rules, discard_pickup=DiscardPickup.CLASSIC))
    assert best_play(classic) is None
