"""Group commit through the host's commit log: the jobs of every table ready at the same moment
are made durable by one fsync of the log, and what it holds survives the table files' lost tail.

What a power loss can leave is made here as it would be: the table files as they were
before the batch (their commits since, made with ``synchronous=NORMAL``, were never
fsynced and are lost) beside the log as its fsync left it. A torn record is the log cut
inside its last record, or a byte of it changed. A full disk is a real small tmpfs
(``test_host_durability.small_tmpfs``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from conftest import bearer, start_host, until
from test_host_durability import can_mount, chat, fill, small_tmpfs, start, two_seats
from test_host_journal_damage import DAMAGES

from host.journal import commitlog
from host.journal.commitlog import LOG_FOLDER, read_log
from host.journal.sqlite import (
    DAMAGED_FOLDER,
    SUFFIX,
    TABLES_FOLDER,
    Entry,
    Extras,
    JournalDamaged,
    JournaledEvent,
    JournalStore,
    JournalWriteFailed,
    TableJournal,
    entry_from_log,
    logged_entry,
)
from scala40_net.pb import lobby_pb2, table_pb2

TABLES = 10


def job(seq: int, payload: bytes = b"") -> list[Entry]:
    return [Entry("chat", 0, None, b"line %d" % seq + payload, b"", [JournaledEvent(seq, b"e")])]


def new_tables(store: JournalStore, count: int) -> list[TableJournal]:
    return [store.open(store.path(f"table{n:02d}"), b"config") for n in range(count)]


def all_at_once(store: JournalStore, journals: list[TableJournal], seq: int, payload: bytes = b""):  # type: ignore[no-untyped-def]
    """Every journal's job handed in before the writer looks: one batch."""
    with store.writers._wake:
        return [j.write_job(job(seq, payload)) for j in journals]


def table_files(data_dir: Path) -> Path:
    """A copy of the table files as they are now (what a power loss may leave of them)."""
    kept = data_dir.parent / f"{data_dir.name}-tables-{len(list(data_dir.parent.iterdir()))}"
    shutil.copytree(data_dir / TABLES_FOLDER, kept, ignore=shutil.ignore_patterns("*-shm"))
    return kept


def after_power_loss(data_dir: Path, tables: Path, where: Path) -> Path:
    """A data dir holding ``tables`` (the files' durable state) and the log as it is now."""
    where.mkdir()
    shutil.copytree(tables, where / TABLES_FOLDER)
    shutil.copytree(data_dir / LOG_FOLDER, where / LOG_FOLDER)
    return where


def kinds_and_seqs(path: Path) -> list[tuple[str, int]]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return [
            (str(kind), int(seq))
            for kind, seq in db.execute(
                "SELECT kind, seq FROM entries JOIN events USING (entry_no) ORDER BY seq"
            )
        ]


