"""Card names as typed: each language's own letters, the symbols and the screen's labels in both."""

from __future__ import annotations

import pytest

from client.cardtext import face_label, read_face, typed_label
from client.commands import CommandError, PlanMeldCmd, parse_card_face, parse_command
from scala40_net.cards import Face, Suit

EVERY_FACE = [Face(0, None)] + [Face(r, s) for s in Suit for r in range(1, 14)]


@pytest.mark.parametrize("lang", ["en", "it"])
def test_every_card_typed_as_printed_is_the_same_card(lang: str) -> None:
    for f in EVERY_FACE:
        assert read_face(typed_label(f, lang), lang) == f, typed_label(f, lang)
        assert read_face(typed_label(f, lang).lower(), lang) == f
        assert read_face(face_label(f), lang) == f, face_label(f)  # what the screen shows


def test_the_printed_names_of_a_language_are_all_different() -> None:
    for lang in ("en", "it"):
        assert len({typed_label(f, lang) for f in EVERY_FACE}) == len(EVERY_FACE)


def test_italian_figures_are_fante_donna_re() -> None:
    assert typed_label(Face(11, Suit.CLUBS), "it") == "FF"  # fante di fiori
    assert typed_label(Face(12, Suit.DIAMONDS), "it") == "DQ"  # donna di quadri
    assert typed_label(Face(13, Suit.SPADES), "it") == "RP"  # re di picche
    assert parse_card_face("rc", "it") == Face(13, Suit.HEARTS)
    # The screen's J Q K are understood in Italian too, and the position says rank or suit.
    assert parse_card_face("QQ", "it") == Face(12, Suit.DIAMONDS)
    meld = parse_command("cala DQ DF DP", "it")
    assert isinstance(meld, PlanMeldCmd)
    assert [s.face for s in meld.cards] == [Face(12, s) for s in (1, 2, 3)]


def test_suit_symbols_mean_the_same_suit_in_both_languages() -> None:
    for lang in ("en", "it"):
        assert parse_card_face("7♣", lang) == Face(7, Suit.CLUBS)
        assert parse_card_face("K♥", lang) == Face(13, Suit.HEARTS)
    assert parse_card_face("7C", "en") == Face(7, Suit.CLUBS)
    assert parse_card_face("7C", "it") == Face(7, Suit.HEARTS)  # cuori


def test_english_does_not_read_the_italian_figures() -> None:
    with pytest.raises(CommandError) as wrong:
        parse_card_face("RS", "en")
    assert wrong.value.key == "err_bad_rank"
