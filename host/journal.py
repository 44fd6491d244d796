"""The SQLite journals: a file per table; each accepted action or fair-deal message one transaction.

Nothing reaches a subscriber before its entry is committed. Each file is in
WAL mode with ``synchronous=FULL`` and readable only by the host's user,
because it also holds host secrets: each deal's host seed (secret until the
deal ends), the seeds and cuts of the host's own bot seats (secret until they
are revealed) and the digests of seat tokens. One file per table lets the tables
wait on the disk side by side: a slow ``fsync`` of one never holds up the
events of another.

An entry keeps both what was asked (``kind`` and the request's bytes, enough
to replay it through the engine) and what followed (the seq-numbered events,
their public form and each seat's private part), so streams resume from it
and a restart rebuilds the table (``host.recovery``).
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS table_config (
    created_ns INTEGER NOT NULL,    -- when the table was created, to list tables oldest first
    config BLOB NOT NULL            -- the CreateTableRequest as the host accepted it
);
CREATE TABLE IF NOT EXISTS tokens (
    digest BLOB PRIMARY KEY,        -- SHA-256 of the token; the token itself is never stored
    seat INTEGER                    -- NULL for a spectator
);
CREATE TABLE IF NOT EXISTS entries (
    entry_no INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,             -- what was accepted: join, draw, play, commit, reveal ...
    seat INTEGER,                   -- who asked, NULL for the host itself
    request_id TEXT,                -- the client's id, for idempotent retries
    request BLOB NOT NULL,          -- the request's bytes, to replay it
    response BLOB NOT NULL          -- the answer given, to repeat it on a retry
);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    entry_no INTEGER NOT NULL,
    public BLOB NOT NULL            -- the TableEvent every seat sees
);
CREATE TABLE IF NOT EXISTS private_events (
    seq INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    event BLOB NOT NULL,            -- the PrivateDealEvent only this seat sees
    PRIMARY KEY (seq, seat)
);
CREATE TABLE IF NOT EXISTS host_seeds (
    deal_no INTEGER PRIMARY KEY,
    seed BLOB NOT NULL              -- s_host: secret until its deal ends (then in the record)
);
CREATE TABLE IF NOT EXISTS bot_seeds (
    deal_no INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    seed BLOB NOT NULL,             -- a host bot seat's s_i: secret until it is revealed
    cut INTEGER NOT NULL,           -- and its cut (0 unless it cuts)
    PRIMARY KEY (deal_no, seat)
);
CREATE TABLE IF NOT EXISTS deal_records (
    deal_no INTEGER PRIMARY KEY,
    record BLOB NOT NULL            -- the signed record file, UTF-8 JSON
);
"""

TABLES_FOLDER = "tables"
SUFFIX = ".sqlite3"
# Enough threads for the disk waits of many tables at once; each table writes in order.
# A thread spends nearly all of its time in fsync, with the GIL released; with too few, a
# slow disk queues the commits of busy tables behind each other's (8 was saturated at 100
# tables).
WRITER_THREADS = 32


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
    # (deal_no, seat, s_i, cut) of a host bot seat's commitment, so a restart can reveal it
    bot_seed: tuple[int, int, bytes, int] | None = None
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
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    for suffix in ("", "-wal", "-shm"):
        companion = Path(f"{path}{suffix}")
        fd = os.open(companion, os.O_CREAT | os.O_RDWR, 0o600)
        os.close(fd)
        os.chmod(companion, 0o600)


