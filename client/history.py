"""A host's history and standings as text: the matches, a past match's score sheet, the
leaderboard; one rendering for the client's screens and ``scala40 history``."""

from __future__ import annotations

import datetime

from client.i18n import Text
from scala40_net.pb import deal_pb2, lobby_pb2, players_pb2, ruleset_pb2
from scala40_net.players import short_fingerprint

_PRESET_KEY = {
    ruleset_pb2.PRESET_CLASSIC: "preset_classic",
    ruleset_pb2.PRESET_TRADIZIONALE: "preset_tradizionale",
    ruleset_pb2.PRESET_SEMPLICE: "preset_semplice",
}


def when(match: players_pb2.PastMatch) -> str:
    moment = datetime.datetime.fromtimestamp(match.finished_unix_ms / 1000, tz=datetime.UTC)
    return f"{moment:%Y-%m-%d %H:%M}"


def _level(level: int) -> str:
    return lobby_pb2.BotLevel.Name(level).removeprefix("BOT_LEVEL_").lower()


def who(player: players_pb2.MatchPlayer | players_pb2.Standing, t: Text) -> str:
    """A name as the history shows it: with the key's short fingerprint, or the bot's level."""
    if player.key_fingerprint:
        return f"{player.name} {short_fingerprint(player.key_fingerprint)}"
    if player.bot_level:
        if isinstance(player, players_pb2.Standing):
            return t("history_bot_level", level=_level(player.bot_level))
        return f"{player.name} ({_level(player.bot_level)})"
    return player.name


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def match_line(match: players_pb2.PastMatch, t: Text, width: int) -> str:
    """One match on one line: when, the rules, the deals, the players by place."""
    preset = t(_PRESET_KEY.get(match.preset, "preset_classic")).split(" ")[0]
    ranked = sorted(match.players, key=lambda p: (p.place, p.seat))
    standing = " · ".join(f"{p.place}. {p.name} {p.total}" for p in ranked)
    return _fit(
        t(
            "history_row",
            date=when(match),
            preset=preset,
            deals=match.deal_count,
            standing=standing,
        ),
        width,
    )


def history_lines(
    matches: list[players_pb2.PastMatch], t: Text, width: int, host: str
) -> list[str]:
    lines = [_fit(t("history_title", host=host), width)]
    if not matches:
        return [*lines, t("history_none")]
    return lines + [match_line(m, t, width) for m in matches]


def _rating(value: float) -> str:
    return f"{value:.1f}"


def sheet_lines(match: players_pb2.PastMatch, t: Text, width: int) -> list[str]:
    """A past match's score sheet: a row per deal (each seat's penalty; ✔ for who went out,
    ✔✔ in one turn), the totals, then each player's place and rating before and after."""
    seats = sorted(match.players, key=lambda p: p.seat)
    lines = [_fit(t("history_sheet_title", table=match.table_name, date=when(match)), width)]
    column = max(8, min(16, (width - 6) // max(len(seats), 1)))
    head = f"{t('sheet_deal'):<6}" + "".join(f"{p.name[: column - 1]:>{column}}" for p in seats)
    lines.append(head[:width])
    for deal in match.deals:
        cells = {s.seat: s for s in deal.seats}
        row = f"{deal.deal_no:<6}"
        for p in seats:
            if deal.outcome != deal_pb2.DEAL_OUTCOME_WENT_OUT:
                cell = t("sheet_void")
            elif deal.HasField("closer_seat") and deal.closer_seat == p.seat:
                cell = "✔✔" if deal.closed_in_one_turn else "✔"
            elif p.seat in cells:
                cell = f"+{cells[p.seat].penalty}"
            else:
                cell = "—"
            row += f"{cell:>{column}}"
        lines.append(row[:width])
    lines.append(
        (f"{t('sheet_total'):<6}" + "".join(f"{p.total:>{column}}" for p in seats))[:width]
    )
    for p in sorted(match.players, key=lambda p: (p.place, p.seat)):
        line = f"{p.place}. {who(p, t)}"
        if p.left:
            line += f" ({t('history_left')})"
        if p.HasField("rating_after"):
            line += "  " + t(
                "history_rating",
                before=_rating(p.rating_before),
                after=_rating(p.rating_after),
            )
        lines.append(_fit(line, width))
    return lines


def standings_lines(
    board: players_pb2.GetStandingsResponse, t: Text, width: int, host: str
) -> list[str]:
    """The leaderboard: rank, player, rating, matches, wins, share of deals opened, average
    penalty a deal, chiusure in mano."""
    lines = [_fit(t("standings_title", host=host), width)]
    name_width = max(12, min(24, width - 50))
    lines.append(
        _fit(
            f"{'#':>3} {t('standings_player'):<{name_width}}"
            f"{t('standings_rating'):>7}{t('standings_matches'):>8}{t('standings_wins'):>6}"
            f"{t('standings_opened'):>8}{t('standings_penalty'):>9}{t('standings_in_hand'):>8}",
            width,
        )
    )
    if not board.standings:
        return [*lines, t("standings_none")]
    for line in board.standings:
        played = line.deals_played
        opened = f"{100 * line.deals_opened / played:.0f}%" if played else "—"
        penalty = f"{line.penalty_points / played:.1f}" if played else "—"
        lines.append(
            _fit(
                f"{line.rank:>3} {_fit(who(line, t), name_width):<{name_width}}"
                f"{line.rating:>7.1f}{line.matches:>8}{line.wins:>6}"
                f"{opened:>8}{penalty:>9}{line.closed_in_hand:>8}",
                width,
            )
        )
    return lines
