"""Cards as a player types and reads them: symbols on screen, letters of the chosen language.

In English the suit letters are H D C S and the figures J Q K; an Italian player
reads C as *cuori* and Q as *quadri*, so in Italian the suits are C (cuori)
Q (quadri) F (fiori) P (picche) and the figures F (fante) D (donna) R (re).
A letter is a rank before the last one and a suit as the last one, so ``FF`` is
the fante di fiori and ``DQ`` the donna di quadri. The same suit letter means a
different suit in each language, so each language reads only its own suit
letters; the symbols ♥ ♦ ♣ ♠ are read in both, and so are the figures J Q K the
screen shows: what the screen shows (``K♠``) can be typed in either language.
"""

from __future__ import annotations

from scala40_net.cards import RANK_BY_TEXT, RANK_TEXT, Face, Suit

# Suit letters in Suit order (hearts, diamonds, clubs, spades), per language.
SUIT_LETTERS: dict[str, str] = {"en": "HDCS", "it": "CQFP"}
# The figures' letters (fante/jack, donna/queen, re/king), per language.
FIGURE_LETTERS: dict[str, dict[int, str]] = {
    "en": {11: "J", 12: "Q", 13: "K"},
    "it": {11: "F", 12: "D", 13: "R"},
}
SYMBOLS = {"♥": Suit.HEARTS, "♦": Suit.DIAMONDS, "♣": Suit.CLUBS, "♠": Suit.SPADES}
SYMBOLS |= {"♡": Suit.HEARTS, "♢": Suit.DIAMONDS, "♧": Suit.CLUBS, "♤": Suit.SPADES}
JOKER_WORDS = ("JK", "JOKER", "JOLLY")


def _ranks(lang: str) -> dict[str, int]:
    """The rank texts ``lang`` reads: A, 2-10, J Q K, and its own figures' letters."""
    return RANK_BY_TEXT | {letter: rank for rank, letter in FIGURE_LETTERS[lang].items()}


def face_label(f: Face) -> str:
    """A face as the screen shows it in both languages: ``7♥``, ``10♦``, ``K♠``, ``JK``."""
    if f.suit is None:
        return "JK"
    return f"{RANK_TEXT.get(f.rank, str(f.rank))}{f.suit.symbol}"


def typed_label(f: Face, lang: str) -> str:
    """A face as it is typed in ``lang``: ``7H``, ``KS`` in English; ``7C`` (cuori), ``RP``
    (re di picche) in Italian."""
    if f.suit is None:
        return "JK"
    rank = FIGURE_LETTERS[lang].get(f.rank) or RANK_TEXT.get(f.rank, str(f.rank))
    return f"{rank}{SUIT_LETTERS[lang][f.suit]}"


class FaceTextError(ValueError):
    """Text that names no card; ``part`` says what is wrong: "card", "suit" or "rank"."""

    def __init__(self, part: str) -> None:
        super().__init__(part)
        self.part = part


def read_face(word: str, lang: str) -> Face:
    """A face from ``7H`` / ``7C`` (by language), ``RP`` in Italian, ``10♦``, ``JK``;
    raises ``FaceTextError``."""
    text = word.strip().upper()
    if text in JOKER_WORDS:
        return Face(0, None)
    if len(text) < 2:
        raise FaceTextError("card")
    rank_text, suit_text = text[:-1], text[-1]
    letters = SUIT_LETTERS[lang]
    ranks = _ranks(lang)
    suit = SYMBOLS.get(word.strip()[-1])
    if suit is None and suit_text in letters:
        suit = Suit(letters.index(suit_text))
    if rank_text not in ranks and suit is None:
        raise FaceTextError("card")
    if suit is None:
        raise FaceTextError("suit")
    if rank_text not in ranks:
        raise FaceTextError("rank")
    return Face(ranks[rank_text], suit)