async def test_the_jobs_of_tables_ready_together_are_made_durable_by_one_fsync(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "data"
    store = JournalStore(data_dir)
    try:
        journals = new_tables(store, TABLES)
        before = table_files(data_dir)
        syncs, table_syncs = store.writers.log_syncs, store.writers.table_syncs
        await asyncio.gather(*all_at_once(store, journals, 1))
        assert store.writers.log_syncs - syncs == 1  # one fdatasync of the log for all ten
        assert store.writers.table_syncs == table_syncs  # and none of the table files
        logged = read_log(data_dir / LOG_FOLDER)
        assert sorted(logged) == [j.table_id for j in journals]
        # It holds what the table files hold, host secrets included: the host's user's only.
        assert stat.S_IMODE((data_dir / LOG_FOLDER).stat().st_mode) == 0o700
        for path in commitlog.log_files(data_dir / LOG_FOLDER):
            assert stat.S_IMODE(path.stat().st_mode) == 0o600
        # The table files as they were before the batch (its NORMAL commits lost) and the
        # log: every job is back.
        lost = after_power_loss(data_dir, before, tmp_path / "lost")
        for journal in journals:
            assert kinds_and_seqs(lost / TABLES_FOLDER / journal.path.name) == []
        again = JournalStore(lost)
        try:
            assert again.recovered == []
            for journal in journals:
                assert kinds_and_seqs(journal_in(lost, journal)) == [("chat", 1)]
        finally:
            again.close()
    finally:
        store.close()


def journal_in(data_dir: Path, journal: TableJournal) -> Path:
    return data_dir / TABLES_FOLDER / journal.path.name


def torn_cut_short(data: bytes) -> bytes:
    return data[:-7]


def torn_byte_changed(data: bytes) -> bytes:
    """The request's text changed from "line 2" to "line 3": still a record that decodes."""
    at = data.index(b"line 2") + 5
    return data[:at] + b"3" + data[at + 1 :]


@pytest.mark.parametrize("tear", [torn_cut_short, torn_byte_changed], ids=lambda t: t.__name__)
async def test_a_log_with_a_torn_tail_recovers_without_the_unacknowledged_job(
    tmp_path: Path, tear: object
) -> None:
    data_dir = tmp_path / "data"
    store = JournalStore(data_dir)
    try:
        (journal,) = new_tables(store, 1)
        before = table_files(data_dir)
        await journal.write_job(job(1))  # acknowledged
        log = store.writers._log
        assert log is not None
        # The next job's record, as a host that died inside its write left it (no fsync
        # returned, nothing acknowledged).
        unacknowledged = commitlog.record(
            commitlog.JOBS,
            store.writers._batch_no + 1,
            commitlog.encode_jobs(
                [commitlog.LoggedJob(journal.table_id, 2, [logged_entry(e) for e in job(2)])]
            ),
        )
        with open(log.path, "r+b") as out:
            out.seek(log.end)
            out.write(tear(unacknowledged))  # type: ignore[operator]
        lost = after_power_loss(data_dir, before, tmp_path / "lost")
    finally:
        store.close()
    again = JournalStore(lost)
    try:
        assert again.recovered == []
        assert kinds_and_seqs(journal_in(lost, journal)) == [("chat", 1)]
        reopened = again.open(journal_in(lost, journal))
        await reopened.write_job(job(2))  # the log goes on past what was torn
    finally:
        again.close()
    assert list((lost / LOG_FOLDER).iterdir()) == []  # a clean stop leaves no log
    assert kinds_and_seqs(journal_in(lost, journal)) == [("chat", 1), ("chat", 2)]


def test_an_entry_and_everything_it_writes_come_back_from_the_log_as_they_were() -> None:
    entry = Entry(
        "play",
        2,
        "r-7",
        b"request",
        b"response",
        (JournaledEvent(9, b"public", {0: b"seat 0", 2: b"seat 2"}), JournaledEvent(10, b"")),
        Extras(
            host_seed=(3, b"s" * 32),
            bot_seed=(3, 1, b"b" * 32, 17),
            deal_record=(2, b"{}"),
            tokens=((b"d" * 32, 1), (b"e" * 32, None)),
            forget_seat=0,
        ),
    )
    bare = Entry("chat", None, None, b"", b"")
    (logged,) = commitlog._decode(
        commitlog.JOBS,
        commitlog.encode_jobs(
            [commitlog.LoggedJob("t1", 5, [logged_entry(entry), logged_entry(bare)])]
        ),
    )
    assert isinstance(logged, commitlog.LoggedJob)
    assert [entry_from_log(e) for e in logged.entries] == [entry, bare]


async def test_a_match_started_after_the_table_files_last_fsync_comes_back_from_the_log(
    tmp_path: Path,
) -> None:
    """StartMatch's job (the start, the first deal's announcement with each seat's private
    part, the deal's host seed) lost from the table file by a power cut: the start after it
    has the same deal, and every seat the same view."""
    data_dir = tmp_path / "host"
    served = await start_host(data_dir)
    try:
        table_id, tokens = await two_seats(served)
        before = table_files(data_dir)
        await start(served, table_id, tokens[0])
        views = [
            await served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(t))
            for t in tokens
        ]
        lost = after_power_loss(data_dir, before, tmp_path / "lost")
        shutil.copytree(
            data_dir,
            lost,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns(TABLES_FOLDER, LOG_FOLDER, "host.lock"),
        )
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    assert "start" not in [
        k for k, _ in kinds_and_seqs(lost / TABLES_FOLDER / f"{table_id}{SUFFIX}")
    ]
    served = await start_host(lost)
    try:
        assert served.host.set_aside == []
        again = [
            await served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(t))
            for t in tokens
        ]
        assert [v.view.deal_events for v in again] == [v.view.deal_events for v in views]
        assert [v.view.deal_no for v in again] == [1, 1]
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


