"""The command line's language: typed text into command values, with errors a player can read.

Parsing knows words and card faces only. Which card ids the faces mean, and
whether the move is legal, is decided later: the faces against the hand by
the turn planner, the legality by the rules engine and finally the host.
Every command has an English and an Italian word; both are understood
whatever the interface language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from client.cardtext import FaceTextError, read_face
from client.tableform import read_rule_changes
from scala40_net.cards import Face

# canonical name -> (english word, italian word); aliases below.
COMMAND_WORDS: dict[str, tuple[str, str]] = {
    "draw": ("draw", "pesca"),
    "take": ("take", "prendi"),
    "return": ("return", "rimetti"),
    "meld": ("meld", "cala"),
    "attach": ("attach", "attacca"),
    "swap": ("swap", "scambia"),
    "discard": ("discard", "scarta"),
    "undo": ("undo", "annulla"),
    "clear": ("clear", "azzera"),
    "sort": ("sort", "ordina"),
    "hint": ("hint", "suggerisci"),
    "chat": ("chat", "chat"),
    "help": ("help", "aiuto"),
    "quit": ("quit", "esci"),
    "cut": ("cut", "taglia"),
    "start": ("start", "inizia"),
    "rientro": ("rientro", "rientro"),
    "buyback": ("buyback", "rientra"),
    "retire": ("retire", "ritirati"),
    "ready": ("ready", "pronto"),
    "new": ("new", "nuova"),
    "scores": ("scores", "punti"),
    "back": ("back", "torno"),
    "absent": ("absent", "assente"),
    "standin": ("standin", "sostituto"),
}
ALIASES = {
    "?": "help",
    "say": "chat",
    "di": "chat",
    "exit": "quit",
    "lay": "meld",
    "hints": "hint",
    "buy-back": "buyback",
    "ritiro": "retire",
}
# What ``absent`` decides for an absent seat, in both languages.
ABSENCE_WORDS = {
    "bot": "bot",
    "wait": "wait",
    "aspetta": "wait",
    "free": "free",
    "libera": "free",
}
# The answers ``rientro`` takes (R11.3), in both languages.
_YES = {"yes", "y", "sì", "si", "s", "ok"}
_NO = {"no", "n"}

_JOKER_DECLARED = re.compile(r"^(?P<card>[^()=:]+)\s*[(=:]\s*(?P<declared>[^()=:]+?)\s*\)?$")


class CommandError(ValueError):
    """A command that cannot be understood: an i18n message key and its fields."""

    def __init__(self, key: str, **fields: object) -> None:
        super().__init__(key)
        self.key = key
        self.fields = fields


@dataclass(frozen=True)
class CardSpec:
    """One card as typed: its face, and for a joker the card it is declared to stand for."""

    face: Face
    declared: Face | None = None

    def __str__(self) -> str:
        return f"{self.face}({self.declared})" if self.declared is not None else str(self.face)


@dataclass(frozen=True)
class DrawStockCmd:
    """Sends a Draw from the stock (tallone)."""


@dataclass(frozen=True)
class DrawDiscardCmd:
    """Sends a Draw from the discard pile (pozzo): its top card."""


@dataclass(frozen=True)
class ReturnDiscardCmd:
    """Sends a ReturnDiscard: the card just taken from the discard pile goes back, then the
    player draws from the stock (R3.2)."""


@dataclass(frozen=True)
class PlanMeldCmd:
    """Plans a new meld (sends nothing); ``split`` cuts a long sequence into runs (R4.6), ()
    for the automatic cut."""

    cards: tuple[CardSpec, ...]
    split: tuple[int, ...] = ()


@dataclass(frozen=True)
class PlanAttachCmd:
    """Plans cards added to a meld (sends nothing); ``split`` cuts the grown sequence into
    runs (R4.6)."""

    meld: int
    cards: tuple[CardSpec, ...]
    split: tuple[int, ...] = ()


@dataclass(frozen=True)
class PlanSwapCmd:
    """Plans taking a meld's joker for the card it stands for (sends nothing, R7)."""

    meld: int
    card: Face


@dataclass(frozen=True)
class PlayCmd:
    """Sends the plan as this turn's Play, ``card`` its discard (typed ``discard``/``scarta``)."""

    card: Face


