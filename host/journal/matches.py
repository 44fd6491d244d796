"""The host owner's look at its matches: a line per table, and every signed deal record exported.

Both read the journals only (read-only SQLite, beside a running host if there is
one): live tables in ``tables/`` and finished matches in ``archive/``. The
records exported are the public signed records, which ``scala40-verify``
checks as a third party (checks 1-4 of FAIR_DEAL.md, without any seat's seed).
"""

from __future__ import annotations

import contextlib
import datetime
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from host.journal.sqlite import ARCHIVE_FOLDER, SUFFIX, TABLES_FOLDER, Journal
from scala40_net.pb import deal_pb2, lobby_pb2, players_pb2, ruleset_pb2, table_pb2


@dataclass
class MatchSummary:
    """One table as its journal tells it."""

    table_id: str
    name: str
    created: datetime.datetime
    where: str  # "archive" or "live"
    names: dict[int, str] = field(default_factory=dict)
    deals_signed: int = 0
    scores: dict[int, int] = field(default_factory=dict)
    winners: tuple[int, ...] = ()
    over: bool = False

    def line(self) -> str:
        state = (
            "over" if self.over else ("playing" if self.deals_signed or self.scores else "waiting")
        )
        seats = ", ".join(
            f"{self.names.get(s, f'seat {s}')} {self.scores[s]}" for s in sorted(self.scores)
        ) or ", ".join(self.names[s] for s in sorted(self.names))
        won = " won by " + ", ".join(self.names.get(s, f"seat {s}") for s in self.winners)
        return (
            f"{self.table_id}  {self.created:%Y-%m-%d %H:%M}  {self.where:<7}  {state:<7}  "
            f"{self.deals_signed} deal(s)  {self.name!r}: {seats}"
            + (won if self.over and self.winners else "")
        )


def _read_only(path: Path) -> contextlib.closing[sqlite3.Connection]:
    return contextlib.closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True))


def journals(data_dir: Path) -> Iterator[tuple[str, Path]]:
    """Every journal with a match to tell of, archived ones first, each oldest first by name."""
    for where, folder in (("archive", ARCHIVE_FOLDER), ("live", TABLES_FOLDER)):
        for path in sorted((data_dir / folder).glob(f"*{SUFFIX}")):
            yield where, path


def summary(where: str, path: Path) -> MatchSummary:
    """What one journal says of its table; raises ``sqlite3.Error`` for one that cannot be read."""
    with _read_only(path) as db:
        created_ns, config_bytes = db.execute(
            "SELECT created_ns, config FROM table_config"
        ).fetchone()
        config = lobby_pb2.CreateTableRequest.FromString(config_bytes)
        found = MatchSummary(
            table_id=path.name.removesuffix(SUFFIX),
            name=config.name,
            created=datetime.datetime.fromtimestamp(created_ns / 1e9, tz=datetime.UTC),
            where=where,
        )
        for (raw,) in db.execute("SELECT public FROM events ORDER BY seq"):
            event = table_pb2.TableEvent.FromString(raw)
            kind = event.WhichOneof("event")
            if kind == "seat_changed" and event.seat_changed.name:
                found.names[event.seat_changed.seat] = event.seat_changed.name
            elif kind == "deal_signed":
                found.deals_signed += 1
            elif kind == "match_update":
                found.scores = {s.seat: s.total for s in event.match_update.scores}
                found.winners = tuple(event.match_update.winners)
                found.over = event.match_update.match_over
    return found


def list_matches(data_dir: Path) -> list[str]:
    """A line per table, and a line for each journal that could not be read."""
    lines = []
    for where, path in journals(data_dir):
        try:
            lines.append(summary(where, path).line())
        except (sqlite3.Error, TypeError, ValueError) as error:
            lines.append(f"{path.name}: cannot be read ({error})")
    return lines


