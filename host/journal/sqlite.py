"""The SQLite journals: a file per table; everything one table job accepted is one transaction.

A job (one request, or one of the host's own steps) may accept several entries:
StartMatch is the start and the first deal's announcement, the play that ends a
deal is the play, the deal's end and the next announcement. They are written
together or not at all (``write_job``), so a crash at any instant leaves a
journal that ends at a job boundary, which the replay always accepts. Nothing
reaches a subscriber before its job is committed. Each file is in
WAL mode with ``synchronous=FULL`` and readable only by the host's user,
because it also holds host secrets: each deal's host seed (secret until the
deal ends), the seeds and cuts of the host's own bot seats (secret until they
are revealed) and the digests of seat tokens. One file per table keeps a
damaged one the trouble of its own table alone. The jobs of all tables go to
the writer threads the host shares (``Writers``): a free thread takes its
share of the jobs that are ready (all of them while the others are busy),
commits each in its table's file, and hands the batch back to the event loop
at once (group commit: one hand-off each way for the tables ready at the
same moment, not one for each table).

An entry keeps both what was asked (``kind`` and the request's bytes, enough
to replay it through the engine) and what followed (the seq-numbered events,
their public form and each seat's private part), so streams resume from it
and a restart rebuilds the table (``host.journal.recovery``).

A journal damaged under the running host (the file cut short, removed or
replaced, garbage written into its pages or its write-ahead log) would let
the table acknowledge moves that the next start cannot read back. Before each
job the journal looks at its two files as the host's last commit left them
(identity, size, modification time, the first pages' digest: nothing else
writes them meanwhile, and a reader beside the host, such as the owner's
``--list-matches``, changes none of these); when a write fails, when the
journal goes to rest and when it writes again after resting, SQLite checks
the database (``quick_check``).
A damaged journal refuses every write from then on (``JournalDamaged``): the
table takes no more moves and says why.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import errno
import os
import sqlite3
import threading
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

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
    response BLOB NOT NULL,         -- the answer given, to repeat it on a retry
    job_no INTEGER                  -- the job (one transaction) that wrote it
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


def _statements(script: str) -> list[str]:
    """The statements of ``script`` one by one (its comments hold semicolons too)."""
    statements, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    return statements


# Each statement of the schema apart, to run them inside one transaction.
SCHEMA_STATEMENTS = _statements(SCHEMA)

TABLES_FOLDER = "tables"
# In ``archive/``: the token digests of the archived matches, one "<hex> <table id>" a line.
GONE_TOKENS = "gone-tokens"
ARCHIVE_FOLDER = "archive"
DAMAGED_FOLDER = "damaged"
SUFFIX = ".sqlite3"
# The writer threads (``Writers``). A thread spends nearly all of its time in fsync, with
# the GIL released: enough of them that the tables' commits wait on the disk side by side
# (8 was saturated at 100 tables when each job had a thread of its own).
WRITER_THREADS = 32
# The threads that make new journal files (a file's creation waits on the disk too).
MAKER_THREADS = 4
# Each connection's page cache, in KB (see ``TableJournal._connect``).
CACHE_KB = 64
# How much of the start of each file (the database's first pages, the write-ahead log's
# header and first frames) is compared with what the last commit left, before each job:
# a write anywhere also moves the file's change time, but only at the clock's next tick.
WATCHED_BYTES = 16 * 1024


@dataclass(frozen=True)
class JournaledEvent:
    """One seq-numbered table event: its public bytes and each seat's private part."""

    seq: int
    public: bytes
    private: Mapping[int, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class Extras:
    """What an entry writes besides its events: secrets, records and tokens kept with it."""

    host_seed: tuple[int, bytes] | None = None  # (deal_no, s_host) drawn with this entry
    # (deal_no, seat, s_i, cut) of a host bot seat's commitment, so a restart can reveal it
    bot_seed: tuple[int, int, bytes, int] | None = None
    deal_record: tuple[int, bytes] | None = None  # (deal_no, record) completed with this entry
    tokens: Sequence[tuple[bytes, int | None]] = ()  # (digest, seat) handed out with this entry
    forget_seat: int | None = None  # a seat given up: its tokens no longer open anything


NO_EXTRAS = Extras()


@dataclass(frozen=True)
class Entry:
    """One accepted action or fair-deal message and the events it caused."""

    kind: str
    seat: int | None
    request_id: str | None
    request: bytes
    response: bytes
    events: Sequence[JournaledEvent] = ()
    extras: Extras = NO_EXTRAS


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


class Journal(Protocol):
    """What a table's task writes to and plays back from: ``TableJournal`` (SQLite, on
    disk) or ``host.journal.memory.MemoryJournal`` (the same, kept in memory, for tests)."""

    path: Path  # named in the log and in the refusals of a table whose journal failed

    def write_job(
        self, entries: Sequence[Entry], committed: Callable[[], None] | None = None
    ) -> asyncio.Future[None]:
        """Write one job's entries as one transaction; the future is done once it is durable
        (or raises ``JournalWriteFailed``), ``committed`` run on the loop just before."""
        ...

    def append_job(self, entries: Sequence[Entry]) -> None:
        """The same, waiting for it here (``JournalWriteFailed`` when it did not commit)."""
        ...

    def entries(self) -> list[StoredEntry]:
        """Every entry in order, each with its events, to play the table back."""
        ...

    def host_seeds(self) -> dict[int, bytes]: ...

    def bot_seeds(self) -> dict[tuple[int, int], tuple[bytes, int]]: ...

    def deal_record(self, deal_no: int) -> bytes | None: ...


def _private_file(path: Path, new: bool = False) -> None:
    """Create ``path`` (and its -wal/-shm companions) readable by the host's user only.

    ``new``: a journal being made in the folder the store made private; only the database
    file is created, since SQLite gives the -wal and -shm files it makes the database
    file's mode (and owner), whatever the umask."""
    if new:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600))
        os.chmod(path, 0o600)  # as the umask left it, exactly
        return
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    for suffix in ("", "-wal", "-shm"):
        companion = Path(f"{path}{suffix}")
        fd = os.open(companion, os.O_CREAT | os.O_RDWR, 0o600)
        os.close(fd)
        os.chmod(companion, 0o600)


