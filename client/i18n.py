"""Every word the terminal client shows, in Italian and English, and how the language is chosen.

The English sentences are in ``client/messages.py`` by key; the Italian ones in
the gettext catalogue ``client/locale/it/LC_MESSAGES/scala40_client.po`` (the
key is the message context), compiled to the ``.mo`` beside it by ``make
messages``. The Italian text uses the game's own terms (smazzata, mazziere,
tallone, pozzo, apertura, calare, attaccare, jolly, chiudere …). Messages are
``str.format`` templates: both languages of a message take the same fields
(a test holds them to it).
"""

from __future__ import annotations

import functools
import gettext
import os
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from client.messages import ENGLISH

Lang = Literal["it", "en"]
LANGS: tuple[Lang, ...] = ("it", "en")
LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "scala40_client"


@functools.cache
def catalogue(lang: str) -> gettext.NullTranslations:
    """The compiled catalogue of ``lang``; English is the messages themselves."""
    if lang == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang])


def translated(key: str, lang: str) -> str:
    return catalogue(lang).pgettext(key, ENGLISH[key])


# key -> (italiano, english), for the consistency tests and anyone listing the messages.
MESSAGES: dict[str, tuple[str, str]] = {
    key: (translated(key, "it"), en) for key, en in ENGLISH.items()
}


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def template_fields(key: str) -> tuple[set[str], set[str]]:
    """The fields of both language templates of ``key`` (for the consistency test)."""
    it, en = MESSAGES[key]
    return _fields(it), _fields(en)


class Text:
    """Messages in one language: ``text("cards_in_hand", n=3)``."""

    def __init__(self, lang: Lang) -> None:
        self.lang: Lang = lang

    def __call__(self, key: str, **fields: object) -> str:
        template = translated(key, self.lang)
        return template.format(**fields) if fields else template


def detect_lang(choice: str | None = None, environ: Mapping[str, str] | None = None) -> Lang:
    """``--lang`` if given, else the locale (LC_ALL, LC_MESSAGES, LANG): Italian for ``it*``."""
    if choice:
        if choice not in LANGS:
            raise ValueError(f"language {choice!r}: choose it or en")
        return choice
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = env.get(var, "")
        if value:
            return "it" if value.lower().startswith("it") else "en"
    return "en"
