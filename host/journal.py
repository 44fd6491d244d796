"""The SQLite journal: every accepted action and fair-deal message, one transaction each.

Nothing reaches a subscriber before its entry is committed here. The file is
opened in WAL mode with ``synchronous=FULL`` and created readable only by the
host's user, because it also holds host secrets: unrevealed deal seeds (until
the deal ends) and the digests of seat tokens.

An entry keeps both what was asked (``kind`` and the request's bytes, enough
to replay it through the engine) and what followed (the seq-numbered events,
their public form and each seat's private part), so streams resume from the
journal and a restart can rebuild the table.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    table_id TEXT PRIMARY KEY,
    created_order INTEGER NOT NULL,
    config BLOB NOT NULL            -- the CreateTableRequest as the host accepted it
);
CREATE TABLE IF NOT EXISTS tokens (
    digest BLOB PRIMARY KEY,        -- SHA-256 of the token; the token itself is never stored
    table_id TEXT NOT NULL,
    seat INTEGER                    -- NULL for a spectator
);
CREATE TABLE IF NOT EXISTS entries (
    table_id TEXT NOT NULL,
    entry_no INTEGER NOT NULL,
    kind TEXT NOT NULL,             -- what was accepted: join, draw, play, commit, reveal ...
    seat INTEGER,                   -- who asked, NULL for the host itself
    request_id TEXT,                -- the client's id, for idempotent retries
    request BLOB NOT NULL,          -- the request's bytes, to replay it
    response BLOB NOT NULL,         -- the answer given, to repeat it on a retry
    PRIMARY KEY (table_id, entry_no)
);
CREATE UNIQUE INDEX IF NOT EXISTS entries_by_request
    ON entries (table_id, seat, request_id) WHERE request_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    entry_no INTEGER NOT NULL,
    public BLOB NOT NULL,           -- the TableEvent every seat sees
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE IF NOT EXISTS private_events (
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    event BLOB NOT NULL,            -- the PrivateDealEvent only this seat sees
    PRIMARY KEY (table_id, seq, seat)
);
CREATE TABLE IF NOT EXISTS host_seeds (
    table_id TEXT NOT NULL,
    deal_no INTEGER NOT NULL,
    seed BLOB NOT NULL,             -- s_host: secret until its deal ends (then in the record)
    PRIMARY KEY (table_id, deal_no)
);
CREATE TABLE IF NOT EXISTS deal_records (
    table_id TEXT NOT NULL,
    deal_no INTEGER NOT NULL,
    record BLOB NOT NULL,           -- the signed record file, UTF-8 JSON
    PRIMARY KEY (table_id, deal_no)
);
"""


