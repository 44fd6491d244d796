"""Cards as a player types and reads them: symbols on screen, suit letters of the chosen language.

In English the suit letters are H D C S; an Italian player reads C as *cuori*,
so in Italian they are C (cuori) Q (quadri) F (fiori) P (picche). The same
letter means a different suit in each language, so each language reads only
its own letters; the symbols ♥ ♦ ♣ ♠ are read in both.
"""

from __future__ import annotations

from scala40_net.cards import RANK_BY_TEXT, RANK_TEXT, Face, Suit

# Suit letters in Suit order (hearts, diamonds, clubs, spades), per language.
SUIT_LETTERS: dict[str, str] = {"en": "HDCS", "it": "CQFP"}
SYMBOLS = {"♥": Suit.HEARTS, "♦": Suit.DIAMONDS, "♣": Suit.CLUBS, "♠": Suit.SPADES}
SYMBOLS |= {"♡": Suit.HEARTS, "♢": Suit.DIAMONDS, "♧": Suit.CLUBS, "♤": Suit.SPADES}
JOKER_WORDS = ("JK", "JOKER", "JOLLY")


def face_label(f: Face) -> str:
    """A face as the screen shows it in both languages: ``7♥``, ``10♦``, ``K♠``, ``JK``."""
    if f.suit is None:
        return "JK"
    return f"{RANK_TEXT.get(f.rank, str(f.rank))}{f.suit.symbol}"


def typed_label(f: Face, lang: str) -> str:
    """A face as it is typed in ``lang``: ``7H`` in English, ``7C`` (cuori) in Italian."""
    if f.suit is None:
        return "JK"
    return f"{RANK_TEXT.get(f.rank, str(f.rank))}{SUIT_LETTERS[lang][f.suit]}"


class FaceTextError(ValueError):
    """Text that names no card; ``part`` says what is wrong: "card", "suit" or "rank"."""

    def __init__(self, part: str) -> None:
        super().__init__(part)
        self.part = part


def read_face(word: str, lang: str) -> Face:
    """A face from ``7H`` / ``7C`` (by language), ``10♦``, ``JK``; raises ``FaceTextError``."""
    text = word.strip().upper()
    if text in JOKER_WORDS:
        return Face(0, None)
    if len(text) < 2:
        raise FaceTextError("card")
    rank_text, suit_text = text[:-1], text[-1]
    letters = SUIT_LETTERS[lang]
    suit = SYMBOLS.get(word.strip()[-1])
    if suit is None and suit_text in letters:
        suit = Suit(letters.index(suit_text))
    if rank_text not in RANK_BY_TEXT and suit is None:
        raise FaceTextError("card")
    if suit is None:
        raise FaceTextError("suit")
    if rank_text not in RANK_BY_TEXT:
        raise FaceTextError("rank")
    return Face(RANK_BY_TEXT[rank_text], suit)
