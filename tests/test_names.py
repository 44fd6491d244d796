"""Names people read: checked as printable, compared as they look (``scala40_net.names``)."""

from __future__ import annotations

import string
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scala40_net import names

LOOK_ALIKES = [
    ("Bot 1", "Bоt 1"),  # Cyrillic о
    ("Anna", "Аnna"),  # Cyrillic А
    ("Paolo", "Ρaolo"),  # Greek Rho
    ("Marco", "Ｍａｒｃｏ"),  # full-width
    ("Nicolò", "Nicolo"),  # an accent
    ("Luca", "luca"),  # case
    ("Ilaria", "1laria"),  # a digit drawn like the letter
    ("Carmen", "Carrnen"),  # rn drawn like m
    ("Oscar", "0scar"),
]


@pytest.mark.parametrize(("name", "look_alike"), LOOK_ALIKES)
def test_names_that_look_alike_fold_to_one(name: str, look_alike: str) -> None:
    assert name != look_alike and names.fold(name) == names.fold(look_alike)


@pytest.mark.parametrize(
    ("one", "other"), [("Anna", "Anne"), ("Bot", "Botticelli"), ("Ugo", "Ego")]
)
def test_names_that_look_different_stay_apart(one: str, other: str) -> None:
    assert names.fold(one) != names.fold(other)


@pytest.mark.parametrize(
    "name", ["Bot", "Bot 3", "bot", "BOT-2", "Bоt 1", "B0t 4", "Bot1", "Botl", "Bot Anna"]
)
def test_the_host_bots_names_and_their_look_alikes_are_the_bots(name: str) -> None:
    assert names.is_bots(name)


@pytest.mark.parametrize("name", ["Botticelli", "Roberto", "Abbot"])
def test_a_name_that_merely_contains_bot_is_a_person_s(name: str) -> None:
    assert not names.is_bots(name)


@pytest.mark.parametrize(
    "name",
    [
        "ann\x00",
        "\x1b[2J\x1b[31mSala",
        "abc\u202edcba",
        "zero\u200bwidth",
        "two\nlines",
        "tab\t",
        "Anna\u3164",  # a Hangul filler: a letter drawn as nothing
    ],
)
def test_a_name_with_what_a_terminal_cannot_show_is_refused(name: str) -> None:
    with pytest.raises(names.BadName, match="printable text only"):
        names.check_name(name, "a table name", 40)


def test_a_name_is_trimmed_its_spaces_collapsed_and_bounded() -> None:
    assert names.check_name("  Sala   grande ", "a table name", 40) == "Sala grande"
    for bad in ("", "   ", "x" * 41):
        with pytest.raises(names.BadName, match="1 to 40 characters"):
            names.check_name(bad, "a table name", 40)


@given(st.text(max_size=60))
def test_what_printable_gives_is_one_line_a_terminal_shows_as_it_reads(text: str) -> None:
    shown = names.printable(text)
    assert all(unicodedata.category(ch) not in names.UNPRINTABLE for ch in shown)
    assert not set(shown) & names.INVISIBLE
    assert shown == " ".join(shown.split())


@given(st.text(max_size=30))
def test_folding_is_idempotent(name: str) -> None:
    once = names.fold(name)
    assert names.fold(once) == once


@given(st.text(alphabet=string.ascii_letters + string.digits + " ", max_size=30))
def test_a_latin_name_folds_the_same_in_any_case(name: str) -> None:
    assert names.fold(name.upper()) == names.fold(name.lower()) == names.fold(name)