@dataclass(frozen=True)
class JournaledEvent:
    """One seq-numbered table event: its public bytes and each seat's private part."""

    seq: int
    public: bytes
    private: Mapping[int, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class Entry:
    """One accepted action or fair-deal message and the events it caused."""

    kind: str
    seat: int | None
    request_id: str | None
    request: bytes
    response: bytes
    events: Sequence[JournaledEvent] = ()
    host_seed: tuple[int, bytes] | None = None  # (deal_no, s_host) drawn with this entry
    deal_record: tuple[int, bytes] | None = None  # (deal_no, record) completed with this entry
    tokens: Sequence[tuple[bytes, int | None]] = ()  # (digest, seat) handed out with this entry
    forget_seat: int | None = None  # a seat given up: its tokens no longer open anything


@dataclass(frozen=True)
class StoredEntry:
    """An entry as read back from the journal."""

    entry_no: int
    kind: str
    seat: int | None
    request_id: str | None
    request: bytes
    response: bytes
    events: list[JournaledEvent]


def _private_file(path: Path) -> None:
    """Create ``path`` (and its -wal/-shm companions) readable by the host's user only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    for suffix in ("", "-wal", "-shm"):
        companion = Path(f"{path}{suffix}")
        fd = os.open(companion, os.O_CREAT | os.O_RDWR, 0o600)
        os.close(fd)
        os.chmod(companion, 0o600)


class Journal:
    """The host's journal file; every write returns once it is durable."""

    def __init__(self, path: Path) -> None:
        self.path = path
        _private_file(path)
        # Autocommit mode: transactions are opened explicitly, one per entry.
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)
        self._next_entry: dict[str, int] = {}
        # One writer thread for every table: commits wait on the disk there, not on the event loop.
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal")
        self._lock = threading.Lock()

    def close(self) -> None:
        self._writer.shutdown(wait=True)
        with self._lock:
            self._db.close()

    async def write(self, table_id: str, entry: Entry) -> None:
        """``append`` in the journal's thread; returns once the entry is durable."""
        await asyncio.get_running_loop().run_in_executor(self._writer, self.append, table_id, entry)

    def create_table(self, table_id: str, config: bytes) -> None:
        with self._transaction():
            order = self._db.execute("SELECT COUNT(*) FROM tables").fetchone()[0]
            self._db.execute("INSERT INTO tables VALUES (?, ?, ?)", (table_id, order, config))
        self._next_entry[table_id] = 1

    def append(self, table_id: str, entry: Entry) -> None:
        """Write one entry and everything that goes with it in one transaction."""
        with self._transaction():
            entry_no = self._next_entry.get(table_id) or self._last_entry(table_id) + 1
            self._db.execute(
                "INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    table_id,
                    entry_no,
                    entry.kind,
                    entry.seat,
                    entry.request_id,
                    entry.request,
                    entry.response,
                ),
            )
            for event in entry.events:
                self._db.execute(
                    "INSERT INTO events VALUES (?, ?, ?, ?)",
                    (table_id, event.seq, entry_no, event.public),
                )
                self._db.executemany(
                    "INSERT INTO private_events VALUES (?, ?, ?, ?)",
                    [(table_id, event.seq, seat, data) for seat, data in event.private.items()],
                )
            if entry.host_seed is not None:
                self._db.execute(
                    "INSERT INTO host_seeds VALUES (?, ?, ?)", (table_id, *entry.host_seed)
                )
            if entry.deal_record is not None:
                deal_no, record = entry.deal_record
                self._db.execute(
                    "INSERT INTO deal_records VALUES (?, ?, ?)", (table_id, deal_no, record)
                )
            self._db.executemany(
                "INSERT INTO tokens VALUES (?, ?, ?)",
                [(d, table_id, seat) for d, seat in entry.tokens],
            )
            if entry.forget_seat is not None:
                self._db.execute(
                    "DELETE FROM tokens WHERE table_id = ? AND seat = ?",
                    (table_id, entry.forget_seat),
                )
        self._next_entry[table_id] = entry_no + 1

    def _last_entry(self, table_id: str) -> int:
        row = self._db.execute(
            "SELECT MAX(entry_no) FROM entries WHERE table_id = ?", (table_id,)
        ).fetchone()
        return int(row[0] or 0)

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db, self._lock)

    # --- Reading back ---------------------------------------------------------------------

    def _query(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        """Rows of a read, never in the middle of the writer thread's transaction."""
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def tables(self) -> list[tuple[str, bytes]]:
        rows = self._query("SELECT table_id, config FROM tables ORDER BY created_order")
        return [(str(r[0]), bytes(r[1])) for r in rows]

    def tokens(self) -> list[tuple[bytes, str, int | None]]:
        rows = self._query("SELECT digest, table_id, seat FROM tokens")
        return [(bytes(r[0]), str(r[1]), r[2]) for r in rows]

    def entries(self, table_id: str) -> list[StoredEntry]:
        """Every entry of a table in order, each with its events, to play the table back."""
        events: dict[int, list[JournaledEvent]] = {}
        by_seq = {e.seq: e for e in self.events(table_id)}
        for entry_no, seq in self._query(
            "SELECT entry_no, seq FROM events WHERE table_id = ? ORDER BY seq", (table_id,)
        ):
            events.setdefault(int(entry_no), []).append(by_seq[int(seq)])
        rows = self._query(
            "SELECT entry_no, kind, seat, request_id, request, response FROM entries"
            " WHERE table_id = ? ORDER BY entry_no",
            (table_id,),
        )
        return [
            StoredEntry(
                int(no), str(kind), seat, rid, bytes(req), bytes(resp), events.get(int(no), [])
            )
            for no, kind, seat, rid, req, resp in rows
        ]

    def host_seeds(self, table_id: str) -> dict[int, bytes]:
        rows = self._query("SELECT deal_no, seed FROM host_seeds WHERE table_id = ?", (table_id,))
        return {int(deal_no): bytes(seed) for deal_no, seed in rows}

    def events(self, table_id: str, after_seq: int = 0) -> list[JournaledEvent]:
        public = self._query(
            "SELECT seq, public FROM events WHERE table_id = ? AND seq > ? ORDER BY seq",
            (table_id, after_seq),
        )
        private: dict[int, dict[int, bytes]] = {}
        for seq, seat, data in self._query(
            "SELECT seq, seat, event FROM private_events WHERE table_id = ? AND seq > ?",
            (table_id, after_seq),
        ):
            private.setdefault(int(seq), {})[int(seat)] = bytes(data)
        return [JournaledEvent(int(s), bytes(p), private.get(int(s), {})) for s, p in public]

    def deal_record(self, table_id: str, deal_no: int) -> bytes | None:
        rows = self._query(
            "SELECT record FROM deal_records WHERE table_id = ? AND deal_no = ?",
            (table_id, deal_no),
        )
        return bytes(rows[0][0]) if rows else None


class _Transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` if the block raises), one thread at a time."""

    def __init__(self, db: sqlite3.Connection, lock: threading.Lock) -> None:
        self._db = db
        self._lock = lock

    def __enter__(self) -> None:
        self._lock.acquire()
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        try:
            self._db.execute("COMMIT" if kind is None else "ROLLBACK")
        finally:
            self._lock.release()