class JournalWriteFailed(Exception):
    """A job's transaction did not commit: nothing of it is in the journal.

    ``why`` says it for a person ("disk full", "the journal is locked by another
    process"); the table refuses the move with it and keeps its state as the journal has it.
    """

    def __init__(self, path: Path, why: str) -> None:
        self.path = path
        self.why = why
        super().__init__(f"{path}: {why}")


class JournalDamaged(JournalWriteFailed):
    """The journal was damaged while the host ran: it takes no write again (``why`` says
    what was found, without the server's paths)."""


# SQLite's words for a file that is not the database it was.
_DAMAGE_ERRORS = ("SQLITE_CORRUPT", "SQLITE_NOTADB")


@dataclass(frozen=True)
class _FileLook:
    """One of the journal's files as seen: which file it is, its size, its first bytes."""

    device: int
    inode: int
    size: int
    # st_mtime_ns: any write or cut of the content moves it. Not st_ctime_ns, which the
    # owner or mode set again moves too: SQLite running as root gives the write-ahead log
    # its owner again each time another connection opens it (a reader beside the host,
    # ``scala40-host --list-matches``), and that changes nothing the journal holds.
    written_ns: int
    digest: int  # CRC-32 of the first bytes: any change there shows (no adversary is kept out)


def _look(path: Path) -> _FileLook | None:
    """``path`` as it is now (None: there is no such file)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        status = os.fstat(fd)
        start = os.pread(fd, WATCHED_BYTES, 0)
    finally:
        os.close(fd)
    # CRC-32, not a cryptographic hash: it tells a change from none, which is all this is
    # for, in a quarter of the time (four looks a job, on the writer thread).
    digest = zlib.crc32(start)
    return _FileLook(status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, digest)


def _change(what: str, before: _FileLook | None, now: _FileLook | None) -> str | None:
    """How ``what`` changed from ``before`` to ``now``, for a person; None: it did not."""
    if before is None:
        # SQLite makes the log when a connection first reads: empty, it holds nothing yet.
        return None if now is None or now.size == 0 else f"{what} appeared from elsewhere"
    if now is None:
        return f"{what} was removed"
    if (now.device, now.inode) != (before.device, before.inode):
        return f"{what} was replaced by another file"
    if now.size < before.size:
        return f"{what} was cut short ({now.size} bytes, it had {before.size})"
    if (now.size, now.written_ns, now.digest) != (before.size, before.written_ns, before.digest):
        return f"{what} was written by something other than this host"
    return None


def _why(error: sqlite3.Error | OSError) -> str:
    """The sentence for a failed write, from SQLite's own error name."""
    name = getattr(error, "sqlite_errorname", "")
    if name == "SQLITE_FULL" or getattr(error, "errno", None) == errno.ENOSPC:
        return "disk full"
    if name.startswith("SQLITE_BUSY") or name.startswith("SQLITE_LOCKED"):
        return "the journal is locked by another process"
    if name.startswith("SQLITE_IOERR"):
        return f"the disk refused the write ({error})"
    if name in ("SQLITE_READONLY", "SQLITE_CANTOPEN") or isinstance(error, PermissionError):
        return f"the journal cannot be written ({error})"
    return f"the journal refused the write ({error})"