@dataclass(frozen=True)
class UndoCmd:
    pass


@dataclass(frozen=True)
class ClearCmd:
    pass


@dataclass(frozen=True)
class SortCmd:
    pass


@dataclass(frozen=True)
class HintCmd:
    pass


@dataclass(frozen=True)
class ChatCmd:
    text: str


@dataclass(frozen=True)
class HelpCmd:
    pass


@dataclass(frozen=True)
class QuitCmd:
    pass


@dataclass(frozen=True)
class StandInCmd:
    """At a private table: hand this seat, with its keys, to a host bot (asked twice)."""


@dataclass(frozen=True)
class CutCmd:
    """The cutter's choice; ``None`` asks for a random cut."""

    cut: int | None


@dataclass(frozen=True)
class StartCmd:
    """Start the match at a waiting table."""


@dataclass(frozen=True)
class ReadyCmd:
    """Between deals: this player has read the end of the deal."""


@dataclass(frozen=True)
class NewMatchCmd:
    """After the match: another one at the same seats; ``rules``, as typed (``151``, ``3d``,
    ``rientro=no``), change the rules of the next match (the first player's say)."""

    rules: tuple[str, ...] = ()


@dataclass(frozen=True)
class ScoresCmd:
    """Show (or hide) the score sheet."""


@dataclass(frozen=True)
class BackCmd:
    """Take the seat back from the host bot that plays it while this player was away."""


@dataclass(frozen=True)
class AbsentCmd:
    """The first player's decision for a seat whose player is not there: a host bot plays it
    ("bot"), its player gets more time ("wait"), or, before the match, it is freed ("free")."""

    seat: int
    choice: str


@dataclass(frozen=True)
class RientroCmd:
    """The answer to a buy-back offer after busting (R11.3): buy back in, or retire."""

    buy_back: bool


Command = (
    DrawStockCmd
    | DrawDiscardCmd
    | ReturnDiscardCmd
    | PlanMeldCmd
    | PlanAttachCmd
    | PlanSwapCmd
    | PlayCmd
    | UndoCmd
    | ClearCmd
    | SortCmd
    | HintCmd
    | ChatCmd
    | HelpCmd
    | QuitCmd
    | StandInCmd
    | CutCmd
    | StartCmd
    | RientroCmd
    | ReadyCmd
    | NewMatchCmd
    | ScoresCmd
    | BackCmd
    | AbsentCmd
)

_BY_WORD: dict[str, str] = {
    word: name for name, words in COMMAND_WORDS.items() for word in words
} | ALIASES


def command_name(word: str) -> str | None:
    """The canonical command a typed word (English, Italian or alias) names."""
    return _BY_WORD.get(word.lower())


def parse_card_face(word: str, lang: str = "en") -> Face:
    """A face from ``7H`` (``7C`` in Italian: cuori), ``10d``, ``7♥``, ``JK``, with errors that
    name the part that is wrong."""
    try:
        return read_face(word, lang)
    except FaceTextError as error:
        key = {"card": "err_not_card", "suit": "err_bad_suit", "rank": "err_bad_rank"}
        raise CommandError(key[error.part], word=word) from None


def parse_card_spec(word: str, lang: str = "en") -> CardSpec:
    """A card as typed in a meld: ``7H``, or a joker with its declaration ``JK(8H)`` / ``JK=8H``."""
    match = _JOKER_DECLARED.match(word.strip())
    if match is None:
        return CardSpec(parse_card_face(word, lang))
    card = parse_card_face(match["card"], lang)
    if not card.is_joker:
        raise CommandError("err_declare_joker_only", word=word)
    declared = parse_card_face(match["declared"], lang)
    if declared.is_joker:
        raise CommandError("err_declare_joker", word=word)
    return CardSpec(card, declared)


def _card_words(rest: str) -> list[str]:
    # "JK (8H)" typed with a space is one card: glue a parenthesis to the word before it.
    glued = re.sub(r"\s+\(", "(", rest.strip())
    glued = re.sub(r"\(\s+", "(", glued)
    glued = re.sub(r"\s+\)", ")", glued)
    return glued.split()