class TableJournal:
    """The journal file of one table; every write returns once it is durable."""

    def __init__(self, path: Path, writers: ThreadPoolExecutor) -> None:
        self.path = path
        _private_file(path)
        # Autocommit mode: transactions are opened explicitly, one per entry.
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)
        self._writers = writers
        # The table's task writes one entry at a time; reads may come from the event loop.
        self._lock = threading.Lock()
        self._next_entry = self._last_entry() + 1

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def create(self, config: bytes) -> None:
        with self._transaction():
            self._db.execute("INSERT INTO table_config VALUES (?, ?)", (time.time_ns(), config))

    async def write(self, entry: Entry) -> None:
        """``append`` in a writer thread, so the event loop never waits on the disk."""
        await asyncio.get_running_loop().run_in_executor(self._writers, self.append, entry)

    def append(self, entry: Entry) -> None:
        """Write one entry and everything that goes with it in one transaction."""
        with self._transaction():
            entry_no = self._next_entry
            self._db.execute(
                "INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?)",
                (entry_no, entry.kind, entry.seat, entry.request_id, entry.request, entry.response),
            )
            # Only the statements with rows to write: each one is a round trip for the GIL,
            # which this thread waits for while the event loop is busy.
            if entry.events:
                self._db.executemany(
                    "INSERT INTO events VALUES (?, ?, ?)",
                    [(event.seq, entry_no, event.public) for event in entry.events],
                )
            private = [(e.seq, s, data) for e in entry.events for s, data in e.private.items()]
            if private:
                self._db.executemany("INSERT INTO private_events VALUES (?, ?, ?)", private)
            if entry.host_seed is not None:
                self._db.execute("INSERT INTO host_seeds VALUES (?, ?)", entry.host_seed)
            if entry.bot_seed is not None:
                self._db.execute("INSERT INTO bot_seeds VALUES (?, ?, ?, ?)", entry.bot_seed)
            if entry.deal_record is not None:
                self._db.execute("INSERT INTO deal_records VALUES (?, ?)", entry.deal_record)
            if entry.tokens:
                self._db.executemany("INSERT INTO tokens VALUES (?, ?)", entry.tokens)
            if entry.forget_seat is not None:
                self._db.execute("DELETE FROM tokens WHERE seat = ?", (entry.forget_seat,))
        self._next_entry = entry_no + 1

    def _last_entry(self) -> int:
        row = self._db.execute("SELECT MAX(entry_no) FROM entries").fetchone()
        return int(row[0] or 0)

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db, self._lock)

    # --- Reading back ---------------------------------------------------------------------

    def _query(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        """Rows of a read, never in the middle of a writer thread's transaction."""
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def config(self) -> tuple[int, bytes] | None:
        """When the table was created and its CreateTableRequest (None: an empty file)."""
        rows = self._query("SELECT created_ns, config FROM table_config")
        return (int(rows[0][0]), bytes(rows[0][1])) if rows else None

    def tokens(self) -> list[tuple[bytes, int | None]]:
        return [(bytes(d), seat) for d, seat in self._query("SELECT digest, seat FROM tokens")]

    def events(self, after_seq: int = 0) -> list[JournaledEvent]:
        public = self._query(
            "SELECT seq, public FROM events WHERE seq > ? ORDER BY seq", (after_seq,)
        )
        private: dict[int, dict[int, bytes]] = {}
        for seq, seat, data in self._query(
            "SELECT seq, seat, event FROM private_events WHERE seq > ?", (after_seq,)
        ):
            private.setdefault(int(seq), {})[int(seat)] = bytes(data)
        return [JournaledEvent(int(s), bytes(p), private.get(int(s), {})) for s, p in public]

    def entries(self) -> list[StoredEntry]:
        """Every entry in order, each with its events, to play the table back."""
        by_seq = {e.seq: e for e in self.events()}
        events: dict[int, list[JournaledEvent]] = {}
        for entry_no, seq in self._query("SELECT entry_no, seq FROM events ORDER BY seq"):
            events.setdefault(int(entry_no), []).append(by_seq[int(seq)])
        rows = self._query(
            "SELECT entry_no, kind, seat, request_id, request, response"
            " FROM entries ORDER BY entry_no"
        )
        return [
            StoredEntry(
                int(no), str(kind), seat, rid, bytes(req), bytes(resp), events.get(int(no), [])
            )
            for no, kind, seat, rid, req, resp in rows
        ]

    def host_seeds(self) -> dict[int, bytes]:
        return {int(n): bytes(s) for n, s in self._query("SELECT deal_no, seed FROM host_seeds")}

    def bot_seeds(self) -> dict[tuple[int, int], tuple[bytes, int]]:
        """The host bot seats' seeds and cuts, by (deal_no, seat)."""
        rows = self._query("SELECT deal_no, seat, seed, cut FROM bot_seeds")
        return {(int(n), int(seat)): (bytes(s), int(c)) for n, seat, s, c in rows}

    def deal_record(self, deal_no: int) -> bytes | None:
        rows = self._query("SELECT record FROM deal_records WHERE deal_no = ?", (deal_no,))
        return bytes(rows[0][0]) if rows else None


class JournalStore:
    """The folder of table journals and the writer threads they share."""

    def __init__(self, data_dir: Path) -> None:
        self.folder = data_dir / TABLES_FOLDER
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.folder, 0o700)
        self._writers = ThreadPoolExecutor(max_workers=WRITER_THREADS, thread_name_prefix="journal")
        self._open: list[TableJournal] = []

    def path(self, table_id: str) -> Path:
        return self.folder / f"{table_id}{SUFFIX}"

    async def create(self, table_id: str, config: bytes) -> TableJournal:
        """A new table's journal; made in a writer thread, as creating a file waits on the disk."""

        def make() -> TableJournal:
            journal = self._opened(self.path(table_id))
            journal.create(config)
            return journal

        return await asyncio.get_running_loop().run_in_executor(self._writers, make)

    def existing(self) -> list[tuple[str, TableJournal, bytes]]:
        """Every table journal in the folder, oldest table first: (table id, journal, config)."""
        found = []
        for path in sorted(self.folder.glob(f"*{SUFFIX}")):
            journal = self._opened(path)
            config = journal.config()
            if config is None:  # created but never written: nothing to reopen
                continue
            found.append((config[0], path.name.removesuffix(SUFFIX), journal, config[1]))
        found.sort(key=lambda item: item[0])
        return [(table_id, journal, config) for _, table_id, journal, config in found]

    def _opened(self, path: Path) -> TableJournal:
        journal = TableJournal(path, self._writers)
        self._open.append(journal)
        return journal

    def close(self) -> None:
        self._writers.shutdown(wait=True)
        for journal in self._open:
            journal.close()


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
