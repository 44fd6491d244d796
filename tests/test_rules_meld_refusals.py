"""R4, R6, R7, R12: every refusal raised by melds.py, its rule, code and sentence word for word."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from scala40_net.actions import Attach, Draw, DrawSource, NewMeld, Play
from scala40_net.cards import Face, parse_face, parse_faces, pick_from_hand
from scala40_net.deal import DealState, apply
from scala40_net.errors import RuleViolation
from scala40_net.melds import ProposedMeld, attach, check_opening, make_meld, split_run, swap_joker
from scala40_net.rules import Ruleset
from scala40_net.scenario import CardPool, position


def f(text: str) -> Face:
    return parse_face(text)


def refused(call: Callable[[], object]) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        call()
    return info.value


def new_meld(text: str, joker_as: str | None = None) -> RuleViolation:
    """The refusal of ``text`` (faces, each a distinct card id) laid as a new meld."""
    cards = CardPool().cards(text)
    return refused(lambda: make_meld(cards, f(joker_as) if joker_as else None))


def attached(meld: str, cards: str, joker_as: str | None = None) -> RuleViolation:
    """The refusal of ``cards`` attached to the meld ``meld`` (``JK=5H`` declares a joker)."""
    pool = CardPool()
    target = pool.meld(meld)
    extra = pool.cards(cards)
    return refused(lambda: attach(target, extra, f(joker_as) if joker_as else None))


def swapped(meld: str, card: str) -> RuleViolation:
    """The refusal of ``card`` put in place of the joker of ``meld``."""
    pool = CardPool()
    target = pool.meld(meld)
    (extra,) = pool.cards(card)
    return refused(lambda: swap_joker(target, extra))


def cut(text: str, max_run: int | None, lengths: tuple[int, ...]) -> RuleViolation:
    """The refusal of cutting the sequence ``text`` under ``max_run`` into ``lengths``."""
    meld = CardPool().meld(text)
    return refused(lambda: split_run(meld, max_run, lengths))


def said(refusal: RuleViolation) -> tuple[str | None, str | None, str]:
    return refusal.rule, refusal.code, str(refusal)


# R4: new melds (make_meld)


def test_r4_the_same_card_listed_twice_in_a_meld() -> None:
    nine_h, nine_d = CardPool().cards("9H 9D")
    refusal = refused(lambda: make_meld((nine_h, nine_h, nine_d)))
    assert said(refusal) == ("R4", "CARD_TWICE", "R4: the same card is listed twice in 9H 9H 9D")


def test_r4_neither_a_sequence_nor_a_group() -> None:
    assert said(new_meld("9H 10D JC")) == (
        "R4",
        "NOT_A_MELD",
        "R4: 9H 10D JC is neither a sequence (one suit) nor a group (one rank)",
    )


def test_r4_1_a_meld_has_at_least_three_cards() -> None:
    # Two aces can only be a group: R4.2 says how long one is; two of a suit, R4.1.
    assert said(new_meld("AH AC")) == (
        "R4.2",
        "MELD_TOO_SHORT",
        "R4.2: a meld has at least 3 cards, AH AC has 2",
    )
    assert said(new_meld("AH 2H")) == (
        "R4.1",
        "MELD_TOO_SHORT",
        "R4.1: a meld has at least 3 cards, AH 2H has 2",
    )


def test_r4_1_ace_in_the_middle() -> None:
    assert said(new_meld("KH AH 2H")) == (
        "R4.1",
        "ACE_IN_THE_MIDDLE",
        "R4.1: KH does not fit: an ace goes below the 2 or above the K, never between them",
    )
    # A-2-3 meant with the ace low, and a K that fits nowhere: the K is what is wrong.
    assert said(new_meld("AH 2H 3H KH")) == (
        "R4.1",
        "ACE_IN_THE_MIDDLE",
        "R4.1: KH does not fit: an ace goes below the 2 or above the K, never between them",
    )
    # Either reading leaves two cards out: the ace low is the one said.
    assert said(new_meld("QH KH AH 2H 3H")) == (
        "R4.1",
        "ACE_IN_THE_MIDDLE",
        "R4.1: QH KH do not fit: an ace goes below the 2 or above the K, never between them",
    )


def test_r4_1_not_a_sequence() -> None:
    assert said(new_meld("4H 6H 7H")) == (
        "R4.1",
        "NOT_A_SEQUENCE",
        "R4.1: 4H 6H 7H is not a sequence: one suit, consecutive ranks, laid low to high",
    )


def test_r4_1_not_a_sequence_when_laid_high_to_low() -> None:
    assert said(new_meld("6H 5H 4H")) == (
        "R4.1",
        "NOT_A_SEQUENCE",
        "R4.1: 6H 5H 4H is not a sequence: one suit, consecutive ranks, laid low to high",
    )


def test_r4_1_a_new_sequence_holds_one_ace() -> None:
    assert said(new_meld("AH 2H AH")) == (
        "R4.1",
        "TWO_ACES",
        "R4.1: a sequence holds one ace only, at one end (A-2-3… or …Q-K-A)",
    )


def test_r4_2_a_group_has_no_suit_twice() -> None:
    assert said(new_meld("9H 9H 9D")) == (
        "R4.2",
        "GROUP_SUIT_TWICE",
        "R4.2: a group has cards of different suits: two 9H cannot be in one",
    )


def test_r4_2_a_group_has_at_most_four_cards() -> None:
    assert said(new_meld("9H 9D 9C 9S JK", "9S")) == (
        "R4.2",
        "GROUP_TOO_LONG",
        "R4.2: a group has at most 4 cards, joker included, not 5",
    )


def test_r4_3_a_meld_holds_at_most_one_joker() -> None:
    assert said(new_meld("9H JK JK")) == (
        "R4.3",
        "TOO_MANY_JOKERS",
        "R4.3: a meld holds at most one joker, 9H JK JK has 2",
    )


def test_r4_4_nothing_to_declare_without_a_joker() -> None:
    assert said(new_meld("9H 9D 9C", "9S")) == (
        "R4.4",
        "NO_JOKER_TO_DECLARE",
        "R4.4: 9H 9D 9C has no joker, so nothing to declare",
    )


def test_r4_4_nothing_to_declare_without_a_joker_in_a_sequence() -> None:
    assert said(new_meld("4H 5H 6H", "7H")) == (
        "R4.4",
        "NO_JOKER_TO_DECLARE",
        "R4.4: 4H 5H 6H has no joker, so nothing to declare",
    )


def test_r4_4_the_joker_of_a_group_must_declare() -> None:
    assert said(new_meld("9H 9D JK")) == (
        "R4.4",
        "JOKER_UNDECLARED",
        "R4.4: the joker must declare the card it stands for (9C or 9S)",
    )


def test_r4_4_the_joker_of_a_sequence_must_declare() -> None:
    assert said(new_meld("4S JK 6S")) == (
        "R4.4",
        "JOKER_UNDECLARED",
        "R4.4: the joker must declare the card it stands for (5S)",
    )


def test_r4_4_the_joker_of_a_sequence_stands_for_its_place() -> None:
    assert said(new_meld("4S JK 6S", "7S")) == (
        "R4.4",
        "JOKER_DECLARED_WRONG",
        "R4.4: the joker here stands for 5S, not 7S",
    )


def test_r4_4_the_joker_of_a_group_of_three_stands_for_a_missing_suit() -> None:
    assert said(new_meld("9H 9D JK", "9H")) == (
        "R4.4",
        "JOKER_DECLARED_WRONG",
        "R4.4: the joker here may stand for 9C or 9S, not 9H",
    )


# R4.6: cutting long sequences (split_run)


def test_r4_6_only_a_long_sequence_is_cut() -> None:
    assert said(cut("4H 5H 6H", None, (1, 2))) == (
        "R4.6",
        "NOTHING_TO_CUT",
        "R4.6: only a sequence longer than the longest run allowed is cut",
    )


def test_r4_6_a_long_sequence_needs_its_cut() -> None:
    assert said(cut("3H 4H 5H 6H 7H 8H 9H", 5, ())) == (
        "R4.6",
        "SAY_THE_CUT",
        "R4.6: a sequence on the table has at most 5 cards: say how to cut these 7 (3+4 or 4+3)",
    )
    assert said(cut("3H 4H 5H 6H 7H 8H 9H 10H JH", 3, ())) == (
        "R4.6",
        "SAY_THE_CUT",
        "R4.6: a sequence on the table has at most 3 cards: say how to cut these 9 (3+3+3)",
    )


def test_r4_6_a_sequence_no_cut_can_make() -> None:
    # Five cards under runs of at most 4 (3+2 is no run), seven under runs of 3.
    assert said(cut("3H 4H 5H 6H 7H", 4, ())) == (
        "R4.6",
        "CANNOT_BE_CUT",
        "R4.6: a sequence on the table has at most 4 cards, and no cut makes runs of 3 to 4 "
        "of these 5",
    )
    assert cut("3H 4H 5H 6H 7H 8H 9H", 3, (3, 4)).code == "CANNOT_BE_CUT"


def test_r4_6_a_cut_into_runs_too_short() -> None:
    assert said(cut("3H 4H 5H 6H 7H 8H 9H", 5, (2, 5))) == (
        "R4.6",
        "BAD_CUT",
        "R4.6: these 7 cards are cut 3+4 or 4+3, not 2+5",
    )


def test_r4_6_a_cut_that_does_not_add_up() -> None:
    assert said(cut("3H 4H 5H 6H 7H 8H 9H", 5, (3, 3))) == (
        "R4.6",
        "BAD_CUT",
        "R4.6: these 7 cards are cut 3+4 or 4+3, not 3+3",
    )


# R6: attaching (attach)


def test_r6_1_attach_at_least_one_card() -> None:
    assert said(attached("4H 5H 6H", "")) == (
        "R6.1",
        "ATTACH_NOTHING",
        "R6.1: attach at least one card",
    )


def test_r6_1_the_same_card_listed_twice_in_an_attach() -> None:
    pool = CardPool()
    meld = pool.meld("4H 5H 6H")
    (seven,) = pool.cards("7H")
    refusal = refused(lambda: attach(meld, (seven, seven)))
    assert said(refusal) == ("R6.1", "CARD_TWICE", "R6.1: the same card is listed twice in 7H 7H")


def test_r6_1_a_card_of_the_meld_attached_to_it_again() -> None:
    meld = CardPool().meld("4H 5H 6H")
    refusal = refused(lambda: attach(meld, meld.cards[:1]))
    assert said(refusal) == ("R6.1", "CARD_IN_MELD", "R6.1: 4H is already in the meld 4H 5H 6H")


def test_r4_3_an_attach_makes_no_meld_of_two_jokers() -> None:
    assert said(attached("4H JK=5H 6H", "JK", "7H")) == (
        "R4.3",
        "TOO_MANY_JOKERS",
        "R4.3: a meld holds at most one joker",
    )


def test_r4_2_a_group_would_have_five_cards() -> None:
    assert said(attached("9H 9D 9C 9S", "9H")) == (
        "R4.2",
        "GROUP_WOULD_BE_TOO_LONG",
        "R4.2: a group has at most 4 cards, this one would have 5",
    )


def test_r6_1_a_card_of_another_rank_does_not_fit_a_group() -> None:
    assert said(attached("9H 9D 9C", "8S")) == (
        "R6.1",
        "NOT_IN_GROUP",
        "R6.1: 8S does not fit the group 9H 9D 9C",
    )


def test_r6_1_a_card_does_not_fit_a_group_with_a_joker() -> None:
    assert said(attached("9H 9D JK=9C", "8S")) == (
        "R6.1",
        "NOT_IN_GROUP",
        "R6.1: 8S does not fit the group 9H 9D JK (JK=9C)",
    )


def test_r6_1_the_joker_already_stands_for_the_card() -> None:
    assert said(attached("9H 9D JK=9C", "9C")) == (
        "R6.1",
        "JOKER_ALREADY_STANDS",
        "R6.1: the joker already stands for 9C: swap it (R7.1) instead",
    )


def test_r4_2_a_group_has_the_suit_already() -> None:
    assert said(attached("9H 9D 9C", "9D")) == (
        "R4.2",
        "GROUP_HAS_SUIT",
        "R4.2: a group has cards of different suits: 9D is already there",
    )


def test_r4_4_nothing_to_declare_attaching_to_a_group() -> None:
    assert said(attached("9H 9D 9C", "9S", "9S")) == (
        "R4.4",
        "NOTHING_TO_DECLARE",
        "R4.4: no joker is attached, so nothing to declare",
    )


def test_r4_4_nothing_to_declare_attaching_to_a_sequence() -> None:
    assert said(attached("4H 5H 6H", "7H", "7H")) == (
        "R4.4",
        "NOTHING_TO_DECLARE",
        "R4.4: no joker is attached, so nothing to declare",
    )


def test_r4_4_a_joker_attached_to_a_group_must_declare() -> None:
    assert said(attached("9H 9D 9C", "JK")) == (
        "R4.4",
        "JOKER_UNDECLARED",
        "R4.4: the joker must declare the card it stands for (9S)",
    )


def test_r4_4_a_joker_attached_to_a_group_stands_for_the_missing_suit() -> None:
    assert said(attached("9H 9D 9C", "JK", "9D")) == (
        "R4.4",
        "JOKER_DECLARED_WRONG",
        "R4.4: the joker here stands for 9S, not 9D",
    )


def test_r4_4_a_joker_attached_to_a_sequence_must_declare_one_of_its_ends() -> None:
    assert said(attached("4H 5H 6H", "JK")) == (
        "R4.4",
        "JOKER_UNDECLARED",
        "R4.4: the attached joker must declare the card it stands for (3H or 7H)",
    )


def test_r4_4_a_joker_attached_with_a_card_must_declare() -> None:
    # Neither end (3H, 7H) lets JK and 9H extend 4H 5H 6H, so no declaration is offered.
    assert said(attached("4H 5H 6H", "JK 9H")) == (
        "R4.4",
        "JOKER_UNDECLARED",
        "R4.4: the attached joker must declare the card it stands for",
    )


def test_r4_4_a_joker_attached_to_a_sequence_stands_for_a_card_of_its_suit() -> None:
    assert said(attached("4H 5H 6H", "JK", "7S")) == (
        "R4.4",
        "JOKER_WRONG_SUIT",
        "R4.4: a joker attached here stands for a card of ♥, not 7S",
    )


def test_r4_4_a_joker_attached_to_a_sequence_is_not_declared_a_joker() -> None:
    assert said(attached("4H 5H 6H", "JK", "JK")) == (
        "R4.4",
        "JOKER_WRONG_SUIT",
        "R4.4: a joker attached here stands for a card of ♥, not JK",
    )


def test_r6_1_a_card_of_another_suit_does_not_fit_a_sequence() -> None:
    assert said(attached("4H 5H 6H", "7S")) == (
        "R6.1",
        "WRONG_SUIT",
        "R6.1: 7S is not of the suit of the sequence 4H 5H 6H",
    )


def test_r4_1_an_attach_makes_no_sequence_of_two_aces() -> None:
    assert said(attached("AH 2H 3H", "AH")) == (
        "R4.1",
        "TWO_ACES",
        "R4.1: a sequence holds one ace only, at one end (A-2-3… or …Q-K-A)",
    )


def test_r6_1_a_card_that_does_not_extend_a_sequence() -> None:
    assert said(attached("4H 5H 6H", "8H")) == (
        "R6.1",
        "DOES_NOT_EXTEND",
        "R6.1: 8H does not extend the sequence 4H 5H 6H at either end",
    )


def test_r6_1_a_declared_joker_that_does_not_extend_a_sequence() -> None:
    assert said(attached("4H 5H 6H", "JK", "9H")) == (
        "R6.1",
        "DOES_NOT_EXTEND",
        "R6.1: JK (JK=9H) does not extend the sequence 4H 5H 6H at either end",
    )


def test_r6_1_cards_that_do_not_extend_a_sequence_with_a_joker() -> None:
    assert said(attached("4H JK=5H 6H", "8H 9H")) == (
        "R6.1",
        "DOES_NOT_EXTEND",
        "R6.1: 8H 9H does not extend the sequence 4H JK 6H (JK=5H) at either end",
    )


# R7: swapping a joker (swap_joker)


def test_r7_1_a_meld_without_a_joker_has_none_to_take() -> None:
    assert said(swapped("4H 5H 6H", "5H")) == (
        "R7.1",
        "NO_JOKER",
        "R7.1: the meld 4H 5H 6H has no joker to take",
    )


def test_r7_1_only_the_card_the_joker_stands_for_takes_its_place() -> None:
    assert said(swapped("4H JK=5H 6H", "5D")) == (
        "R7.1",
        "WRONG_SWAP",
        "R7.1: the joker stands for 5H: only 5H can take its place, not 5D",
    )


def test_r7_1_a_joker_does_not_take_a_jokers_place() -> None:
    assert said(swapped("9H 9D JK=9C", "JK")) == (
        "R7.1",
        "WRONG_SWAP",
        "R7.1: the joker stands for 9C: only 9C can take its place, not JK",
    )


def test_r4_1_the_joker_for_the_second_ace_cannot_be_swapped() -> None:
    assert said(swapped("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH JK=AH", "AH")) == (
        "R4.1",
        "TWO_ACES",
        "R4.1: a sequence holds one ace only: this joker cannot be swapped for a second ace",
    )


# The stateless opening check says the same sentences, and one of its own.


def test_r4_a_card_used_in_two_proposed_melds() -> None:
    nines = CardPool().cards("9H 9D 9C")
    check = check_opening((ProposedMeld(nines), ProposedMeld(nines)))
    assert [(m.valid, m.rule, m.reason) for m in check.melds] == [
        (True, None, None),
        (False, "R4", "a card is used in two melds"),
    ]


def test_r4_1_the_opening_check_says_the_refusal_of_make_meld() -> None:
    check = check_opening((ProposedMeld(CardPool().cards("AH AC")),))
    (meld,) = check.melds
    assert (meld.valid, meld.rule, meld.reason) == (
        False,
        "R4.2",
        "a meld has at least 3 cards, AH AC has 2",
    )


# Through a play (deal.apply), the same sentences name the operation that failed.


def ids(state: DealState, seat: int, text: str) -> tuple[int, ...]:
    return tuple(pick_from_hand(parse_faces(text), state.hand(seat)))


def played(state: DealState, play: Play) -> RuleViolation:
    drawn = apply(state, state.turn, Draw(DrawSource.STOCK))[0]
    return refused(lambda: apply(drawn, drawn.turn, play))


def test_r4_6_a_new_meld_in_a_play_needs_its_cut() -> None:
    state = position(Ruleset(max_run=5), hands={0: "3H 4H 5H 6H 7H 8H 9H 2C", 1: ""}, opened=[0])
    play = Play((NewMeld(ids(state, 0, "3H 4H 5H 6H 7H 8H 9H")),), ids(state, 0, "2C")[0])
    assert said(played(state, play)) == (
        "R4.6",
        "SAY_THE_CUT",
        "R4.6: operation 1: a sequence on the table has at most 5 cards: "
        "say how to cut these 7 (3+4 or 4+3)",
    )


def test_r6_1_an_attach_in_a_play_that_does_not_extend() -> None:
    state = position(hands={0: "8H 2C", 1: ""}, table=["4H 5H 6H"], opened=[0])
    play = Play((Attach(0, ids(state, 0, "8H")),), ids(state, 0, "2C")[0])
    assert said(played(state, play)) == (
        "R6.1",
        "DOES_NOT_EXTEND",
        "R6.1: operation 1: 8H does not extend the sequence 4H 5H 6H at either end",
    )
