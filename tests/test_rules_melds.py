"""R1.4, R4, R5.2, R6, R7 at the level of single melds: validity, joker declarations, points."""

import pytest

from scala40_net.cards import Face, Suit, parse_face, parse_faces, pick_from_hand
from scala40_net.errors import RuleViolation
from scala40_net.melds import (
    MeldKind,
    ProposedMeld,
    attach,
    can_attach,
    check_opening,
    declarations,
    is_valid_meld,
    joker_attach_faces,
    make_meld,
    meld_points,
    split_run,
    swap_joker,
)
from scala40_net.scenario import CardPool

H, D, C, S = Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS, Suit.SPADES


def ids(text: str) -> tuple[int, ...]:
    """Distinct card ids for faces, in the order written (two decks)."""
    return tuple(pick_from_hand(parse_faces(text), range(108)))


def f(text: str) -> Face:
    return parse_face(text)


def refusal(text: str, joker_as: str | None = None) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        make_meld(ids(text), f(joker_as) if joker_as else None)
    return info.value


# R1.4 / R5.2 points


def test_r5_2_a_2_3_counts_6() -> None:
    assert meld_points(ids("AH 2H 3H")) == 6


def test_r5_2_q_k_a_counts_31() -> None:
    assert meld_points(ids("QS KS AS")) == 31


def test_r5_2_7_joker_9_counts_24() -> None:
    assert meld_points(ids("7D JK 9D"), f("8D")) == 24


def test_r5_2_nine_nine_nine_is_27_and_10_j_q_is_30() -> None:
    assert meld_points(ids("9H 9D 9C")) == 27
    assert meld_points(ids("10C JC QC")) == 30


def test_r5_2_three_to_seven_is_25_and_four_fours_is_12() -> None:
    assert meld_points(ids("3S 4S 5S 6S 7S")) == 25
    assert meld_points(ids("4H 4D 4C")) == 12


def test_r1_4_ace_in_a_group_counts_11() -> None:
    assert meld_points(ids("AH AD AC")) == 33


def test_r1_4_joker_counts_as_the_card_it_stands_for_in_a_group() -> None:
    assert meld_points(ids("KH KD JK"), f("KS")) == 30
    assert meld_points(ids("AH AD JK"), f("AC")) == 33


def test_r1_4_joker_for_the_low_ace_counts_1() -> None:
    assert meld_points(ids("JK 2H 3H"), f("AH")) == 6


def test_r1_4_joker_for_the_high_ace_counts_11() -> None:
    assert meld_points(ids("QH KH JK"), f("AH")) == 31


# R4.1 sequences


def test_r4_1_three_consecutive_cards_of_one_suit_are_a_sequence() -> None:
    meld = make_meld(ids("5C 6C 7C"))
    assert meld.kind is MeldKind.SEQUENCE


def test_r4_1_two_cards_are_not_a_meld() -> None:
    assert refusal("5C 6C").rule == "R4.1"


def test_r4_1_k_a_2_is_not_a_sequence() -> None:
    err = refusal("KH AH 2H")
    assert err.rule == "R4.1"
    assert "never between" in err.reason and err.code == "ACE_IN_THE_MIDDLE"


def test_r4_1_k_a_2_with_a_joker_is_not_a_sequence_either() -> None:
    assert not is_valid_meld(ids("QH KH AH JK"), f("2H"))
    assert not is_valid_meld(ids("JK AH 2H"), f("KH"))


def test_r4_1_mixed_suits_are_not_a_sequence() -> None:
    assert refusal("5C 6D 7C").rule == "R4"


def test_r4_1_a_gap_is_not_a_sequence() -> None:
    assert refusal("5C 6C 8C").rule == "R4.1"


def test_r4_1_a_sequence_is_laid_low_to_high() -> None:
    assert refusal("7C 6C 5C").rule == "R4.1"


def test_r4_1_ace_to_king_is_13_cards() -> None:
    meld = make_meld(ids("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"))
    assert len(meld.cards) == 13
    assert meld.points == 1 + sum(range(2, 11)) + 30