def export_records(data_dir: Path, out: Path) -> list[Path]:
    """Write every signed deal record as ``TABLE-deal-N.json`` in ``out``; the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for _, path in journals(data_dir):
        table_id = path.name.removesuffix(SUFFIX)
        try:
            with _read_only(path) as db:
                rows = db.execute(
                    "SELECT deal_no, record FROM deal_records ORDER BY deal_no"
                ).fetchall()
        except sqlite3.Error:
            continue  # named by list_matches; nothing to export from it
        for deal_no, record in rows:
            target = out / f"{table_id}-deal-{int(deal_no)}.json"
            tmp = target.with_suffix(".json.tmp")
            tmp.write_bytes(bytes(record))
            os.replace(tmp, target)
            written.append(target)
    return written


# --- The finished matches, as the history lists them -------------------------------------------


@dataclass
class _Playing:
    """A match being read from its journal, until its last MatchUpdate."""

    match: players_pb2.PastMatch
    by_seat: dict[int, players_pb2.MatchPlayer]


def _ranked(match: players_pb2.PastMatch) -> None:
    """Each player's place: the winners first, then by total (fewest penalty points, or most
    deals won), tied totals sharing a place; a player who left comes after everyone."""
    most_wins = match.ruleset.match_mode == ruleset_pb2.MATCH_MODE_DEALS
    winners = set(match.winners)

    def key(p: players_pb2.MatchPlayer) -> tuple[int, int, int]:
        return (int(p.left), int(p.seat not in winners), -p.total if most_wins else p.total)

    ordered = sorted(match.players, key=key)
    for i, player in enumerate(ordered):
        before = ordered[i - 1] if i else None
        player.place = before.place if before is not None and key(before) == key(player) else i + 1


@dataclass(frozen=True)
class Told:
    """What the history reads of one journal entry: its kind, request, answer and events."""

    kind: str
    request: bytes
    response: bytes
    events: Sequence[bytes]  # each event's public TableEvent


def told_by_file(path: Path) -> tuple[lobby_pb2.CreateTableRequest, list[Told]]:
    """The config and entries of a journal no host writes (an archived one): read-only SQLite.
    A live table's journal is read through its own connection instead (``told_by_journal``),
    at the moment its task sees the match end: it reads what the table has committed and
    nothing after, with no connection opened for it."""
    with _read_only(path) as db:
        (config,) = db.execute("SELECT config FROM table_config").fetchone()
        events: dict[int, list[bytes]] = {}
        for entry_no, public in db.execute("SELECT entry_no, public FROM events ORDER BY seq"):
            events.setdefault(int(entry_no), []).append(bytes(public))
        told = [
            Told(str(kind), bytes(request), bytes(response), events.get(int(entry_no), []))
            for entry_no, kind, request, response in db.execute(
                "SELECT entry_no, kind, request, response FROM entries ORDER BY entry_no"
            )
        ]
    return lobby_pb2.CreateTableRequest.FromString(bytes(config)), told


def told_by_journal(journal: Journal) -> list[Told]:
    """The entries of a live table's journal, through the host's own connection (between two
    of its jobs)."""
    return [
        Told(e.kind, e.request, e.response, [x.public for x in e.events]) for e in journal.entries()
    ]


def past_matches(
    table_id: str, config: lobby_pb2.CreateTableRequest, told: Iterable[Told]
) -> list[players_pb2.PastMatch]:
    """Every match of a table's journal that is over, in the order played (a table plays
    another match after a rematch); ``finished_unix_ms`` is left unset (the journal keeps no
    clock: the caller knows when it saw the end)."""
    over: list[players_pb2.PastMatch] = []
    levels: dict[int, int] = {}  # the level of the bot last seated on each seat
    seats: dict[int, lobby_pb2.SeatInfo] = {}
    playing: _Playing | None = None
    for entry in told:
        if entry.kind == "add_bot":
            seat = lobby_pb2.AddBotResponse.FromString(entry.response).seat
            level = lobby_pb2.AddBotRequest.FromString(entry.request).level
            levels[seat] = level or lobby_pb2.BOT_LEVEL_MEDIUM
        for raw in entry.events:
            event = table_pb2.TableEvent.FromString(raw)
            kind = event.WhichOneof("event")
            if kind == "seat_changed":
                info = event.seat_changed
                seats[info.seat] = info
                left = info.away == lobby_pb2.AWAY_REASON_LEFT
                if playing is not None and left and info.seat in playing.by_seat:
                    playing.by_seat[info.seat].left = True
            elif kind == "match_started":
                playing = _started(table_id, len(over) + 1, config, event.match_started)
                for player in playing.match.players:
                    info = seats.get(player.seat, lobby_pb2.SeatInfo(seat=player.seat))
                    player.name = info.name
                    player.key_fingerprint = info.key_fingerprint
                    player.bot_level = levels.get(player.seat, 0) if info.bot else 0  # type: ignore[assignment]
            elif kind == "deal" and playing is not None:
                dealt = deal_pb2.DealEvent.FromString(event.deal.public_event)
                if dealt.WhichOneof("event") == "ended":
                    _deal_ended(playing, dealt.deal_no, dealt.ended)
            elif kind == "match_update" and playing is not None:
                update = event.match_update
                for score in update.scores:
                    if score.seat in playing.by_seat:
                        playing.by_seat[score.seat].total = score.total
                if update.match_over:
                    playing.match.winners.extend(update.winners)
                    _ranked(playing.match)
                    over.append(playing.match)
                    playing = None
    return over


def _started(
    table_id: str,
    match_no: int,
    config: lobby_pb2.CreateTableRequest,
    started: table_pb2.MatchStarted,
) -> _Playing:
    match = players_pb2.PastMatch(
        table_id=table_id,
        match_no=match_no,
        match_id=f"{table_id}/{match_no}",
        table_name=config.name,
        preset=config.ruleset.preset or ruleset_pb2.PRESET_CLASSIC,
        ruleset=started.ruleset,
    )
    for seat in started.seats:
        match.players.add(seat=seat)
    return _Playing(match, {p.seat: p for p in match.players})


def _deal_ended(playing: _Playing, deal_no: int, ended: deal_pb2.DealEnded) -> None:
    match = playing.match
    match.deal_count += 1
    line = match.deals.add(
        deal_no=deal_no, outcome=ended.outcome, closed_in_one_turn=ended.closed_in_one_turn
    )
    if ended.HasField("closer_seat"):
        line.closer_seat = ended.closer_seat
    scored = ended.outcome == deal_pb2.DEAL_OUTCOME_WENT_OUT
    for hand in ended.hands:
        line.seats.add(seat=hand.seat, penalty=hand.penalty, opened=hand.opened)
        player = playing.by_seat.get(hand.seat)
        if player is None or not scored:
            continue
        player.deals_played += 1
        player.deals_opened += int(hand.opened)
        player.penalty_points += hand.penalty
        if ended.HasField("closer_seat") and ended.closer_seat == hand.seat:
            player.deals_closed += 1
            player.closed_in_hand += int(ended.closed_in_one_turn)


def archived_journal(data_dir: Path, table_id: str) -> Path | None:
    """The archived journal of ``table_id``; None when there is none (or the id could name a
    path: only a table id's own characters are looked for)."""
    if not table_id or not table_id.isalnum():
        return None
    path = data_dir / ARCHIVE_FOLDER / f"{table_id}{SUFFIX}"
    return path if path.exists() else None


def deal_records(path: Path, deal_nos: list[int]) -> list[bytes]:
    """The signed records of those deals (those that have one), in deal order."""
    wanted = set(deal_nos)
    with _read_only(path) as db:
        rows = db.execute("SELECT deal_no, record FROM deal_records ORDER BY deal_no").fetchall()
    return [bytes(record) for deal_no, record in rows if int(deal_no) in wanted]
