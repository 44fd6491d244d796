"""Rulesets: every option of RULES.md in one frozen value, the presets, and their validation."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from scala40_net.errors import InvalidRuleset


class DiscardPickup(StrEnum):
    """R3.2: who may take the top of the discard pile, and with what obligation."""

    CLASSIC = "classic"
    FREE = "free"


class DiscardAttachable(StrEnum):
    """R8.2: may a card that could be attached to a meld on the table be discarded?"""

    CLASSIC = "classic"
    NEVER = "never"
    FREE = "free"


class UnopenedPenalty(StrEnum):
    """R9.5: what a player who never opened pays when someone goes out."""

    FLAT100 = "flat100"
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
HAND_SIZE = 13


@dataclass(frozen=True)
class Ruleset:
    """Every option of RULES.md; the defaults are the ``classic`` preset."""

    decks: int = 2
    max_players: int = MAX_PLAYERS
    discard_pickup: DiscardPickup = DiscardPickup.CLASSIC
    discard_attachable: DiscardAttachable = DiscardAttachable.CLASSIC
    close_without_discard: bool = False
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
        if self.decks not in (1, 2):
            raise InvalidRuleset(f"R1.1: decks is 1 or 2, not {self.decks}")
        if not MIN_PLAYERS <= self.max_players <= MAX_PLAYERS:
            raise InvalidRuleset(f"R1.2: max_players is 2..6, not {self.max_players}")
        if self.decks == 1 and self.max_players != 2:
            raise InvalidRuleset("R1.1: one deck is allowed for 2 players only (set max_players=2)")
        if self.opening_points < 0:
            raise InvalidRuleset("R5.1: opening_points cannot be negative")
        if self.max_run is not None and not 3 <= self.max_run <= 13:
            raise InvalidRuleset(f"R4.6: max_run is off or 3..13, not {self.max_run}")
        if self.closer_bonus > 0:
            raise InvalidRuleset("R9.6: closer_bonus is 0 or negative (a prize lowers the score)")
        if self.stall_rebuilds is not None and self.stall_rebuilds < 1:
            raise InvalidRuleset("R10.2: stall_rebuilds is off or at least 1")
        if self.bust_at < 1:
            raise InvalidRuleset("R11.1: bust_at must be positive")
        if self.deals < 1:
            raise InvalidRuleset("R11.2: a match has at least one deal")
        if self.rientro_fee < 0:
            raise InvalidRuleset("R11.3: rientro_fee cannot be negative")
        if self.rientro_max is not None and self.rientro_max < 1:
            raise InvalidRuleset("R11.3: rientro_max is unlimited or at least 1")
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
        if self.decks == 1 and players != 2:
            raise InvalidRuleset(f"R1.1: one deck is for 2 players only, not {players}")
        if self.pairs and players != 4:
            raise InvalidRuleset(f"R11.4: pairs are played by exactly 4 players, not {players}")

    @property
    def deck_size(self) -> int:
        return 54 * self.decks


PRESETS = ("classic", "tradizionale", "semplice")


def preset(name: str = "classic", players: int = 4) -> Ruleset:
    """The named preset of RULES.md for a table of ``players`` (semplice uses 1 deck for 2).

    >>> preset("semplice", 2).decks
    1
    >>> preset("tradizionale").max_run
    5
    """
    if name == "classic":
        ruleset = Ruleset()
    elif name == "tradizionale":
        ruleset = Ruleset(
            discard_attachable=DiscardAttachable.NEVER,
            max_run=5,
            rientro=True,
        )
    elif name == "semplice":
        ruleset = Ruleset(
            decks=1 if players == 2 else 2,
            max_players=2 if players == 2 else MAX_PLAYERS,
            discard_pickup=DiscardPickup.FREE,
            discard_attachable=DiscardAttachable.FREE,
            close_without_discard=True,
            unopened_penalty=UnopenedPenalty.DOUBLE,
        )
    else:
        raise InvalidRuleset(f"unknown preset {name!r}: choose one of {', '.join(PRESETS)}")
    ruleset.check_players(players)
    return ruleset


def with_options(ruleset: Ruleset, **options: object) -> Ruleset:
    """A copy of ``ruleset`` with some options changed, validated again."""
    unknown = set(options) - set(Ruleset.__dataclass_fields__)
    if unknown:
        raise InvalidRuleset(f"unknown option(s): {', '.join(sorted(unknown))}")
    return replace(ruleset, **options)  # type: ignore[arg-type]
