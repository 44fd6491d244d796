"""The client's words: every message in both languages with the same fields; choosing one."""

from __future__ import annotations

import pytest

from client.i18n import MESSAGES, Text, detect_lang, template_fields
from client.messages import ENGLISH


@pytest.mark.parametrize("key", sorted(MESSAGES))
def test_every_message_has_both_languages_with_the_same_fields(key: str) -> None:
    it, en = MESSAGES[key]
    assert it.strip() and en.strip()
    fields_it, fields_en = template_fields(key)
    assert fields_it == fields_en, key


def test_italian_uses_the_games_own_terms() -> None:
    it = Text("it")
    assert "tallone" in it("stock", n=5).lower()
    assert "pozzo" in it("discard_pile", top="7♥", n=3).lower()
    assert "mazziere" in it("table_title", table="T", deal=1, dealer="Ada")
    assert "smazzata" in it("table_title", table="T", deal=1, dealer="Ada")
    assert "apre" in it("log_opened", name="Ada", points=41)
    assert "chiude" in it("log_went_out", name="Ada")


def test_english_glosses_the_italian_terms() -> None:
    en = Text("en")
    assert "(tallone)" in en("stock", n=5)
    assert "(pozzo)" in en("discard_pile", top="7♥", n=3)
    assert "(apertura)" in en("log_opened", name="Ada", points=41)


def test_the_flag_wins_over_the_locale() -> None:
    assert detect_lang("en", {"LANG": "it_IT.UTF-8"}) == "en"
    assert detect_lang("it", {"LANG": "en_US.UTF-8"}) == "it"


def test_the_locale_decides_without_a_flag() -> None:
    assert detect_lang(None, {"LANG": "it_IT.UTF-8"}) == "it"
    assert detect_lang(None, {"LC_ALL": "en_GB.UTF-8", "LANG": "it_IT.UTF-8"}) == "en"
    assert detect_lang(None, {}) == "en"


def test_an_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError):
        detect_lang("fr", {})


def test_the_client_catalogue_is_current_and_complete() -> None:
    import io
    from pathlib import Path

    from babel.messages.extract import extract_from_file
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    import client.messages

    po = Path(client.messages.__file__).parent / "locale/it/LC_MESSAGES/scala40_client.po"
    with po.open("rb") as f:
        catalog = read_po(f)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    assert po.with_suffix(".mo").read_bytes() == compiled.getvalue(), "run make messages"
    extracted = {
        (context, message)
        for _, message, _, context in extract_from_file(
            "python", client.messages.__file__, keywords={"M": ((1, "c"), 2)}
        )
    }
    translated = {(m.context, m.id) for m in catalog if m.id and m.string}
    assert extracted == set(ENGLISH.items()), "every M(key, english) is extracted"
    assert extracted <= translated, sorted(extracted - translated)


def test_the_italian_comes_from_the_catalogue() -> None:
    assert Text("it")("status_refused", reason="x") == "Rifiutata — x"
    assert MESSAGES["stock"] == ("Tallone: {n}", "Stock (tallone): {n}")