def test_r4_1_two_real_aces_never_in_one_sequence() -> None:
    err = refusal("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH")
    assert err.rule == "R4.1"


def test_r4_1_longest_sequence_is_a_to_k_plus_joker_14_cards() -> None:
    meld = make_meld(ids("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH JK"), f("AH"))
    assert len(meld.cards) == 14
    assert meld.low == 1 and meld.high == 14


def test_r4_1_nothing_goes_below_the_low_ace_or_above_the_high_one() -> None:
    assert not declarations(ids("JK AH 2H"))
    assert not is_valid_meld(ids("KH AH JK"), f("2H"))


# R4.2 groups


def test_r4_2_three_of_a_rank_in_different_suits_are_a_group() -> None:
    assert make_meld(ids("9H 9D 9S")).kind is MeldKind.GROUP


def test_r4_2_four_of_a_rank_in_four_suits_are_a_group() -> None:
    assert meld_points(ids("9H 9D 9S 9C")) == 36


def test_r4_2_two_nines_of_hearts_can_never_be_in_one_group() -> None:
    err = refusal("9H 9H 9S")
    assert err.rule == "R4.2"
    assert "two 9H" in err.reason


def test_r4_2_a_group_has_at_most_four_cards_joker_included() -> None:
    assert refusal("9H 9D 9S 9C JK", "9H").rule in ("R4.2", "R4.4")
    assert not is_valid_meld(ids("9H 9D 9S 9C JK"))


# R4.3 jokers per meld


def test_r4_3_at_most_one_joker_per_meld() -> None:
    assert refusal("5C JK JK 8C").rule == "R4.3"


def test_r4_3_a_meld_needs_two_real_cards() -> None:
    assert refusal("JK JK 5C").rule == "R4.3"


# R4.4 joker declarations


def test_r4_4_in_a_sequence_the_place_decides_jk_2_3_is_a_2_3() -> None:
    assert declarations(ids("JK 2H 3H")) == (f("AH"),)
    assert make_meld(ids("JK 2H 3H"), f("AH")).points == 6


def test_r4_4_in_a_sequence_the_place_decides_2_3_jk_is_2_3_4() -> None:
    assert declarations(ids("2H 3H JK")) == (f("4H"),)
    assert make_meld(ids("2H 3H JK"), f("4H")).points == 9


def test_r4_4_a_declaration_against_the_place_is_refused() -> None:
    err = refusal("2H 3H JK", "AH")
    assert err.rule == "R4.4"
    assert "4H" in err.reason


def test_r4_4_a_joker_must_always_be_declared() -> None:
    assert refusal("7D JK 9D").rule == "R4.4"


def test_r4_4_in_a_group_of_four_the_missing_suit_decides() -> None:
    assert declarations(ids("9H 9D 9S JK")) == (f("9C"),)
    assert refusal("9H 9D 9S JK", "9H").rule == "R4.4"


def test_r4_4_in_a_group_of_three_the_player_names_a_missing_suit() -> None:
    assert set(declarations(ids("9H 9D JK"))) == {f("9C"), f("9S")}
    assert make_meld(ids("9H 9D JK"), f("9S")).joker_as == f("9S")
    assert refusal("9H 9D JK", "9D").rule == "R4.4"
    assert refusal("9H 9D JK", "8S").rule == "R4.4"


def test_r4_4_declaring_a_joker_that_is_not_there_is_refused() -> None:
    assert refusal("9H 9D 9S", "9C").rule == "R4.4"


def test_r4_5_a_sequence_identical_to_one_on_the_table_may_be_laid() -> None:
    pool = CardPool()
    first, second = pool.meld("4D 5D 6D"), pool.meld("4D 5D 6D")
    assert first.stands_for == second.stands_for and first.cards != second.cards


# R4.6 max_run


def test_r4_6_a_six_card_sequence_is_split_into_two_threes() -> None:
    meld = make_meld(ids("3C 4C 5C 6C 7C 8C"))
    pieces = split_run(meld, 5)
    assert [len(p.cards) for p in pieces] == [3, 3]
    assert pieces[1].low == 6


