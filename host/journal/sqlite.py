"""The SQLite journals: a file per table; everything one table job accepted is one transaction.

A job (one request, or one of the host's own steps) may accept several entries:
StartMatch is the start and the first deal's announcement, the play that ends a
deal is the play, the deal's end and the next announcement. They are written
together or not at all (``write_job``), so a crash at any instant leaves a
journal that ends at a job boundary, which the replay always accepts. (A table's
jobs that waited together are one transaction, ``host.table.task``: the journal
then ends at the last of them, a job boundary too; ``job_no`` numbers the
transaction.) Nothing reaches a subscriber before its job is durable. Each file is in
WAL mode and readable only by the host's user,
because it also holds host secrets: each deal's host seed (secret until the
deal ends), the seeds and cuts of the host's own bot seats (secret until they
are revealed) and the digests of seat tokens. One file per table keeps a
damaged one the trouble of its own table alone. The jobs of all tables go to
the writer the host shares (``Writers``): it takes the jobs that are ready,
writes each in its table's file, makes them all durable with one fsync of the
host's commit log (``host.journal.commitlog``), commits each table's
transaction with ``synchronous=NORMAL`` and hands the batch back to the event
loop at once (group commit: one fsync and one hand-off each way for the tables
ready at the same moment, not one for each table). At start the log's jobs
that a table's file lost (a power cut) are written back into it. The host's
other writes (a new table's schema, the write-back) use ``synchronous=FULL``.

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

from host.journal import commitlog

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
# The writer threads without the commit log (``Writers``; with it, one thread writes every
# batch). A thread spends nearly all of its time in fsync, with
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
# SQLite's wait for another process's lock on a table's file, for a write of its own.
BUSY_MS = 5000


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


def logged_entry(entry: Entry) -> list[object]:
    """An entry as the commit log keeps it (plain values)."""
    extras = entry.extras
    return [
        entry.kind,
        entry.seat,
        entry.request_id,
        entry.request,
        entry.response,
        [[e.seq, e.public, [[s, p] for s, p in e.private.items()]] for e in entry.events],
        [
            list(extras.host_seed) if extras.host_seed is not None else None,
            list(extras.bot_seed) if extras.bot_seed is not None else None,
            list(extras.deal_record) if extras.deal_record is not None else None,
            [[digest, seat] for digest, seat in extras.tokens],
            extras.forget_seat,
        ],
    ]


def entry_from_log(value: Any) -> Entry:
    """An entry from the commit log (``logged_entry``'s value)."""
    kind, seat, request_id, request, response, events, extras = value
    host_seed, bot_seed, deal_record, tokens, forget_seat = extras
    return Entry(
        kind,
        seat,
        request_id,
        request,
        response,
        tuple(JournaledEvent(seq, public, dict(private)) for seq, public, private in events),
        Extras(
            host_seed=tuple(host_seed) if host_seed is not None else None,
            bot_seed=tuple(bot_seed) if bot_seed is not None else None,
            deal_record=tuple(deal_record) if deal_record is not None else None,
            tokens=tuple((digest, s) for digest, s in tokens),
            forget_seat=forget_seat,
        ),
    )


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
_Told = dict[asyncio.AbstractEventLoop, list[tuple[_Settle, BaseException | None]]]


class _Busy(Exception):
    """The table's file is locked by another process: its job waits for the next batch."""


# A job whose table's file another process holds locked is tried again with each batch for
# this long (what SQLite's busy timeout waited before), then refused; other tables go on.
BUSY_SECONDS = 5.0
BUSY_RETRY_SECONDS = 0.02


class Writers:
    """The writer threads the journals of a host share: group commit of the tables' jobs.

    With a commit log (``log_folder``, the host's way): one thread takes every job
    waiting, begins each in its table's transaction and writes its entries
    (a failure there is that job's alone), appends them all to the log as one
    record made durable by one ``fdatasync``, then commits each table's
    transaction (``synchronous=NORMAL``: no fsync of its own) and hands the whole
    batch back to the event loop in one call. A log write that fails rolls back
    every transaction of the batch: each of its jobs fails, no other. A table
    whose own commit fails after the log took its job has it voided in the log
    (a second record) before the job is refused. Now and then (``CHECKPOINT_BYTES``
    of log) the log starts a new file, and a checkpoint makes the table files
    written meanwhile durable and removes the older file; at close the same for
    all of it (``host.journal.commitlog``).

    Without one (``threads`` threads, as the host wrote before): a free thread
    takes its share of what is waiting (all of it when no other thread is free:
    a batch), commits each in its own table's transaction with
    ``synchronous=FULL`` (``append_job``: one fsync each), and hands its share
    back to the event loop in one call.
    """

    def __init__(self, threads: int, log_folder: Path | None = None) -> None:
        self._ready: collections.deque[_Job] = collections.deque()
        self._wake = threading.Condition()
        self._closing = False
        self._idle = 0  # threads waiting for work
        self.log_syncs = 0  # the log's fdatasyncs, one a batch (read by tests and the bench)
        self.table_syncs = 0  # the table files' fsyncs at checkpoints and closes
        self.log_folder = log_folder
        self._log: commitlog.LogFile | None = None
        self._dirty: set[TableJournal] = set()  # written since the log's current file began
        self._checkpointing: threading.Thread | None = None
        if log_folder is not None:
            log_folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(log_folder, 0o700)
            self._batch_no = commitlog.last_batch_no(log_folder)
            self._log = self._new_log_file()
            work, threads = self._work_logged, 1
        else:
            work = self._work
        self._threads = [
            threading.Thread(target=work, name=f"journal-writer-{n}", daemon=True)
            for n in range(threads)
        ]
        for thread in self._threads:
            thread.start()

    def _new_log_file(self) -> commitlog.LogFile:
        assert self.log_folder is not None
        files = commitlog.log_files(self.log_folder)
        number = int(files[-1].name) + 1 if files else 1
        made = commitlog.LogFile(self.log_folder / f"{number:08d}")
        commitlog.sync_folder(self.log_folder)
        return made

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
            told: _Told = {}
            for journal, entries, loop, settle in batch:
                outcome: BaseException | None = None
                try:
                    journal.append_job(entries)
                except BaseException as error:
                    outcome = error
                told.setdefault(loop, []).append((settle, outcome))
            _tell(told)

    # --- With the commit log ----------------------------------------------------------------

    def _work_logged(self) -> None:
        waiting: list[tuple[_Job, float]] = []  # jobs of locked tables, and when they give up
        while True:
            with self._wake:
                while not self._ready and not self._closing and not waiting:
                    self._wake.wait()
                if not self._ready and waiting:
                    self._wake.wait(BUSY_RETRY_SECONDS)
                if not self._ready and not waiting:
                    break  # closing, and nothing left to write
                fresh = list(self._ready)
                self._ready.clear()
            given_up = time.monotonic() + BUSY_SECONDS
            waiting = self._write_batch(waiting + [(job, given_up) for job in fresh])
            self._maybe_checkpoint()
        self._final_checkpoint()

    def _write_batch(self, batch: list[tuple[_Job, float]]) -> list[tuple[_Job, float]]:
        """Write one batch (see the class); returns the jobs whose table was locked."""
        told: _Told = {}

        def tell(job: _Job, outcome: BaseException | None) -> None:
            told.setdefault(job[2], []).append((job[3], outcome))

        later: list[tuple[_Job, float]] = []
        begun: list[tuple[_Job, int]] = []
        held: set[int] = set()  # the journals with a job begun
        now = time.monotonic()
        for job, given_up in batch:
            journal = job[0]
            if id(journal) in held:
                later.append((job, given_up))  # its table's previous job first
                continue
            try:
                begun.append((job, journal._begin_job(job[1], wait=now < given_up)))
                held.add(id(journal))
            except _Busy:
                later.append((job, given_up))
            except BaseException as error:
                tell(job, error)
        if begun:
            assert self._log is not None
            try:
                payload = commitlog.encode_jobs(
                    [
                        commitlog.LoggedJob(
                            job[0].table_id, first, [logged_entry(e) for e in job[1]]
                        )
                        for job, first in begun
                    ]
                )
                self._append(commitlog.JOBS, payload, reserve=True)
            except BaseException as error:
                for job, _ in begun:
                    job[0]._abandon_job()
                    failed = error
                    if isinstance(error, OSError):
                        failed = JournalWriteFailed(job[0].path, _why(error))
                    tell(job, failed)
                begun = []
            voids: list[tuple[_Job, int, BaseException]] = []
            for job, first in begun:
                try:
                    job[0]._commit_job()
                except BaseException as error:  # not the table's: voided, then refused
                    voids.append((job, first, error))
                    continue
                self._dirty.add(job[0])
                tell(job, None)
            if voids:
                self._void(voids, tell)
        _tell(told)
        return later

    def _void(
        self,
        voids: list[tuple[_Job, int, BaseException]],
        tell: Callable[[_Job, BaseException | None], None],
    ) -> None:
        """Jobs the log holds that their tables' files did not take: voided in the log before
        they are refused (a void is written from the space the log keeps for it)."""
        try:
            payload = commitlog.encode_voids(
                [commitlog.Void(job[0].table_id, first) for job, first, _ in voids]
            )
            self._append(commitlog.VOIDS, payload, reserve=False)
        except Exception as error:
            for job, _, _ in voids:
                # The log says the job is the table's and its file does not: the table takes
                # no more moves; the next start gives it the job from the log.
                try:
                    job[0]._damaged(
                        f"its file did not take a job the host's commit log holds ({error})"
                    )
                except JournalDamaged as damaged:
                    tell(job, damaged)
            return
        for job, _, refused in voids:
            tell(job, refused)

    def _append(self, kind: int, payload: bytes, *, reserve: bool) -> None:
        assert self._log is not None
        self._log.append(commitlog.record(kind, self._batch_no + 1, payload), reserve=reserve)
        self._batch_no += 1
        self.log_syncs += 1

    def _maybe_checkpoint(self) -> None:
        """Past ``CHECKPOINT_BYTES``: a new log file, and the older one checkpointed beside."""
        assert self._log is not None
        if self._log.end < commitlog.CHECKPOINT_BYTES:
            return
        if self._checkpointing is not None and self._checkpointing.is_alive():
            return  # the one before is not done: this file grows meanwhile
        try:
            fresh = self._new_log_file()
        except OSError:
            return  # no room for a new file: the current one grows, or its writes fail
        older, dirty = self._log, self._dirty
        self._log, self._dirty = fresh, set()
        self._checkpointing = threading.Thread(
            target=self._checkpoint, args=(older, dirty), name="journal-checkpoint", daemon=True
        )
        self._checkpointing.start()

    def _checkpoint(self, older: commitlog.LogFile, dirty: set[TableJournal]) -> None:
        """Every table file written while ``older`` was the log's, made durable; then
        ``older`` removed (kept, and read again at the next start, if a sync fails)."""
        try:
            for journal in dirty:
                self.table_syncs += journal._sync_wal()
        except OSError:
            older.close()
            return
        older.close()
        with contextlib.suppress(OSError):
            older.path.unlink()
            assert self.log_folder is not None
            commitlog.sync_folder(self.log_folder)

    def _final_checkpoint(self) -> None:
        """At close: every table file the log covers made durable, then the log removed."""
        if self._checkpointing is not None:
            self._checkpointing.join()
        assert self._log is not None and self.log_folder is not None
        try:
            for journal in self._dirty:
                self.table_syncs += journal._sync_wal(clean=True)
        except OSError:
            self._log.close()
            return  # the log stays, for the next start
        self._log.close()
        with contextlib.suppress(OSError):
            for path in commitlog.log_files(self.log_folder):
                path.unlink()
            commitlog.sync_folder(self.log_folder)

    def drop_older_logs(self) -> None:
        """Remove the log files before the current one (their jobs are in the table files,
        written there durably by ``JournalStore``'s recovery)."""
        assert self._log is not None and self.log_folder is not None
        for path in commitlog.log_files(self.log_folder):
            if path != self._log.path:
                path.unlink()
        commitlog.sync_folder(self.log_folder)

    def close(self) -> None:
        """Write what was handed in, then stop the threads."""
        with self._wake:
            self._closing = True
            self._wake.notify_all()
        for thread in self._threads:
            thread.join()


def _tell(told: _Told) -> None:
    """Each loop handed its jobs' outcomes in one call."""
    for loop, settled in told.items():
        with contextlib.suppress(RuntimeError):  # a loop closed meanwhile: nobody waits
            loop.call_soon_threadsafe(_settle_all, settled)


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
        # The connection and the synchronous level its writes are set to (``_db_at``).
        self._leveled: tuple[sqlite3.Connection, str] | None = None
        self._begun: tuple[_Transaction, int] | None = None  # a batch's job not yet committed
        self._unsynced = False  # committed through the commit log since its file's last fsync
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
        """Close the connection for good (the host stops, or the journal moves away); what
        the commit log made durable is made durable in the file first."""
        with self._lock:
            if self._unsynced:
                with contextlib.suppress(OSError):  # the log keeps it for the next start
                    self._writers.table_syncs += self._sync_wal(clean=True)
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
                self._write_entries(entries)
        except (sqlite3.Error, OSError) as error:
            self._after_failure(error)
            raise JournalWriteFailed(self.path, _why(error)) from error
        self._seen = self._looks()
        self._next_entry += len(entries)

    def _write_entries(self, entries: Sequence[Entry]) -> int:
        """Inside a job's transaction: the files looked at (SQLite's own check first, after
        a rest), then the job's entries; returns its job number (its first entry's)."""
        if self._reopened:  # the first job since the journal rested
            self._reopened = False
            self._check_integrity()
        self._unchanged()
        job_no = self._next_entry
        for offset, entry in enumerate(entries):
            self._insert(job_no + offset, job_no, entry)
        return job_no

    @property
    def table_id(self) -> str:
        return self.path.name.removesuffix(SUFFIX)

    def _begin_job(self, entries: Sequence[Entry], *, wait: bool) -> int:
        """The first half of a job of a ``Writers`` batch: its transaction begun and its
        entries written, not committed; returns its job number (its first entry's).

        Raises ``_Busy`` when another process holds the file locked and ``wait``;
        ``JournalWriteFailed`` as ``append_job`` does (nothing of the job is kept).
        """
        if self.damage is not None:
            self._damaged(self.damage)
        transaction = self._transaction("NORMAL")
        try:
            transaction.__enter__()
        except (sqlite3.Error, OSError) as error:
            if wait and getattr(error, "sqlite_errorname", "").startswith("SQLITE_BUSY"):
                raise _Busy() from error
            self._after_failure(error)
            raise JournalWriteFailed(self.path, _why(error)) from error
        try:
            job_no = self._write_entries(entries)
        except BaseException as error:
            transaction.__exit__(type(error), error, None)
            if isinstance(error, (sqlite3.Error, OSError)):
                self._after_failure(error)
                raise JournalWriteFailed(self.path, _why(error)) from error
            raise
        self._begun = (transaction, len(entries))
        return job_no

    def _commit_job(self) -> None:
        """The second half, once the commit log holds the job: its transaction committed
        (``JournalWriteFailed`` when that fails: rolled back)."""
        assert self._begun is not None
        (transaction, count), self._begun = self._begun, None
        try:
            transaction.__exit__(None, None, None)
        except (sqlite3.Error, OSError) as error:
            self._after_failure(error)
            raise JournalWriteFailed(self.path, _why(error)) from error
        self._seen = self._looks()
        self._next_entry += count
        self._unsynced = True

    def _abandon_job(self) -> None:
        """The job begun is not kept (the commit log did not take its batch): rolled back."""
        assert self._begun is not None
        (transaction, _), self._begun = self._begun, None
        transaction.__exit__(JournalWriteFailed, None, None)
        with self._lock, contextlib.suppress(sqlite3.Error, OSError):
            self._seen = self._looks()  # a rolled-back transaction may have left frames

    def _sync_wal(self, *, clean: bool = False) -> bool:
        """The commits made through the commit log, made durable in this file: an fsync of
        its write-ahead log (what its commits wrote; a checkpoint into the database file,
        SQLite's own, syncs both). None to do when the log is gone (checkpointed at close).
        ``clean``: nothing is written meanwhile, so nothing is left unsynced. Returns
        whether there was a log to sync."""
        try:
            fd = os.open(self._wal, os.O_RDONLY)
        except FileNotFoundError:
            fd = -1
        if fd >= 0:
            try:
                os.fdatasync(fd)
            finally:
                os.close(fd)
        if clean:
            self._unsynced = False
        return fd >= 0

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

    def _transaction(self, level: str = "FULL") -> _Transaction:
        return _Transaction(lambda: self._db_at(level), self._lock)

    def _db_at(self, level: str) -> sqlite3.Connection:
        """The connection, its writes set to ``level``: FULL (an fsync each commit, SQLite's
        busy timeout) for a write made durable by the table file alone, NORMAL (no fsync,
        no wait for another process's lock) for a job the commit log makes durable."""
        db = self._db
        if self._leveled is None or self._leveled[0] is not db or self._leveled[1] != level:
            db.execute(f"PRAGMA synchronous={level}")
            db.execute(f"PRAGMA busy_timeout={0 if level == 'NORMAL' else BUSY_MS}")
            self._leveled = (db, level)
        return db

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

    def __init__(self, data_dir: Path, *, group_commit: bool = True) -> None:
        """The data dir's journals. ``group_commit`` (the host's way): the tables' jobs made
        durable by the commit log, one fsync a batch, and what the log holds from before
        (a host that died) written into the table files first (``recovered`` says what
        could not be, each such table set aside alone). Without: one fsync a job, in its
        table's file (for comparison, ``bench/bench_journal.py``)."""
        self.folder = data_dir / TABLES_FOLDER
        self.archive_folder = data_dir / ARCHIVE_FOLDER
        self.damaged_folder = data_dir / DAMAGED_FOLDER
        for folder in (self.folder, self.archive_folder, self.damaged_folder):
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(folder, 0o700)
        log_folder = data_dir / commitlog.LOG_FOLDER
        left = commitlog.read_log(log_folder) if group_commit else {}
        self._writers = Writers(WRITER_THREADS, log_folder if group_commit else None)
        self._makers = ThreadPoolExecutor(max_workers=MAKER_THREADS, thread_name_prefix="journal")
        self._open: dict[Path, TableJournal] = {}
        self.recovered: list[str] = []  # the tables set aside while the log was written back
        if group_commit:
            self.recovered = self._write_back(left)
            self._writers.drop_older_logs()

    @property
    def writers(self) -> Writers:
        return self._writers

    def _write_back(self, left: dict[str, list[commitlog.LoggedJob]]) -> list[str]:
        """Each table's jobs the commit log holds past its file's last entry, written into
        the file (each one a transaction with ``synchronous=FULL``). A table whose file
        cannot take them is set aside alone; returns what was set aside, and why."""
        problems = []
        for table_id, jobs in sorted(left.items()):
            path = self.path(table_id)
            if not path.exists():
                continue  # archived or removed since: its file was made durable before
            try:
                journal = TableJournal(path, self._writers)
                try:
                    for job in jobs:
                        last = journal._next_entry - 1
                        if job.first_entry + len(job.entries) - 1 <= last:
                            continue  # the file has it
                        if job.first_entry != last + 1:
                            raise JournalWriteFailed(
                                path,
                                f"the host's commit log holds its job from entry "
                                f"{job.first_entry} and its file ends at entry {last}",
                            )
                        journal.append_job([entry_from_log(e) for e in job.entries])
                finally:
                    journal.close()
            except (sqlite3.Error, OSError, JournalWriteFailed) as error:
                reason = (
                    f"{type(error).__name__}: {error}; the host's commit log held "
                    f"{len(jobs)} job(s) of it"
                )
                target = self.set_aside(path, reason)
                problems.append(f"table {table_id} set aside as {target}: {reason}")
        return problems

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
