"""What a captured terminal screen may show: rows cut at the edge, English on an Italian screen.

Both checks read the client's own catalogues (``client.i18n.MESSAGES``) and the
engine's refusal catalogue (``scala40_net/locale``), so a sentence added to the
game is known here without a list to keep up to date.

A row is cut when text reaches the screen's last column (or a box's right border)
and its last word is not a whole word of any sentence of that language, nor one
of the values the sentences are filled with (names, numbers, cards, the host's
fingerprint, a path): ``(reconnectin``, ``8746-8336-``, ``(nuovo`` are cut.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterable
from pathlib import Path

from babel.messages.pofile import read_po

from client.i18n import MESSAGES

ROOT = Path(__file__).resolve().parent.parent
ENGINE_PO = ROOT / "scala40_net" / "locale" / "it" / "LC_MESSAGES" / "scala40.po"

# The frame of panels and boxes: a row ending in one of these has its text before it.
BORDERS = "│┃║┐┘┤╮╯"
RULES = set("─━═┌└├┬┴┼╭╰|")
CARD = r"(?:10|[2-9AJQK])[♥♦♣♠]|JK"
# The one-letter words that end a sentence's row: "12 s", "a", "e", "o", "è".
ONE_LETTER_WORDS = frozenset("saeoèiAI")
# Values a sentence is filled with, whole: numbers and scores, cards, times, paths, ids.
VALUE = re.compile(
    rf"^[\[(]*(?:[-+]?\d+(?:[.,:/]\d+)*(?:%|s)?|{CARD}|\S*/\S+\.json|[0-9a-f]{{12}})[\])\].,:;!·]*$"
)


def _parts(template: str) -> list[str]:
    """A template's words, each field written as ``{}`` (``"({n}"`` → ``"({}"``)."""
    plain = "".join(
        literal + ("{}" if name is not None else "")
        for literal, name, _, _ in string.Formatter().parse(template)
    )
    return plain.split()


def _sentences(lang: str) -> list[str]:
    """Every template the screen of ``lang`` can show: the client's and the engine's."""
    side = 0 if lang == "it" else 1
    client = [pair[side] for pair in MESSAGES.values()]
    with ENGINE_PO.open("rb") as po:
        engine = [
            (m.string if lang == "it" else m.id)
            for m in read_po(po)
            if m.id and isinstance(m.id, str) and isinstance(m.string, str)
        ]
    # A %-style engine parameter is a field too.
    return client + [re.sub(r"%\(\w+\)[sd]", "{x}", s) for s in engine]


@functools.cache
def _whole_words(lang: str) -> tuple[frozenset[str], tuple[re.Pattern[str], ...]]:
    """The words of ``lang``'s sentences: literal ones, and patterns for words with a field."""
    literal: set[str] = set()
    patterns: list[re.Pattern[str]] = []
    for sentence in _sentences(lang):
        for word in _parts(sentence):
            if "{}" not in word:
                # A key's letter ("r refresh") is no whole word at a row's end: "(new: r" is cut.
                if len(word) > 1 or not word.isalpha() or word in ONE_LETTER_WORDS:
                    literal.add(word)
            elif word.strip("{}()[]:,.;·") != "":
                # "({}" may end in anything, but not be only a field: a lone field is a value.
                pieces = [re.escape(p) for p in word.split("{}")]
                patterns.append(re.compile("^" + r"\S+".join(pieces) + "$"))
    return frozenset(literal), tuple(patterns)


def is_whole(word: str, lang: str, values: Iterable[str]) -> bool:
    """``word`` is as the game writes it whole in ``lang`` (a value given, or a sentence's)."""
    literal, patterns = _whole_words(lang)
    if word in literal or VALUE.match(word):
        return True
    if any(word.strip("()[]:,.;·!") == value for value in values):
        return True
    return any(p.match(word) for p in patterns)


def cut_rows(screen: str, lang: str, width: int, values: Iterable[str]) -> list[str]:
    """The rows of ``screen`` whose text reaches the edge (or a right border) mid-word."""
    known = tuple(values)
    cut = []
    for row in screen.splitlines():
        text = row.rstrip()
        if len(text) >= width - 1 and text and text[-1] in BORDERS:
            text = text[:-1]  # a box's right border: its text ends before it
        elif len(text) < width:
            continue  # ends before the edge: whatever was drawn fits
        if not text or text[-1] == " " or set(text.split()[-1]) <= RULES:
            continue  # padded up to the border, or a rule across the screen
        last = text.split()[-1].lstrip("".join(RULES))
        if last and not is_whole(last, lang, known):
            cut.append(row)
    return cut


_WORD = re.compile(r"[A-Za-zÀ-ÿ]+")


@functools.cache
def english_only_words() -> frozenset[str]:
    """Words of the English sentences that the Italian ones never use (so never Italian here)."""
    english: set[str] = set()
    italian: set[str] = set()
    for sentence in _sentences("en"):
        english |= {w.lower() for w in _WORD.findall(_fields_out(sentence)) if len(w) >= 4}
    for sentence in _sentences("it"):
        italian |= {w.lower() for w in _WORD.findall(_fields_out(sentence))}
    return frozenset(english - italian)


def _fields_out(template: str) -> str:
    return "".join(literal + " " for literal, _, _, _ in string.Formatter().parse(template))


def english_on(screen: str, names: Iterable[str]) -> list[str]:
    """The English words on an Italian screen; ``names`` (of players, the table, its id, the
    host's fingerprint) and paths are not sentences, their letters are no words."""
    known = tuple(names)
    shown = " ".join(
        token
        for token in screen.split()
        if "/" not in token and not any(value in token for value in known)
    )
    words = english_only_words()
    return [w for w in _WORD.findall(shown) if w.lower() in words]