def test_r4_6_a_longer_sequence_is_split_as_the_player_chooses() -> None:
    meld = make_meld(ids("3C 4C 5C 6C 7C 8C 9C"))
    with pytest.raises(RuleViolation) as info:
        split_run(meld, 5)
    assert info.value.rule == "R4.6"
    assert [len(p.cards) for p in split_run(meld, 5, (4, 3))] == [4, 3]
    with pytest.raises(RuleViolation):
        split_run(meld, 5, (2, 5))
    with pytest.raises(RuleViolation):
        split_run(meld, 5, (6, 1))


def test_r4_6_off_means_no_split() -> None:
    meld = make_meld(ids("3C 4C 5C 6C 7C 8C 9C"))
    assert split_run(meld, None) == (meld,)


def test_r4_6_the_joker_keeps_its_declaration_in_its_run() -> None:
    meld = make_meld(ids("3C 4C JK 6C 7C 8C"), f("5C"))
    low, high = split_run(meld, 5)
    assert low.joker_as == f("5C") and high.joker is None


# R5.1 opening check of proposed melds


def test_r5_1_opening_check_57_opens_and_37_does_not() -> None:
    ok = check_opening([ProposedMeld(ids("9H 9D 9C")), ProposedMeld(ids("10S JS QS"))])
    assert (ok.total, ok.would_open) == (57, True)
    short = check_opening([ProposedMeld(ids("4H 4D 4C")), ProposedMeld(ids("3S 4S 5S 6S 7S"))])
    assert (short.total, short.would_open) == (37, False)


def test_r5_1_opening_check_reports_each_meld_with_joker_and_rule() -> None:
    check = check_opening(
        [ProposedMeld(ids("7D JK 9D"), f("8D")), ProposedMeld(ids("KH AH 2H"))], 40
    )
    good, bad = check.melds
    assert good.valid and good.points == 24 and good.joker_as == f("8D")
    assert good.kind is MeldKind.SEQUENCE
    assert not bad.valid and bad.rule == "R4.1" and bad.reason
    assert check.total == 24 and not check.would_open


def test_r5_1_opening_check_refuses_a_card_used_twice() -> None:
    cards = ids("9H 9D 9C")
    check = check_opening([ProposedMeld(cards), ProposedMeld(cards)])
    assert not check.would_open and check.melds[1].rule == "R4"


# R6 attaching, R7 swapping


def test_r6_1_a_card_extends_a_sequence_at_either_end() -> None:
    meld = make_meld(ids("5C 6C 7C"))
    low, high = ids("4C 8C")
    assert face_text(attach(meld, (low,)).cards[0]) == "4C"
    assert attach(meld, (high, low)).low == 4


def face_text(card: int) -> str:
    from scala40_net.cards import card_text

    return card_text(card)


def test_r6_1_a_card_that_does_not_fit_is_refused() -> None:
    meld = make_meld(ids("5C 6C 7C"))
    with pytest.raises(RuleViolation) as info:
        attach(meld, ids("9C"))
    assert info.value.rule == "R6.1"
    assert not can_attach(meld, ids("5D")[0])


def test_r6_1_a_group_takes_its_missing_suits_only() -> None:
    pool = CardPool()
    meld = pool.meld("9H 9D 9C")
    assert len(attach(meld, pool.cards("9S")).cards) == 4
    with pytest.raises(RuleViolation) as info:
        attach(meld, pool.cards("9H"))
    assert info.value.rule == "R4.2"


def test_r6_1_an_ace_goes_above_the_king() -> None:
    meld = make_meld(ids("JS QS KS"))
    assert attach(meld, ids("AS")).high == 14


def test_r6_1_an_ace_goes_below_the_two() -> None:
    meld = make_meld(ids("2S 3S 4S"))
    assert attach(meld, ids("AS")).low == 1


