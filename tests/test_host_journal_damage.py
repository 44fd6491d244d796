"""A journal damaged while the host runs is found before the next move is acknowledged.

Every damage here is done to the real files under the host's open connection, as
another program or a failing disk would: the file cut short, removed or replaced,
garbage over its first pages or over its write-ahead log. The journal then refuses
every write (``JournalDamaged``); the table refuses the move, says why, and takes
no other; the log says so. Ordinary work (checkpoints included) never looks like
damage.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest
from conftest import start_host
from hypothesis import given, settings
from hypothesis import strategies as st
from test_host_durability import chat, two_seats

from host.edge.errors import error_info
from host.journal.sqlite import (
    Entry,
    JournalDamaged,
    JournaledEvent,
    JournalStore,
    TableJournal,
)


def garbage(path: Path, offset: int, size: int) -> None:
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(os.urandom(size))


def cut_short(path: Path) -> None:
    os.truncate(path, os.path.getsize(path) // 2)


def garbage_over_first_pages(path: Path) -> None:
    garbage(path, 0, 8192)


def garbled_log(path: Path) -> None:
    wal = Path(f"{path}-wal")
    garbage(wal, 0, os.path.getsize(wal))


def garbled_log_frame(path: Path) -> None:
    garbage(Path(f"{path}-wal"), 32 + 24 + 100, 64)  # inside the first frame's page


def garbled_log_far_in(path: Path) -> None:
    """Past the first pages watched: the file's modification time tells (written again until the
    clock's tick has moved it, a bounded number of times)."""
    wal = Path(f"{path}-wal")
    offset, before = os.path.getsize(wal) - 200, os.stat(wal).st_mtime_ns
    for _ in range(200):
        garbage(wal, offset, 64)
        if os.stat(wal).st_mtime_ns != before:
            return
        time.sleep(0.005)
    raise AssertionError("the file's modification time never moved")


def log_removed(path: Path) -> None:
    Path(f"{path}-wal").unlink()


def replaced(path: Path) -> None:
    copy = path.with_name("copy")
    shutil.copyfile(path, copy)
    os.replace(copy, path)


def removed(path: Path) -> None:
    path.unlink()


DAMAGES: list[Callable[[Path], None]] = [
    cut_short,
    garbage_over_first_pages,
    garbled_log,
    garbled_log_frame,
    garbled_log_far_in,
    log_removed,
    replaced,
    removed,
]


def job(n: int, payload: bytes = b"") -> list[Entry]:
    return [Entry("chat", 0, None, b"line %d" % n + payload, b"", [JournaledEvent(n, b"e")])]


@pytest.fixture
def journals(tmp_path: Path) -> Iterator[JournalStore]:
    store = JournalStore(tmp_path)
    try:
        yield store
    finally:
        store.close()


def a_journal_with_jobs(store: JournalStore, jobs: int) -> TableJournal:
    journal = store.open(store.path("abc123"))
    journal.create(b"config")
    for n in range(1, jobs + 1):
        journal.append_job(job(n))
    return journal


@pytest.mark.parametrize("damage", DAMAGES, ids=lambda d: d.__name__)
def test_a_journal_damaged_under_its_connection_takes_no_write(
    journals: JournalStore, damage: Callable[[Path], None]
) -> None:
    journal = a_journal_with_jobs(journals, 0)
    for n in range(1, 20):  # a log longer than the pages watched
        journal.append_job(job(n, b"x" * 2000))
    damage(journal.path)
    with pytest.raises(JournalDamaged) as refused:
        journal.append_job(job(20))
    assert "damaged while the host ran" in refused.value.why
    assert str(journal.path.parent) not in refused.value.why  # no server path for a client
    with pytest.raises(JournalDamaged):  # and it stays so
        journal.append_job(job(21))


def test_damage_found_at_rest_is_told_at_the_next_write(journals: JournalStore) -> None:
    journal = a_journal_with_jobs(journals, 3)
    garbled_log_frame(journal.path)
    journal.rest()
    with pytest.raises(JournalDamaged):
        journal.append_job(job(4))


def test_damage_done_while_the_journal_rests_is_found_by_sqlite_at_its_next_write(
    journals: JournalStore,
) -> None:
    journal = a_journal_with_jobs(journals, 0)
    for n in range(1, 40):
        journal.append_job(job(n, b"x" * 3000))
    journal.rest()  # everything checkpointed into the database file, the connection closed
    size = os.path.getsize(journal.path)
    garbage(journal.path, 64 * 1024, size - 64 * 1024)  # every page past the watched ones
    with pytest.raises(JournalDamaged) as refused:
        journal.append_job(job(40))
    assert "SQLite finds it damaged" in refused.value.why


def owner_given_again(path: Path) -> None:
    """What SQLite does to the write-ahead log when a second connection opens it as root:
    the file's owner set again to what it is (its change time moves, nothing of its content)."""
    for companion in (path, Path(f"{path}-wal")):
        status = os.stat(companion)
        os.chown(companion, status.st_uid, status.st_gid)
        os.chmod(companion, status.st_mode & 0o7777)


def read_by_another_connection(path: Path) -> None:
    """A reader beside the host (``scala40-host --list-matches``): read-only SQLite."""
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        assert db.execute("SELECT COUNT(*) FROM entries").fetchone()[0] > 0
    finally:
        db.close()


@pytest.mark.parametrize(
    "touch", [owner_given_again, read_by_another_connection], ids=lambda t: t.__name__
)
def test_what_leaves_a_journal_content_as_it_was_is_not_damage(
    journals: JournalStore, touch: Callable[[Path], None]
) -> None:
    journal = a_journal_with_jobs(journals, 0)
    for n in range(1, 20):
        journal.append_job(job(n, b"x" * 2000))
        time.sleep(0.005)  # past the clock's tick: a change time moved would show
        touch(journal.path)
    journal.rest()  # what the watch finds at rest is told too
    journal.append_job(job(20))
    assert journal.damage is None and len(journal.entries()) == 20


@settings(max_examples=10, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=20_000), min_size=1, max_size=60))
def test_ordinary_jobs_and_checkpoints_never_look_like_damage(sizes: list[int]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        store = JournalStore(Path(folder))
        try:
            journal = a_journal_with_jobs(store, 0)
            for n, size in enumerate(sizes, start=1):
                journal.append_job(job(n, b"x" * size))
                if n % 7 == 0:
                    journal.rest()  # closed and opened again, as an idle table's is
                journal.events()
            assert len(journal.entries()) == len(sizes)
        finally:
            store.close()


async def test_a_table_whose_journal_was_damaged_stops_acknowledging_and_says_why(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    served = await start_host(tmp_path / "host")
    try:
        table_id, tokens = await two_seats(served)
        await chat(served, tokens[0], "before")
        caplog.set_level(logging.ERROR, logger="host")
        cut_short(served.host.journals.path(table_id))
        refusals = []
        for text in ("after", "again"):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await chat(served, tokens[1], text)
            refusals.append(refused.value)
        for refusal in refusals:  # the move, and every one after it
            info = error_info(refusal)
            assert refusal.code() == grpc.StatusCode.UNAVAILABLE and info is not None
            assert info.reason == "TABLE_DAMAGED"
            assert "damaged while the host ran" in (refusal.details() or "")
            assert str(tmp_path) not in (refusal.details() or "")  # no server path
        logged = [r.getMessage() for r in caplog.records if "damaged" in r.getMessage()]
        assert len(logged) == 1 and table_id in logged[0]
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