def garbage_over_first_pages(path: Path) -> None:
    """Garbage over the first pages of a table's file and of its write-ahead log: a journal
    kept open since its creation has its newest pages in the log, which SQLite reads first."""
    for damaged in (path, Path(f"{path}-wal")):
        if damaged.exists():
            with open(damaged, "r+b") as f:
                f.write(os.urandom(8192))


async def test_a_table_whose_file_is_damaged_while_its_jobs_are_in_the_log_is_set_aside_alone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data_dir = tmp_path / "host"
    served = await start_host(data_dir)
    try:
        damaged, damaged_tokens = await two_seats(served)
        kept, kept_tokens = await two_seats(served)
        before = table_files(data_dir)
        for tokens in (damaged_tokens, kept_tokens):
            await chat(served, tokens[0], "only in the log")
        # The host dies here, its table files' last commits lost; one of them damaged too.
        lost = after_power_loss(data_dir, before, tmp_path / "lost")
        shutil.copytree(
            data_dir,
            lost,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns(TABLES_FOLDER, LOG_FOLDER, "host.lock"),
        )
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    garbage_over_first_pages(lost / TABLES_FOLDER / f"{damaged}{SUFFIX}")
    caplog.set_level(logging.ERROR, logger="host")
    served = await start_host(lost)
    try:
        listed = await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
        assert [t.table_id for t in listed.tables] == [kept]
        assert (lost / DAMAGED_FOLDER / f"{damaged}{SUFFIX}").exists()
        reason = (lost / DAMAGED_FOLDER / f"{damaged}{SUFFIX}.reason").read_text()
        assert "commit log held" in reason
        assert any(damaged in r.getMessage() for r in caplog.records)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await served.join(damaged, "cat")
        assert "damaged" in (refused.value.details() or "")
        # The other table has its move from the log, and takes the next.
        texts = [k for k, _ in kinds_and_seqs(lost / TABLES_FOLDER / f"{kept}{SUFFIX}")]
        assert texts[-1] == "chat"
        await chat(served, kept_tokens[1], "after")
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


@pytest.mark.parametrize("damage", DAMAGES, ids=lambda d: d.__name__)
async def test_a_journal_damaged_under_its_connection_fails_alone_in_its_batch(
    tmp_path: Path, damage: Callable[[Path], None]
) -> None:
    """The damage watch looks before each job of a batch, as before each job written alone:
    the damaged table's job is refused, and so is every later one; the others' are written."""
    store = JournalStore(tmp_path / "data")
    try:
        journals = new_tables(store, 3)
        for seq in range(1, 20):  # a log longer than the pages watched
            await asyncio.gather(*all_at_once(store, journals, seq, b"x" * 2000))
        damage(journals[1].path)
        for seq in (20, 21):
            outcomes = await asyncio.gather(
                *all_at_once(store, journals, seq), return_exceptions=True
            )
            assert outcomes[0] is None and outcomes[2] is None
            assert isinstance(outcomes[1], JournalDamaged)
            assert "damaged while the host ran" in outcomes[1].why
        assert [len(journals[n].entries()) for n in (0, 2)] == [21, 21]
    finally:
        store.close()


async def test_a_batch_whose_log_write_fails_fails_every_job_in_it_and_none_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not can_mount():
        pytest.skip("needs root to mount a tmpfs")
    # A log given little space at a time: the failed batch is the one that needs more. The
    # log has a disk of its own, which fills; the table files' disk has room, so that their
    # commits would go through if the batch did not undo them.
    monkeypatch.setattr(commitlog, "CHUNK_BYTES", 4096)
    monkeypatch.setattr(commitlog, "RESERVE_BYTES", 512)
    data_dir = tmp_path / "data"
    with small_tmpfs(data_dir / LOG_FOLDER, "1m") as log_disk:
        store = JournalStore(data_dir)
        try:
            journals = new_tables(store, 3)
            await asyncio.gather(*all_at_once(store, journals, 1))
            ballast = fill(log_disk)
            # The three jobs together past the log's space: the log cannot grow.
            outcomes = await asyncio.gather(
                *all_at_once(store, journals, 2, b"x" * 1500), return_exceptions=True
            )
            assert all(isinstance(o, JournalWriteFailed) for o in outcomes), outcomes
            assert all("disk full" in o.why for o in outcomes)  # type: ignore[union-attr]
            assert all(len(j.entries()) == 1 for j in journals)  # each as its journal says
            assert all(len(jobs) == 1 for jobs in read_log(data_dir / LOG_FOLDER).values())
            ballast.unlink()
            await asyncio.gather(*all_at_once(store, journals, 3))  # the next batch is taken
            assert [[e.entry_no for e in j.entries()] for j in journals] == [[1, 2]] * 3
            lost = tmp_path / "copy"
            shutil.copytree(data_dir, lost)
        finally:
            store.close()
    again = JournalStore(lost)  # and the log written back at a start agrees
    try:
        for journal in journals:
            assert kinds_and_seqs(journal_in(lost, journal)) == [("chat", 1), ("chat", 3)]
    finally:
        again.close()