def test_r6_1_nothing_attaches_above_a_high_ace() -> None:
    meld = make_meld(ids("QS KS AS"))
    assert not can_attach(meld, ids("2S")[0])


def test_r6_2_a_joker_may_be_attached_to_a_meld_without_one() -> None:
    meld = make_meld(ids("5C 6C 7C"))
    grown = attach(meld, ids("JK"), f("8C"))
    assert grown.joker_as == f("8C") and grown.high == 8
    assert set(joker_attach_faces(meld)) == {f("4C"), f("8C")}


def test_r6_2_an_attached_joker_must_be_declared() -> None:
    meld = make_meld(ids("5C 6C 7C"))
    with pytest.raises(RuleViolation) as info:
        attach(meld, ids("JK"))
    assert info.value.rule == "R4.4"
    assert "4C" in info.value.reason and "8C" in info.value.reason


def test_r6_2_a_second_joker_cannot_be_attached() -> None:
    pool = CardPool()
    meld = pool.meld("5C JK=6C 7C")
    (second,) = pool.cards("JK")
    with pytest.raises(RuleViolation) as info:
        attach(meld, (second,), f("8C"))
    assert info.value.rule == "R4.3"
    assert not can_attach(meld, second)


def test_r6_2_a_joker_completes_a_group_of_three_as_the_missing_suit() -> None:
    meld = make_meld(ids("9H 9D 9C"))
    assert attach(meld, ids("JK"), f("9S")).joker_as == f("9S")
    with pytest.raises(RuleViolation):
        attach(meld, ids("JK"), f("9H"))


def test_r6_3_extending_a_sequence_never_moves_its_joker() -> None:
    meld = make_meld(ids("5C JK 7C"), f("6C"))
    grown = attach(meld, ids("4C 8C"))
    assert grown.joker_as == f("6C")
    assert grown.joker_position == 2
    with pytest.raises(RuleViolation):
        attach(meld, ids("6C"))


def test_r6_3_a_card_the_group_joker_stands_for_is_swapped_not_attached() -> None:
    meld = make_meld(ids("9H 9D JK"), f("9S"))
    with pytest.raises(RuleViolation) as info:
        attach(meld, ids("9S"))
    assert "R7.1" in info.value.reason


def test_r7_1_the_exact_card_takes_the_jokers_place() -> None:
    meld = make_meld(ids("5C JK 7C"), f("6C"))
    (six,) = ids("6C")
    swapped, joker = swap_joker(meld, six)
    assert six in swapped.cards and joker not in swapped.cards
    assert swapped.joker is None and swapped.points == meld.points


def test_r7_1_another_card_cannot_take_the_jokers_place() -> None:
    meld = make_meld(ids("5C JK 7C"), f("6C"))
    with pytest.raises(RuleViolation) as info:
        swap_joker(meld, ids("6D")[0])
    assert info.value.rule == "R7.1"
    with pytest.raises(RuleViolation):
        swap_joker(make_meld(ids("5C 6C 7C")), ids("6C")[0])


def test_r7_1_the_joker_for_the_second_ace_of_a_14_card_sequence_stays() -> None:
    meld = make_meld(ids("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH JK"), f("AH"))
    with pytest.raises(RuleViolation) as info:
        swap_joker(meld, ids("AH")[0])
    assert info.value.rule in ("R4.1", "R7.1")


def test_r7_1_a_group_joker_is_swapped_by_its_declared_suit() -> None:
    meld = make_meld(ids("9H 9D JK"), f("9S"))
    swapped, _ = swap_joker(meld, ids("9S")[0])
    assert [str(x) for x in swapped.stands_for] == ["9H", "9D", "9S"]


def test_r4_4_declarations_are_kept_in_the_meld_for_everyone_to_see() -> None:
    meld = make_meld(ids("JK 2H 3H"), f("AH"))
    assert [str(x) for x in meld.stands_for] == ["AH", "2H", "3H"]
    assert str(meld) == "JK 2H 3H (JK=AH)"


def test_suits_constants_are_the_card_suits() -> None:
    assert tuple(Suit) == (H, D, C, S)
