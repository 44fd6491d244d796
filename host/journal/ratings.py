"""The players' ratings: Weng-Lin (openskill), Thurstone-Mosteller full pairing, per host.

Every finished match updates the rating of each player in it, ranked by the
match's final standing (``PastMatch.players[].place``: tied players share a
place and move together; one who left during the match is ranked after
everyone, a loss). Plackett-Luce, openskill's default, mishandles ties; the
full-pairing Thurstone-Mosteller model compares every pair, a tie as a draw.

A player is their key (``key:<fingerprint>``); a seat joined without a key is
not rated. Bots are rated per level (``bot:<level>``): several bots of one
level in a match are each rated from the level's rating, and the level takes
the mean of what they came to. The rating shown is the ordinal, mu - 3 sigma:
it starts at 0 and grows as the player proves themselves.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from openskill.models import ThurstoneMostellerFull

from scala40_net.pb import lobby_pb2, players_pb2

MODEL = ThurstoneMostellerFull()
MODEL_NAME = "openskill 6.2.0 ThurstoneMostellerFull"
MU, SIGMA = MODEL.mu, MODEL.sigma


@dataclass(frozen=True)
class Skill:
    mu: float = MU
    sigma: float = SIGMA

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


def bot_name(level: int) -> str:
    """A bot level as the leaderboard names it ("easy" …)."""
    return lobby_pb2.BotLevel.Name(level).removeprefix("BOT_LEVEL_").lower()


def bot_level(player: str) -> int:
    """The BotLevel of a ``bot:<level>`` player."""
    return lobby_pb2.BotLevel.Value("BOT_LEVEL_" + player.removeprefix("bot:").upper())


def rated_as(player: players_pb2.MatchPlayer) -> str | None:
    """Who a seat of a match is for the ratings: its key, its bot level, or nobody."""
    if player.key_fingerprint:
        return f"key:{player.key_fingerprint}"
    if player.bot_level:
        return f"bot:{bot_name(player.bot_level)}"
    return None


def rate(match: players_pb2.PastMatch, skills: dict[str, Skill]) -> dict[str, Skill]:
    """The new skill of everyone rated in ``match``, from ``skills`` (absent: a newcomer's).
    Fewer than two rated seats change nothing."""
    seats = [(p, rated_as(p)) for p in match.players]
    rated = [(p, who) for p, who in seats if who is not None]
    if len(rated) < 2:
        return {}
    teams = [
        [MODEL.rating(mu=skills.get(who, Skill()).mu, sigma=skills.get(who, Skill()).sigma)]
        for _, who in rated
    ]
    after = MODEL.rate(teams, ranks=[float(p.place) for p, _ in rated])
    came: dict[str, list[Skill]] = defaultdict(list)
    for (_, who), (new,) in zip(rated, after, strict=True):
        came[who].append(Skill(new.mu, new.sigma))
    return {
        who: Skill(sum(s.mu for s in got) / len(got), sum(s.sigma for s in got) / len(got))
        for who, got in came.items()
    }
