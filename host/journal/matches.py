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
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from host.journal.sqlite import ARCHIVE_FOLDER, SUFFIX, TABLES_FOLDER
from scala40_net.pb import lobby_pb2, table_pb2


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
