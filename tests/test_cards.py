"""Card ids and text form (FAIR_DEAL.md "Card ids", R1.1)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scala40_net.cards import (
    JOKER,
    CardTextError,
    Face,
    Suit,
    canonical_deck,
    card_id,
    card_text,
    face,
    ids_with_face,
    is_joker,
    joker_id,
    parse_face,
    pick_from_hand,
)


def test_r1_1_two_decks_have_108_cards_8_of_each_suited_card_and_4_jokers() -> None:
    deck = canonical_deck(2)
    assert len(deck) == 108
    faces = [face(c) for c in deck]
    assert faces.count(JOKER) == 4
    assert faces.count(Face(7, Suit.HEARTS)) == 2
    for r in range(1, 14):
        assert sum(1 for f in faces if f.rank == r) == 8


def test_r1_1_one_deck_has_54_cards_and_2_jokers() -> None:
    deck = canonical_deck(1)
    assert deck == list(range(54))
    assert sum(is_joker(c) for c in deck) == 2


def test_card_ids_follow_the_fair_deal_formula() -> None:
    assert card_id(1, Suit.HEARTS, 0) == 0
    assert card_id(13, Suit.SPADES, 0) == 51
    assert card_id(10, Suit.DIAMONDS, 1) == 54 + 13 + 9
    assert joker_id(0, 0) == 52
    assert joker_id(1, 1) == 107


def test_text_form_matches_the_spec_examples() -> None:
    assert card_text(card_id(1, Suit.HEARTS)) == "AH"
    assert card_text(card_id(10, Suit.DIAMONDS)) == "10D"
    assert card_text(card_id(12, Suit.CLUBS)) == "QC"
    assert card_text(card_id(13, Suit.SPADES, 1)) == "KS"
    assert card_text(joker_id(1, 0)) == "JK"


@given(st.integers(min_value=0, max_value=107))
def test_text_round_trips_to_the_same_face(card: int) -> None:
    assert parse_face(card_text(card)) == face(card)
    assert card in ids_with_face(face(card), 2)


@pytest.mark.parametrize("bad", ["", "H", "1H", "11H", "ZH", "7X", "10", "JKK", "A♥"])
def test_bad_card_text_is_refused_with_a_sentence(bad: str) -> None:
    with pytest.raises(CardTextError, match="not a card"):
        parse_face(bad)


def test_parsing_is_case_insensitive() -> None:
    assert parse_face("qs") == Face(12, Suit.SPADES)
    assert parse_face("jk") == JOKER


def test_pick_from_hand_uses_each_card_once() -> None:
    hand = [card_id(7, Suit.HEARTS, 0), card_id(7, Suit.HEARTS, 1), joker_id()]
    assert pick_from_hand([Face(7, Suit.HEARTS)] * 2, hand) == hand[:2]
    with pytest.raises(CardTextError, match="7H is not in your hand"):
        pick_from_hand([Face(7, Suit.HEARTS)] * 3, hand)
