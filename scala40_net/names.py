"""Names people read: a player's or a table's name checked, any name from the network made
printable, and names compared as they look, so nobody passes for somebody else.

A name is shown on other people's terminals: control characters (escape
sequences, NUL, newlines) and format ones (the bidirectional overrides that
make a name read backwards, zero-width characters) have no place in it. Two
names that look alike are one name: ``fold`` maps each to its look
(compatibility forms, accents, case, and letters of other scripts drawn like
Latin ones, after Unicode's confusables, UTS #39), so ``Bоt 1`` with a
Cyrillic о is ``Bot 1``.
"""

from __future__ import annotations

import unicodedata

# Control, format, surrogate, private-use and unassigned code points.
UNPRINTABLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
# Letters and symbols drawn as nothing at all (the Hangul fillers, the blank Braille pattern):
# "Anna" and "Anna" with one of them after it would read the same.
INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800")

# Letters drawn like Latin ones, before case folding (an upper-case Greek Eta looks like H,
# a lower-case one like n). From UTS #39's confusables, for the scripts a name mixes in most:
# Cyrillic, Greek, Armenian, and Latin letters of other alphabets (IPA, dotless i).
_LOOKS_LATIN = str.maketrans(
    {
        # Cyrillic capitals
        "А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H", "І": "I", "Ј": "J", "К": "K",
        "М": "M", "О": "O", "Р": "P", "Ѕ": "S", "Т": "T", "Х": "X", "У": "Y", "Ү": "Y",
        "Ԁ": "D", "Ԛ": "Q", "Ԝ": "W", "Һ": "H", "Ӏ": "l", "З": "3", "Ь": "b",
        # Cyrillic small letters
        "а": "a", "в": "b", "с": "c", "е": "e", "һ": "h", "і": "i", "ј": "j", "к": "k",
        "о": "o", "р": "p", "ѕ": "s", "х": "x", "у": "y", "ү": "y", "ԁ": "d", "ԛ": "q",
        "ԝ": "w", "ӏ": "l", "г": "r", "п": "n", "ь": "b", "т": "t", "м": "m", "н": "h",
        "з": "3",
        # Greek capitals
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
        "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
        # Greek small letters
        "α": "a", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "σ": "o", "τ": "t",
        "υ": "u", "χ": "x", "ω": "w", "η": "n", "ε": "e", "γ": "y", "μ": "u",
        # Armenian
        "օ": "o", "ս": "u", "ց": "g", "հ": "h", "ո": "n", "Տ": "S", "Օ": "O",
        # Latin letters of other alphabets
        "ı": "i", "ȷ": "j", "ɑ": "a", "ɡ": "g", "ʏ": "y", "ɪ": "i", "ʀ": "r", "ᴅ": "d",
        "ꞵ": "b", "ſ": "s",
    }
)  # fmt: skip
# After case folding: the digits and strokes drawn like letters (l, I, 1 and | in many fonts).
_LOOKS_LIKE = str.maketrans({"0": "o", "1": "l", "i": "l", "|": "l"})
# Letter pairs drawn like one letter.
_PAIRS = (("rn", "m"), ("vv", "w"))

_DIGIT_LIKE = "lio"  # letters a digit may pass for, once folded


class BadName(ValueError):
    """A name that cannot be taken: its sentence says why."""


def printable(text: str) -> str:
    """``text`` as a terminal may show it: unprintable characters removed, one line, spaces
    collapsed (for names read from the network, which are refused nowhere)."""
    kept = "".join(
        ch for ch in text if unicodedata.category(ch) not in UNPRINTABLE and ch not in INVISIBLE
    )
    return " ".join(kept.split())


def check_name(given: str, what: str, longest: int) -> str:
    """``given`` as a name people read (``what``: "a player name", "a table name"), its spaces
    collapsed; ``BadName`` when it is too long or empty, or holds what cannot be shown."""
    # Before the spaces are collapsed: a newline or a tab is a control character too.
    if any(unicodedata.category(ch) in UNPRINTABLE or ch in INVISIBLE for ch in given):
        raise BadName(f"{what} is printable text only: no control, format or invisible characters")
    name = " ".join(given.split())
    if not 1 <= len(name) <= longest:
        raise BadName(f"{what} has 1 to {longest} characters")
    return name


def _letters(name: str) -> str:
    """``name`` in case-folded Latin letters where it is drawn with them (no accents)."""
    decomposed = unicodedata.normalize("NFKD", name)
    letters = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return letters.translate(_LOOKS_LATIN).casefold()


def fold(name: str) -> str:
    """What ``name`` looks like: two names with one fold are one name to the people reading."""
    folded = _letters(name).translate(_LOOKS_LIKE)
    for pair, letter in _PAIRS:
        folded = folded.replace(pair, letter)
    return " ".join(folded.split())


def is_bots(name: str) -> bool:
    """Whether ``name`` looks like a name the host gives its bots: "Bot", then nothing, or
    no letter, or only letters drawn like digits ("Bot 2", "BOT-2", "B0t1", "Botl");
    "Botticelli" is a person's."""
    letters = _letters(name)
    head, rest = letters[:3].translate(_LOOKS_LIKE), letters[3:]
    if head != "bot":
        return False
    return not rest[:1].isalpha() or all(not ch.isalpha() or ch in _DIGIT_LIKE for ch in rest)
