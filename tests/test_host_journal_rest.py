"""When a journal rests: a table waiting for players, nobody asking anything of it for
``TableSettings.journal_rest``, closes its journal's connection (the write-ahead log
checkpointed into the database: the file alone is the table, nothing holds it open); a table
being set up or played keeps its connection, from its creation on. A journal at rest writes
and reads as before once used again: one transaction per job, WAL and synchronous=NORMAL
(the host's commit log makes the job durable), files readable by the host's user only."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest

from host.journal import sqlite as journal_sqlite
from host.journal.commitlog import LOG_FOLDER, read_log
from host.journal.sqlite import (
    SUFFIX,
    TABLES_FOLDER,
    Entry,
    JournaledEvent,
    JournalStore,
    entry_from_log,
)
from host.table.state import TableSettings
from scala40_net.pb import lobby_pb2
from tests.conftest import bot_seat, start_host, until


def connections_and_statements(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[str]]:
    """The journals' connections as they are opened (their paths), and every statement run."""
    opened: list[str] = []
    statements: list[str] = []
    connect = sqlite3.connect

    def tracing(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        opened.append(str(args[0]))
        db = connect(*args, **kwargs)
        db.set_trace_callback(statements.append)
        return db

    monkeypatch.setattr(journal_sqlite.sqlite3, "connect", tracing)
    return opened, statements


async def test_a_new_table_journal_keeps_its_connection_for_its_first_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Made, then written at once (a table being set up): one connection, no close and
    reopen between, and no check of what this host has just written."""
    opened, statements = connections_and_statements(monkeypatch)
    store = JournalStore(tmp_path)
    try:
        journal = await store.create("abc123", b"config")
        connection = journal._connection
        assert connection is not None
        entry = Entry("join", 0, "r1", b"req", b"resp", [JournaledEvent(1, b"e1", {0: b"p"})])
        await journal.write_job([entry])
        assert journal._connection is connection
    finally:
        store.close()
    assert len(opened) == 1, opened
    assert not [s for s in statements if "quick_check" in s], statements


async def test_a_journal_at_rest_writes_and_reads_as_before(tmp_path: Path) -> None:
    store = JournalStore(tmp_path)
    try:
        journal = await store.create("abc123", b"config")
        await store.rest(journal.path)
        assert journal.resting  # no SQLite memory held for a table nobody plays at
        assert not Path(f"{journal.path}-wal").exists()  # all of it in the database file
        assert journal.config() is not None and journal.config()[1] == b"config"  # type: ignore[index]
        journal.rest()
        entry = Entry("join", 0, "r1", b"req", b"resp", [JournaledEvent(1, b"e1", {0: b"p"})])
        chat = Entry("chat", 0, None, b"", b"", [JournaledEvent(2, b"e2")])
        await journal.write_job([entry, chat])
        db = journal._db
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL: the log fsyncs
        (logged,) = read_log(tmp_path / LOG_FOLDER)["abc123"]
        assert [entry_from_log(e).kind for e in logged.entries] == ["join", "chat"]
        assert logged.first_entry == 1
        stored = journal.entries()
        assert [e.kind for e in stored] == ["join", "chat"]
        assert [ev.seq for e in stored for ev in e.events] == [1, 2]
        jobs = {row[0] for row in db.execute("SELECT job_no FROM entries")}
        assert len(jobs) == 1  # both entries in the job's one transaction
        for suffix in ("", "-wal", "-shm"):
            companion = Path(f"{journal.path}{suffix}")
            if companion.exists():
                assert stat.S_IMODE(companion.stat().st_mode) == 0o600
        journal.rest()
        assert [e.kind for e in journal.entries()] == ["join", "chat"]  # read after a rest
    finally:
        store.close()


async def test_a_table_waiting_for_players_rests_its_journal_and_one_in_play_does_not(
    tmp_path: Path,
) -> None:
    # Long enough that a busy machine does not rest a table between its creation (or a
    # join) and the look right after it.
    settings = TableSettings(commit_timeout=10, reveal_timeout=10, journal_rest=1.5)
    data_dir = tmp_path / "host"
    served = await start_host(data_dir, settings)
    try:
        journals = served.host.journals

        def journal_of(table_id: str) -> journal_sqlite.TableJournal:
            return journals._open[data_dir / TABLES_FOLDER / f"{table_id}{SUFFIX}"]

        # A match begun, then left alone: nobody asks anything of the table (its person
        # neither commits nor moves) while the other table rests, twice.
        playing = await served.new_table(seats=2)
        joined = await served.join(playing, "ann")
        ann = bot_seat(served.channel, playing, joined).metadata
        await served.lobby.AddBot(lobby_pb2.AddBotRequest(table_id=playing), metadata=ann)
        await served.lobby.StartMatch(lobby_pb2.StartMatchRequest(table_id=playing), metadata=ann)
        assert not journal_of(playing).resting

        waiting = await served.new_table(seats=2)
        assert not journal_of(waiting).resting  # being set up: its connection kept
        await until(lambda: journal_of(waiting).resting)
        await served.join(waiting, "bob")  # its next job opens it again
        assert not journal_of(waiting).resting
        await until(lambda: journal_of(waiting).resting)  # still waiting: it rests again
        # Idle longer than the waiting table, but in play: its journal was never closed.
        assert not journal_of(playing).resting
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


async def test_a_journal_that_cannot_rest_stays_open_and_the_janitor_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = JournalStore(tmp_path)
    try:
        journal = await store.create("abc123", b"config")

        def refused() -> None:
            raise OSError(5, "Input/output error")

        monkeypatch.setattr(journal, "rest", refused)
        await store.rest(journal.path)  # raises nothing: the next table is rested all the same
        assert not journal.resting
    finally:
        store.close()
