"""Rulesets: every option of RULES.md in one frozen value, the presets, and their validation."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from scala40_net.errors import InvalidRuleset, OptionOutOfRange


class DiscardPickup(StrEnum):
    """R3.2: who may take the top of the discard pile, and with what obligation."""

    CLASSIC = "classic"
    OPEN_WITH_IT = "open_with_it"
    FREE = "free"


class DiscardAttachable(StrEnum):
    """R8.2: may a card that could be attached to a meld on the table be discarded?"""

    CLASSIC = "classic"
    NEVER = "never"
    AGREED = "agreed"
    FREE = "free"


class JokerSwap(StrEnum):
    """R7.4: who may take a joker from a meld on the table."""

    ANY_OPENED = "any_opened"
    OWNER = "owner"


class FirstTurnClose(StrEnum):
    """R9.2: may a player go out in their own first turn?"""

    NEVER = "never"
    NOT_AFTER_PICKUP = "not_after_pickup"
    ALLOWED = "allowed"


class LoneAce(StrEnum):
    """R9.4: when an ace left in a hand counts 1 instead of 11.

    ``always``, ``at_99`` and ``never`` speak of an ace that is the only card left
    (004_…); ``single`` reads 000_…'s "un solo Asso in mano" literally: the one ace of
    a hand that holds exactly one, whatever else it holds.
    """

    ALWAYS = "always"
    AT_99 = "at_99"
    NEVER = "never"
    SINGLE = "single"


class UnopenedPenalty(StrEnum):
    """R9.5: what a player who never opened pays when someone goes out."""

    FLAT100 = "flat100"
    HAND = "hand"
    DOUBLE = "double"


class MatchMode(StrEnum):
    """R11.1 / R11.2: how a match (partita) is won."""

    POINTS = "points"
    DEALS = "deals"


class Progression(StrEnum):
    """R11.3: how the rientro fee grows with each buy-back: ×1,2,3,4… or ×1,2,4,8…"""

    LINEAR = "linear"
    DOUBLING = "doubling"


MIN_PLAYERS = 2
MAX_PLAYERS = 6
# R1.1: one deck is for 2 players (003_…), or 3 in the variant it notes.
ONE_DECK_PLAYERS = 3
HAND_SIZE = 13
# R11.3: "illimitatamente" still stops here, so that the 20th doubling fee
# (rientro_fee × 2^19) fits the wire's 32-bit fee (RULES.md "Settled points").
RIENTRO_CEILING = 20


@dataclass(frozen=True)
class OptionRange:
    """The values an integer option may take; ``off`` says whether None (no limit) is allowed."""

    rule: str
    low: int
    high: int
    off: bool = False

    @property
    def text(self) -> str:
        span = f"{self.low}..{self.high}"
        return f"off or {span}" if self.off else span

    def admits(self, value: object) -> bool:
        if value is None:
            return self.off
        return (
            isinstance(value, int)
            and not isinstance(value, bool)
            and self.low <= value <= self.high
        )


# Every integer option's range. The bounds keep every score and fee inside its wire
# type for any match (RULES.md "Option ranges" gives the sums): a deal's penalty
# (int32) is at most 396, a fee (uint32) at most 1000 × 2^19.
OPTION_RANGES: dict[str, OptionRange] = {
    "decks": OptionRange("R1.1", 1, 2),
    "max_players": OptionRange("R1.2", MIN_PLAYERS, MAX_PLAYERS),
    "max_run": OptionRange("R4.6", 3, 13, off=True),
    "opening_points": OptionRange("R5.1", 0, 150),
    "closer_bonus": OptionRange("R9.6", -100, 0),
    "stall_rebuilds": OptionRange("R10.2", 1, 99, off=True),
    "bust_at": OptionRange("R11.1", 1, 1000),
    "deals": OptionRange("R11.2", 1, 99),
    "rientro_fee": OptionRange("R11.3", 0, 1000),
    "rientro_max": OptionRange("R11.3", 1, RIENTRO_CEILING, off=True),
}

# Every option that is a choice among named values (its enum) or yes/no (None), by R-number.
CHOICES: dict[str, tuple[str, type[StrEnum] | None]] = {
    "discard_pickup": ("R3.2", DiscardPickup),
    "joker_swap": ("R7.4", JokerSwap),
    "discard_attachable": ("R8.2", DiscardAttachable),
    "close_without_discard": ("R9.1", None),
    "first_turn_close": ("R9.2", FirstTurnClose),
    "closing_in_hand_double": ("R9.3", None),
    "lone_ace": ("R9.4", LoneAce),
    "unopened_penalty": ("R9.5", UnopenedPenalty),
    "match_mode": ("R11", MatchMode),
    "rientro": ("R11.3", None),
    "rientro_progression": ("R11.3", Progression),
    "rientro_pays_closer": ("R11.3", None),
    "pairs": ("R11.4", None),
}


@dataclass(frozen=True)
class Ruleset:
    """Every option of RULES.md; the defaults are the ``classic`` preset.

    Construction checks every option against its range (``OPTION_RANGES``,
    ``OptionOutOfRange``) and the options against each other (``InvalidRuleset``),
    so no impossible ruleset exists.
    """

    decks: int = 2
    max_players: int = MAX_PLAYERS
    discard_pickup: DiscardPickup = DiscardPickup.CLASSIC
    discard_attachable: DiscardAttachable = DiscardAttachable.CLASSIC
    joker_swap: JokerSwap = JokerSwap.ANY_OPENED
    close_without_discard: bool = False
    first_turn_close: FirstTurnClose = FirstTurnClose.NEVER
    closing_in_hand_double: bool = True
    lone_ace: LoneAce = LoneAce.ALWAYS
    unopened_penalty: UnopenedPenalty = UnopenedPenalty.FLAT100
    opening_points: int = 40
    max_run: int | None = None
    closer_bonus: int = 0
    stall_rebuilds: int | None = 3
    match_mode: MatchMode = MatchMode.POINTS
    bust_at: int = 101
    deals: int = 3
    rientro: bool = False
    rientro_fee: int = 1
    rientro_progression: Progression = Progression.LINEAR
    rientro_max: int | None = None
    rientro_pays_closer: bool = True
    pairs: bool = False

    def __post_init__(self) -> None:
        for name, allowed in OPTION_RANGES.items():
            value = getattr(self, name)
            if not allowed.admits(value):
                raise OptionOutOfRange(name, value, allowed.text, allowed.rule)
        for name, (rule, kind) in CHOICES.items():
            value = getattr(self, name)
            if kind is None:
                if not isinstance(value, bool):
                    raise OptionOutOfRange(name, value, "yes or no", rule)
            elif not isinstance(value, kind):
                names = [str(v) for v in kind]
                if value not in names:
                    raise OptionOutOfRange(name, value, " | ".join(names), rule)
                # A value given by its name ("free") is kept as the enum member.
                object.__setattr__(self, name, kind(value))
        if self.decks == 1 and self.max_players > ONE_DECK_PLAYERS:
            raise InvalidRuleset(
                "R1.1: one deck is allowed for 2 or 3 players only (set max_players to 2 or 3)"
            )
        if self.rientro and self.match_mode is not MatchMode.POINTS:
            raise InvalidRuleset("R11.3: rientro needs a match played to points")
        if self.pairs and self.max_players < 4:
            raise InvalidRuleset("R11.4: pairs need 4 players (set max_players to at least 4)")
        if self.pairs and self.rientro:
            raise InvalidRuleset("R11.3/R11.4: rientro is played individually, not in pairs")

    def check_players(self, players: int) -> None:
        """Raise ``InvalidRuleset`` unless ``players`` may play a deal under this ruleset."""
        if not MIN_PLAYERS <= players <= self.max_players:
            raise InvalidRuleset(
                f"R1.2: {players} players, this table takes 2 to {self.max_players}"
            )
        if self.decks == 1 and players > ONE_DECK_PLAYERS:
            raise InvalidRuleset(f"R1.1: one deck is for 2 or 3 players only, not {players}")
        if self.pairs and players != 4:
            raise InvalidRuleset(f"R11.4: pairs are played by exactly 4 players, not {players}")

    @property
    def deck_size(self) -> int:
        return 54 * self.decks

    @property
    def rientro_limit(self) -> int:
        """Most buy-backs per player: ``rientro_max``, or the ceiling when it is unlimited."""
        return RIENTRO_CEILING if self.rientro_max is None else self.rientro_max


PRESETS = ("classic", "tradizionale", "semplice")


def preset(name: str = "classic", players: int = 4) -> Ruleset:
    """The named preset of RULES.md for a table of ``players`` (semplice uses 1 deck for 2).

    >>> preset("semplice", 2).decks, preset("semplice", 2).max_players
    (1, 3)
    >>> preset("tradizionale").max_run
    5
    """
    if name == "classic":
        ruleset = Ruleset()
    elif name == "tradizionale":
        ruleset = Ruleset(
            discard_pickup=DiscardPickup.OPEN_WITH_IT,
            discard_attachable=DiscardAttachable.NEVER,
            closing_in_hand_double=False,
            unopened_penalty=UnopenedPenalty.HAND,
            max_run=5,
            rientro=True,
        )
    elif name == "semplice":
        # 003_… is "per 2-4 giocatori", one deck with 2 (at most 3 players with one deck);
        # it is silent on discarding an attachable card, so 000_…'s answer (classic).
        one_deck = players == 2
        ruleset = Ruleset(
            decks=1 if one_deck else 2,
            max_players=ONE_DECK_PLAYERS if one_deck else 4,
            discard_pickup=DiscardPickup.FREE,
            joker_swap=JokerSwap.OWNER,
            lone_ace=LoneAce.NEVER,
            close_without_discard=True,
            first_turn_close=FirstTurnClose.NOT_AFTER_PICKUP,
            closing_in_hand_double=False,
            unopened_penalty=UnopenedPenalty.DOUBLE,
        )
    else:
        raise InvalidRuleset(f"unknown preset {name!r}: choose one of {', '.join(PRESETS)}")
    ruleset.check_players(players)
    return ruleset


def preset_players(name: str) -> range:
    """The table sizes the named preset is for (R1.2): semplice 2 to 4, the others 2 to 6.

    >>> list(preset_players("semplice"))
    [2, 3, 4]
    """
    return range(MIN_PLAYERS, preset(name, 4).max_players + 1)


def with_options(ruleset: Ruleset, **options: object) -> Ruleset:
    """A copy of ``ruleset`` with some options changed, validated again."""
    unknown = set(options) - set(Ruleset.__dataclass_fields__)
    if unknown:
        raise InvalidRuleset(f"unknown option(s): {', '.join(sorted(unknown))}")
    return replace(ruleset, **options)  # type: ignore[arg-type]
