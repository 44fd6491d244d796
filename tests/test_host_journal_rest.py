"""A journal at rest (its connection closed) writes and reads as before once used again:
one transaction per job, WAL and synchronous=NORMAL (the host's commit log makes the job durable),
files readable by the host's user only."""

from __future__ import annotations

import stat
from pathlib import Path

from host.journal.commitlog import LOG_FOLDER, read_log
from host.journal.sqlite import Entry, JournaledEvent, JournalStore, entry_from_log


async def test_a_new_table_journal_rests_until_its_first_job(tmp_path: Path) -> None:
    store = JournalStore(tmp_path)
    try:
        journal = await store.create("abc123", b"config")
        assert journal._connection is None  # no SQLite memory held for a table nobody plays at
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