def why_unmade(error: sqlite3.Error | OSError) -> str:
    """The sentence for a journal that could not be made, fit for a caller: it names no file
    (an OSError's text carries the path)."""
    if isinstance(error, OSError) and error.errno in (errno.EMFILE, errno.ENFILE):
        return "the host has no file descriptor left"
    if isinstance(error, OSError) and error.errno is not None:
        return _why(OSError(error.errno, os.strerror(error.errno)))
    return _why(error)


# What a writer thread hands back to the loop for one job: how to tell it, and its failure.
_Settle = Callable[[BaseException | None], None]
_Job = tuple["TableJournal", Sequence[Entry], asyncio.AbstractEventLoop, _Settle]


class Writers:
    """The writer threads the journals of a host share: group commit of the tables' jobs.

    Every job handed in waits in one queue; a thread that comes free takes its share of
    what is waiting (all of it when no other thread is free: a batch), commits each in
    its own table's transaction (``append_job``: a failure is that job's alone, the
    others of the batch commit), and hands the whole batch back to the event loop in one
    call. So the tables ready at the same moment while the writers are busy cost one
    hand-off to a thread and one back, not one each; while threads are free, each job
    has its own and no fsync waits behind another table's.
    """

    def __init__(self, threads: int) -> None:
        self._ready: collections.deque[_Job] = collections.deque()
        self._wake = threading.Condition()
        self._closing = False
        self._idle = 0  # threads waiting for work
        self._threads = [
            threading.Thread(target=self._work, name=f"journal-writer-{n}", daemon=True)
            for n in range(threads)
        ]
        for thread in self._threads:
            thread.start()

    def submit(
        self,
        journal: TableJournal,
        entries: Sequence[Entry],
        loop: asyncio.AbstractEventLoop,
        settle: _Settle,
    ) -> None:
        with self._wake:
            if self._closing:
                raise RuntimeError("the journal's writers are closed")
            self._ready.append((journal, entries, loop, settle))
            self._wake.notify()

    def _work(self) -> None:
        while True:
            with self._wake:
                while not self._ready and not self._closing:
                    self._idle += 1
                    self._wake.wait()
                    self._idle -= 1
                if not self._ready:
                    return  # closing, and nothing left to write
                # This thread's share: the other free threads take the rest side by side.
                share = -(-len(self._ready) // (self._idle + 1))
                batch = [self._ready.popleft() for _ in range(share)]
            told: dict[asyncio.AbstractEventLoop, list[tuple[_Settle, BaseException | None]]] = {}
            for journal, entries, loop, settle in batch:
                outcome: BaseException | None = None
                try:
                    journal.append_job(entries)
                except BaseException as error:
                    outcome = error
                told.setdefault(loop, []).append((settle, outcome))
            for loop, settled in told.items():
                with contextlib.suppress(RuntimeError):  # a loop closed meanwhile: nobody waits
                    loop.call_soon_threadsafe(_settle_all, settled)

    def close(self) -> None:
        """Write what was handed in, then stop the threads."""
        with self._wake:
            self._closing = True
            self._wake.notify_all()
        for thread in self._threads:
            thread.join()


def _settle_all(settled: list[tuple[_Settle, BaseException | None]]) -> None:
    """On the loop: every job of a batch told, in the order they were handed in (one that
    raises does not keep the others untold; the first such failure is raised after)."""
    failure: BaseException | None = None
    for settle, outcome in settled:
        try:
            settle(outcome)
        except BaseException as error:
            failure = failure or error
    if failure is not None:
        raise failure


class TableJournal:
    """The journal file of one table (a ``Journal``); every write returns once it is durable."""

    def __init__(self, path: Path, writers: Writers, config: bytes | None = None) -> None:
        """Open the journal at ``path``; with ``config``, make it: a new file whose schema and
        first row (the table's config) are one transaction, nothing read back."""
        self.path = path
        self._wal = Path(f"{path}-wal")
        self._seen: tuple[_FileLook | None, _FileLook | None] = (None, None)
        self._seen_version = 0
        self._reopened = False
        self._writers = writers
        # The table's task writes one job at a time; reads may come from the event loop.
        self._lock = threading.Lock()
        self.damage: str | None = None  # what was found damaged; no write is taken since
        _private_file(path, new=config is not None)
        self._connection: sqlite3.Connection | None = self._connect(new=config is not None)
        if config is not None:
            self._make(config)  # the files looked at once, as its commit leaves them
            self._next_entry = 1
            return
        self._seen = self._looks()
        self._db.executescript(SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(entries)")}
        if "job_no" not in columns:  # a journal from before jobs were numbered
            self._db.execute("ALTER TABLE entries ADD COLUMN job_no INTEGER")
        self._next_entry = self._last_entry() + 1

    def _make(self, config: bytes) -> None:
        """The schema and the config in one fsynced transaction (not one for each table of
        the schema, as a script in autocommit mode would be)."""
        with self._transaction():
            for statement in SCHEMA_STATEMENTS:
                self._db.execute(statement)
            self._db.execute("INSERT INTO table_config VALUES (?, ?)", (time.time_ns(), config))
        self._seen = self._looks()

    def _connect(self, new: bool = False) -> sqlite3.Connection:
        """A connection to the journal (``new``: to the empty file just made for it)."""
        # Autocommit mode: transactions are opened explicitly, one per job.
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        if new:
            # Turning an empty file into a WAL database writes its first page; through a
            # rollback journal that is a file made, three fsyncs and the file removed, to
            # protect a file that holds nothing yet. Kept in memory, it is the one page and
            # its fsync (a crash in it leaves the file empty, or unreadable and set aside at
            # the next start: a table nobody was told of, as CreateTable answers only once
            # the schema's transaction has committed to the write-ahead log).
            db.execute("PRAGMA journal_mode=MEMORY").fetchall()
        db.execute("PRAGMA journal_mode=WAL").fetchall()
        db.execute("PRAGMA synchronous=FULL")
        # A job writes a few pages and a replay reads the file once: a small page cache is
        # enough, and SQLite's default (up to 2 MB a connection) is paid by every live table.
        db.execute(f"PRAGMA cache_size=-{CACHE_KB}")
        self._seen_version = int(db.execute("PRAGMA data_version").fetchone()[0])
        return db

    def _looks(self) -> tuple[_FileLook | None, _FileLook | None]:
        """The database file and its write-ahead log as they are now."""
        return _look(self.path), _look(self._wal)

    def _unchanged(self) -> None:
        """Raise ``JournalDamaged`` when the files are not as this host's connection left
        them: between two of its commits nothing else writes them."""
        (before_db, before_wal), (now_db, now_wal) = self._seen, self._looks()
        change = _change("the journal file", before_db, now_db) or _change(
            "its write-ahead log", before_wal, now_wal
        )
        if change is None:
            return
        if self._data_version() != self._seen_version:
            # Another SQLite connection committed (a tool, the owner's own hand): the files
            # changed as SQLite changes them. Damage only if SQLite finds the database so.
            self._check_integrity()
            self._seen, self._seen_version = self._looks(), self._data_version()
            return
        self._damaged(change)

    def _data_version(self) -> int:
        """SQLite's count of the commits other connections made to the database."""
        return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    def _damaged(self, what: str) -> None:
        self.damage = what
        raise JournalDamaged(
            self.path,
            f"its journal was damaged while the host ran ({what}); it takes no more moves, "
            "so that none is acknowledged and then lost",
        )

    def _check_integrity(self) -> None:
        """SQLite's check of the whole database (a write failed, or the journal rests):
        ``JournalDamaged`` when it finds damage."""
        try:
            rows = self._db.execute("PRAGMA quick_check").fetchall()
        except sqlite3.Error as error:
            if getattr(error, "sqlite_errorname", "") in _DAMAGE_ERRORS:
                self._damaged(f"SQLite finds it damaged: {error}")
            return  # locked, or out of memory: nothing known of its state
        if rows != [("ok",)]:
            self._damaged(f"SQLite finds it damaged: {rows[0][0]}")

    @property
    def _db(self) -> sqlite3.Connection:
        """The connection, opened again after ``rest``; use it holding the lock (or at open)."""
        if self._connection is None:
            self._connection = self._connect()
            self._seen = self._looks()
            self._reopened = True  # what happened to the files meanwhile, only SQLite can tell
        return self._connection

    @property
    def resting(self) -> bool:
        """Whether the connection is closed until the next read or write (``rest``)."""
        return self._connection is None

    def rest(self) -> None:
        """Close the connection until the journal is next read or written.

        An open connection holds about 150 KB of SQLite's memory; a table left waiting
        for players needs none of it until its next job (``host.journal.registry`` says
        when a table's journal rests). Closing the last connection checkpoints the
        write-ahead log into the database and removes it: at rest the database file alone
        is the table, and nothing holds it open.
        """
        with self._lock:
            if self._connection is not None:
                # Damage found now is told at the next write; the connection stays open, as
                # closing it would checkpoint the write-ahead log, garbage and all, into the
                # database.
                if self.damage is None:
                    with contextlib.suppress(JournalDamaged):
                        self._unchanged()
                        self._check_integrity()
                if self.damage is None:
                    self._connection.close()
                    self._connection = None

    def close(self) -> None:
        """Close the connection for good (the host stops, or the journal moves away)."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def create(self, config: bytes) -> None:
        """Write the config of a journal opened empty (``JournalStore.create`` makes a new
        one with its config in the schema's transaction)."""
        with self._transaction():
            self._db.execute("INSERT INTO table_config VALUES (?, ?)", (time.time_ns(), config))
        self._seen = self._looks()

    def write_job(
        self, entries: Sequence[Entry], committed: Callable[[], None] | None = None
    ) -> asyncio.Future[None]:
        """``append_job`` started in a writer thread, so the event loop never waits on the
        disk: await the future for the commit (or its ``JournalWriteFailed``).

        ``committed`` runs on the event loop in the first pass after the commit returns,
        before the future is done (and never if the write failed): what must follow the
        commit at once (publishing the job) waits for no further pass of the loop.
        """
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()

        def settle(error: BaseException | None) -> None:
            if done.cancelled():
                return
            if error is None and committed is not None:
                try:
                    committed()
                except BaseException as failure:  # a bug after the commit: its awaiter raises
                    error = failure
            if error is None:
                done.set_result(None)
            else:
                done.set_exception(error)

        self._writers.submit(self, entries, loop, settle)
        return done

    def append_job(self, entries: Sequence[Entry]) -> None:
        """Write every entry of one job, and everything that goes with them, in one transaction.

        Raises ``JournalWriteFailed`` when the transaction did not commit (rolled back:
        the journal is as it was before the job).
        """
        if self.damage is not None:
            self._damaged(self.damage)
        try:
            with self._transaction():
                if self._reopened:  # the first job since the journal rested
                    self._reopened = False
                    self._check_integrity()
                self._unchanged()
                job_no = self._next_entry
                for offset, entry in enumerate(entries):
                    self._insert(job_no + offset, job_no, entry)
        except (sqlite3.Error, OSError) as error:
            self._after_failure(error)
            raise JournalWriteFailed(self.path, _why(error)) from error
        self._seen = self._looks()
        self._next_entry += len(entries)

    def _after_failure(self, error: sqlite3.Error | OSError) -> None:
        """A write failed: damage, if that is why (``JournalDamaged``). A transaction rolled
        back may have left frames in the write-ahead log (never committed, so never read):
        the files are looked at afresh, once SQLite has checked the database."""
        if getattr(error, "sqlite_errorname", "") in _DAMAGE_ERRORS:
            self._damaged(f"SQLite finds it damaged: {error}")
        with self._lock, contextlib.suppress(sqlite3.Error, OSError):
            self._check_integrity()
            self._seen = self._looks()

    def _insert(self, entry_no: int, job_no: int, entry: Entry) -> None:
        self._db.execute(
            "INSERT INTO entries (entry_no, kind, seat, request_id, request, response, job_no)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                entry_no,
                entry.kind,
                entry.seat,
                entry.request_id,
                entry.request,
                entry.response,
                job_no,
            ),
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
        extras = entry.extras
        if extras.host_seed is not None:
            self._db.execute("INSERT INTO host_seeds VALUES (?, ?)", extras.host_seed)
        if extras.bot_seed is not None:
            self._db.execute("INSERT INTO bot_seeds VALUES (?, ?, ?, ?)", extras.bot_seed)
        if extras.deal_record is not None:
            self._db.execute("INSERT INTO deal_records VALUES (?, ?)", extras.deal_record)
        if extras.tokens:
            self._db.executemany("INSERT INTO tokens VALUES (?, ?)", extras.tokens)
        if extras.forget_seat is not None:
            self._db.execute("DELETE FROM tokens WHERE seat = ?", (extras.forget_seat,))

    def _last_entry(self) -> int:
        row = self._db.execute("SELECT MAX(entry_no) FROM entries").fetchone()
        return int(row[0] or 0)

    def _transaction(self) -> _Transaction:
        return _Transaction(lambda: self._db, self._lock)

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
    """The data dir's journal folders and the writer threads the tables share.

    ``tables/`` holds the journals of live tables (replayed at start), ``archive/``
    those of finished matches (kept with their results and signed deal records,
    never replayed), and ``damaged/`` those that could not be read or played back,
    each beside a ``.reason`` file that says why.
    """

    def __init__(self, data_dir: Path) -> None:
        self.folder = data_dir / TABLES_FOLDER
        self.archive_folder = data_dir / ARCHIVE_FOLDER
        self.damaged_folder = data_dir / DAMAGED_FOLDER
        for folder in (self.folder, self.archive_folder, self.damaged_folder):
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(folder, 0o700)
        self._writers = Writers(WRITER_THREADS)
        self._makers = ThreadPoolExecutor(max_workers=MAKER_THREADS, thread_name_prefix="journal")
        self._open: dict[Path, TableJournal] = {}

    def path(self, table_id: str) -> Path:
        return self.folder / f"{table_id}{SUFFIX}"

    async def create(self, table_id: str, config: bytes) -> TableJournal:
        """A new table's journal; made in a maker thread, as creating a file waits on the disk."""

        # Its connection is kept: a table is mostly joined and started at once, and closing
        # it now would checkpoint the log into the database only to open it again for the
        # first join (a table left waiting rests later: ``rest``).
        path = self.path(table_id)
        return await asyncio.get_running_loop().run_in_executor(
            self._makers, self.open, path, config
        )

    async def rest(self, path: Path) -> None:
        """Let the live journal at ``path`` rest (``TableJournal.rest``), in a maker thread:
        closing its connection checkpoints its log into the database, which waits on the disk."""
        journal = self._open.get(path)
        if journal is not None and not journal.resting and journal.damage is None:
            # One that cannot rest stays open: its next job meets whatever is wrong and says
            # so, and the janitor goes on to the other tables.
            with contextlib.suppress(sqlite3.Error, OSError):
                await asyncio.get_running_loop().run_in_executor(self._makers, journal.rest)

    def live_paths(self) -> list[Path]:
        """The journal files of the live tables, to open one by one (any may be damaged)."""
        return sorted(self.folder.glob(f"*{SUFFIX}"))

    def open(self, path: Path, config: bytes | None = None) -> TableJournal:
        """Open a journal file (with ``config``: make it); raises ``sqlite3.Error`` or
        ``OSError`` for a damaged one."""
        journal = TableJournal(path, self._writers, config)
        self._open[path] = journal
        return journal

    def forget(self, journal: TableJournal) -> None:
        """Close a journal the host no longer uses."""
        self._open.pop(journal.path, None)
        with contextlib.suppress(sqlite3.Error):
            journal.close()

    def set_aside(self, path: Path, reason: str) -> Path:
        """Move a journal that cannot be used to ``damaged/``, with the reason beside it."""
        self._close(path)
        target = self.damaged_folder / path.name
        _move_with_companions(path, target)
        reason_file = Path(f"{target}.reason")
        reason_file.write_text(reason + "\n", encoding="utf-8")
        os.chmod(reason_file, 0o600)
        return target

    def damaged(self) -> dict[str, str]:
        """The table ids set aside, at this start or an earlier one, with their reasons."""
        found = {}
        for path in sorted(self.damaged_folder.glob(f"*{SUFFIX}")):
            reason_file = Path(f"{path}.reason")
            reason = reason_file.read_text(encoding="utf-8").strip() if reason_file.exists() else ""
            found[path.name.removesuffix(SUFFIX)] = reason or "its journal could not be read"
        return found

    def damaged_tokens(self, table_id: str) -> list[tuple[bytes, int | None]]:
        """The seat tokens a set-aside journal still holds, if it can be read at all, so its
        seats are told the table was damaged rather than that their token is unknown."""
        return _tokens_of(self.damaged_folder / f"{table_id}{SUFFIX}")

    def archived_tokens(self) -> list[tuple[bytes, str]]:
        """The token digests of the archived matches, with their table ids, oldest first, so
        their holders are told the table is gone rather than that their token is a guess
        (one file, ``GONE_TOKENS``, written as each match is archived: a start reads no
        archived journal)."""
        index = self.archive_folder / GONE_TOKENS
        try:
            lines = index.read_text(encoding="ascii").splitlines()
        except (OSError, UnicodeDecodeError):
            return []
        found = []
        for line in lines:
            digest_hex, _, table_id = line.partition(" ")
            with contextlib.suppress(ValueError):
                found.append((bytes.fromhex(digest_hex), table_id))
        return found

    def _note_gone_tokens(self, path: Path) -> None:
        """Add the tokens of a journal being archived to ``GONE_TOKENS`` (a line each)."""
        table_id = path.name.removesuffix(SUFFIX)
        lines = "".join(f"{digest.hex()} {table_id}\n" for digest, _ in _tokens_of(path))
        index = self.archive_folder / GONE_TOKENS
        fd = os.open(index, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="ascii") as out:
            out.write(lines)

    def _close(self, path: Path) -> None:
        journal = self._open.get(path)
        if journal is not None:
            self.forget(journal)

    def archive(self, path: Path) -> Path:
        """Move a finished match's journal to ``archive/``: kept, no longer replayed."""
        self._close(path)
        with contextlib.suppress(OSError):  # without it, its tokens are unknown after a restart
            self._note_gone_tokens(path)
        target = self.archive_folder / path.name
        _move_with_companions(path, target)
        return target

    def remove(self, path: Path) -> None:
        """Delete the journal of a table that never started (nothing in it is worth keeping)."""
        self._close(path)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)

    def close(self) -> None:
        self._writers.close()
        self._makers.shutdown(wait=True)
        for journal in list(self._open.values()):
            self.forget(journal)


def _tokens_of(path: Path) -> list[tuple[bytes, int | None]]:
    """The (digest, seat) pairs of a journal the host does not run, read only; none when it
    cannot be read."""
    try:
        with contextlib.closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as db:
            rows = db.execute("SELECT digest, seat FROM tokens").fetchall()
    except sqlite3.Error:
        return []
    return [(bytes(digest), seat) for digest, seat in rows]


def _move_with_companions(path: Path, target: Path) -> None:
    """Rename a journal and its -wal/-shm files (same file system: one rename each)."""
    for suffix in ("", "-wal", "-shm"):
        source = Path(f"{path}{suffix}")
        if source.exists():
            os.replace(source, Path(f"{target}{suffix}"))


class _Transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` if the block raises), one thread at a time."""

    def __init__(self, connection: Callable[[], sqlite3.Connection], lock: threading.Lock) -> None:
        self._connection = connection
        self._lock = lock

    def __enter__(self) -> None:
        self._lock.acquire()
        try:
            # Taken under the lock: a journal at rest opens its connection here.
            self._db = self._connection()
            self._db.execute("BEGIN IMMEDIATE")
        except BaseException:
            self._lock.release()
            raise

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        try:
            if kind is None:
                try:
                    self._db.execute("COMMIT")
                    return
                except sqlite3.Error:
                    # A COMMIT that failed (a full disk) leaves the transaction open: undo it,
                    # or the next job could not even begin.
                    self._rollback()
                    raise
            self._rollback()
        finally:
            self._lock.release()

    def _rollback(self) -> None:
        if self._db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