def _split_off(rest: str) -> tuple[str, tuple[int, ...]]:
    """``7H 8H … / 4 3``: the cards, and the lengths of the runs the player cuts them into."""
    cards, slash, lengths = rest.partition("/")
    if not slash:
        return rest, ()
    words = lengths.replace("+", " ").split()
    if not words or not all(w.isdigit() and int(w) > 0 for w in words):
        raise CommandError("err_split_usage", word=lengths.strip())
    return cards, tuple(int(w) for w in words)


def _meld_number(word: str) -> int:
    if not word.isdigit() or int(word) < 1:
        raise CommandError("err_meld_number", word=word)
    return int(word)


def parse_command(text: str, lang: str = "en") -> Command:
    """Parse one line of the command line; cards in ``lang``'s suit letters (or symbols).
    Raises ``CommandError``."""
    stripped = text.strip()
    if not stripped:
        raise CommandError("err_unknown_command", word="")
    word, _, rest = stripped.partition(" ")
    rest = rest.strip()
    name = command_name(word)
    if name is None:
        raise CommandError("err_unknown_command", word=word)
    words = rest.split()

    def no_arguments(cmd: Command) -> Command:
        if words:
            raise CommandError("err_too_many", word=word)
        return cmd

    if name == "draw":
        return no_arguments(DrawStockCmd())
    if name == "take":
        return no_arguments(DrawDiscardCmd())
    if name == "return":
        return no_arguments(ReturnDiscardCmd())
    if name == "meld":
        typed, split = _split_off(rest)
        specs = tuple(parse_card_spec(w, lang) for w in _card_words(typed))
        if not specs:
            raise CommandError("err_meld_usage")
        return PlanMeldCmd(specs, split)
    if name == "attach":
        typed, split = _split_off(rest)
        cards = _card_words(typed)
        if len(cards) < 2:
            raise CommandError("err_attach_usage")
        specs = tuple(parse_card_spec(w, lang) for w in cards[1:])
        return PlanAttachCmd(_meld_number(cards[0]), specs, split)
    if name == "swap":
        if len(words) != 2:
            raise CommandError("err_swap_usage")
        return PlanSwapCmd(_meld_number(words[0]), parse_card_face(words[1], lang))
    if name == "discard":
        if len(words) != 1:
            raise CommandError("err_discard_usage")
        return PlayCmd(parse_card_face(words[0], lang))
    if name == "chat":
        if not rest:
            raise CommandError("err_chat_usage")
        return ChatCmd(rest)
    if name == "cut":
        if not words:
            return CutCmd(None)
        if len(words) != 1 or not words[0].isdigit():
            raise CommandError("err_cut_not_number", word=rest)
        return CutCmd(int(words[0]))
    if name == "absent":
        if len(words) != 2 or not words[0].isdigit() or words[1].lower() not in ABSENCE_WORDS:
            raise CommandError("err_absent_usage")
        return AbsentCmd(int(words[0]), ABSENCE_WORDS[words[1].lower()])
    if name == "new":
        try:
            read_rule_changes(words)
        except ValueError as error:
            raise CommandError("err_new_usage", allowed=str(error)) from None
        return NewMatchCmd(tuple(words))
    if name == "rientro":
        answer = words[0].lower() if len(words) == 1 else ""
        if answer not in _YES | _NO:
            raise CommandError("err_rientro_usage")
        return RientroCmd(answer in _YES)
    simple: dict[str, Command] = {
        "undo": UndoCmd(),
        "clear": ClearCmd(),
        "sort": SortCmd(),
        "hint": HintCmd(),
        "help": HelpCmd(),
        "quit": QuitCmd(),
        "standin": StandInCmd(),
        "start": StartCmd(),
        "buyback": RientroCmd(True),
        "retire": RientroCmd(False),
        "ready": ReadyCmd(),
        "scores": ScoresCmd(),
        "back": BackCmd(),
    }
    return no_arguments(simple[name])


def command_words(lang: str) -> list[str]:
    """The command words to offer in completion, the interface language first."""
    first = 1 if lang == "it" else 0
    words = [w[first] for w in COMMAND_WORDS.values()]
    return words + [w[1 - first] for w in COMMAND_WORDS.values() if w[1 - first] not in words]
