"""The engine's refusals in a player's language, from the gettext catalogues in ``locale/``.

A refusal made with ``errors.refuse`` keeps its English template: that is the
message id the catalogues translate (``make messages`` extracts the templates
with Babel, updates ``locale/<lang>/LC_MESSAGES/scala40.po`` and compiles the
``.mo`` beside it). Its parameters are written for the screen: cards as
``A♣``, not ``AC``, in every language. A refusal without a template (one not
yet given a reason code) keeps its English sentence.
"""

from __future__ import annotations

import functools
import gettext
from pathlib import Path

from scala40_net.cards import RANK_TEXT, Face, Suit, face
from scala40_net.errors import Choices, Cuts, RuleViolation
from scala40_net.melds import Meld

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "scala40"
LANGS = ("en", "it")


def N_(message: str) -> str:
    """Marks a message for extraction; it is translated where it is used."""
    return message


# Words the engine passes into its sentences as parameters.
WORDS = (
    N_("attach"),
    N_("swap a joker"),
    N_("nobody"),
    N_("a player who has not opened"),
)
OPERATION = N_("operation {n}: ")
OR = N_(" or ")


@functools.cache
def translations(lang: str) -> gettext.NullTranslations:
    """The catalogue of ``lang`` (English: the templates themselves)."""
    if lang == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang])


def language(accept_language: str | None) -> str:
    """The first language of an ``accept-language`` value that has a catalogue, else English.

    >>> language("it-IT,it;q=0.9,en;q=0.8"), language("fr, en"), language(None)
    ('it', 'en', 'en')
    """
    for part in (accept_language or "").split(","):
        tag = part.split(";")[0].strip().lower()
        primary = tag.split("-")[0]
        if primary in LANGS:
            return primary
    return "en"


def _face_text(f: Face) -> str:
    if f.suit is None:
        return "JK"
    return f"{RANK_TEXT.get(f.rank, str(f.rank))}{f.suit.symbol}"


def param_text(value: object, lang: str) -> str:
    """A parameter as the screen writes it: cards with their suit symbols, words translated."""
    if isinstance(value, Meld):
        text = " ".join(_face_text(face(c)) for c in value.cards)
        if value.joker_as is not None:
            text += f" (JK={_face_text(value.joker_as)})"
        return text
    if isinstance(value, Face):
        return _face_text(value)
    if isinstance(value, Choices):
        return translations(lang).gettext(OR).join(_face_text(f) for f in value.faces)
    if isinstance(value, Cuts):
        return translations(lang).gettext(OR).join(value.texts())
    if isinstance(value, Suit):
        return value.symbol
    if isinstance(value, tuple):
        return " ".join(_face_text(face(c)) for c in value)
    if isinstance(value, str):
        return translations(lang).gettext(value)
    return str(value)


def sentence(violation: RuleViolation, lang: str) -> str:
    """The refusal's sentence (no rule number) in ``lang``."""
    if violation.template is None:
        return violation.reason
    t = translations(lang)
    fields = {k: param_text(v, lang) for k, v in violation.params.items()}
    return t.gettext(violation.template).format(**fields)


def localized(violation: RuleViolation, lang: str) -> str:
    """The whole refusal as ``str(violation)`` says it, in ``lang``:
    ``R4.1: operazione 2: una combinazione ha almeno 3 carte, A♥ A♣ ne ha 2``."""
    where = ""
    if violation.operation is not None:
        where = translations(lang).gettext(OPERATION).format(n=violation.operation)
    prefix = f"{violation.rule}: " if violation.rule else ""
    return f"{prefix}{where}{sentence(violation, lang)}"