async def test_a_job_the_log_holds_and_its_table_file_refuses_is_voided_in_the_log(
    tmp_path: Path,
) -> None:
    """The table files' disk full, the log's not: the log takes the batch, the table's commit
    fails. The job is refused, and neither the running table nor a start after a power cut
    has it; the table's next job takes its place."""
    if not can_mount():
        pytest.skip("needs root to mount a tmpfs")
    data_dir = tmp_path / "data"
    with small_tmpfs(data_dir / TABLES_FOLDER, "2m") as tables_disk:
        store = JournalStore(data_dir)
        try:
            (journal,) = new_tables(store, 1)
            await journal.write_job(job(1))
            ballast = fill(tables_disk)
            syncs = store.writers.log_syncs
            with pytest.raises(JournalWriteFailed) as refused:
                await journal.write_job(job(2, b"x" * 1500))
            assert "disk full" in refused.value.why
            assert store.writers.log_syncs - syncs == 2  # the batch, then its void
            assert [e.entry_no for e in journal.entries()] == [1]
            assert [j.first_entry for j in read_log(data_dir / LOG_FOLDER)["table00"]] == [1]
            lost = tmp_path / "lost"
            shutil.copytree(data_dir, lost)  # the host dies here
            ballast.unlink()
            await journal.write_job(job(3))
            assert [e.entry_no for e in journal.entries()] == [1, 2]
            after = tmp_path / "after"
            shutil.copytree(data_dir, after)  # or here
        finally:
            store.close()
    for copy, kept in ((lost, [("chat", 1)]), (after, [("chat", 1), ("chat", 3)])):
        again = JournalStore(copy)
        try:
            assert again.recovered == []
            assert kinds_and_seqs(copy / TABLES_FOLDER / "table00.sqlite3") == kept
        finally:
            again.close()


async def test_a_table_locked_by_another_process_waits_alone(tmp_path: Path) -> None:
    """Its job waits for the lock (as SQLite's busy timeout waited) while every other table's
    jobs are written; once the lock is let go, it is written too."""
    store = JournalStore(tmp_path / "data")
    other = None
    try:
        locked, free = new_tables(store, 2)
        other = sqlite3.connect(locked.path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        waiting = locked.write_job(job(1))
        for seq in range(1, 4):
            await free.write_job(job(seq))
        assert not waiting.done()
        other.execute("ROLLBACK")
        await asyncio.wait_for(waiting, 30)
        assert [len(locked.entries()), len(free.entries())] == [1, 3]
    finally:
        if other is not None:
            other.close()
        store.close()


async def test_a_long_log_is_checkpointed_into_a_new_file_and_the_older_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(commitlog, "CHECKPOINT_BYTES", 4096)
    data_dir = tmp_path / "data"
    store = JournalStore(data_dir)
    try:
        journals = new_tables(store, 3)
        for seq in range(1, 8):
            await asyncio.gather(*all_at_once(store, journals, seq, b"x" * 400))
        await until(lambda: len(commitlog.log_files(data_dir / LOG_FOLDER)) == 1)
        assert store.writers.table_syncs >= 3  # each table's file made durable first
        (current,) = commitlog.log_files(data_dir / LOG_FOLDER)
        assert current.name != "00000001"
        # What the older file held is in the table files; the current file holds the rest.
        for journal in journals:
            assert len(journal.entries()) == 7
    finally:
        store.close()
