"""A host that never loses a table: one transaction per job, failed writes refused and survived.

Every failure here is a real one: a SQLite trigger that makes a write fail in the
middle of a job, a tmpfs that fills up, another process holding the journal's
write lock, a file that is not a database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from conftest import HostClient, bearer, start_host

from host.edge.errors import error_info
from host.journal.sqlite import SUFFIX, TABLES_FOLDER
from scala40_net.pb import lobby_pb2, table_pb2


def journal_path(data_dir: Path, table_id: str) -> Path:
    return data_dir / TABLES_FOLDER / f"{table_id}{SUFFIX}"


async def two_seats(served: HostClient) -> tuple[str, list[str]]:
    table_id = await served.new_table(seats=2)
    tokens = [(await served.join(table_id, name)).seat_token for name in ("ann", "bob")]
    return table_id, tokens


async def start(served: HostClient, table_id: str, token: str) -> None:
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=bearer(token), timeout=15
    )


async def phase_of(served: HostClient, table_id: str) -> int:
    listed = await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
    (table,) = [t for t in listed.tables if t.table_id == table_id]
    return table.phase


async def a_started_table(data_dir: Path) -> tuple[str, list[str]]:
    """A 2-seat table whose match started, on a host stopped since: its id and tokens."""
    served = await start_host(data_dir)
    try:
        table_id, tokens = await two_seats(served)
        await start(served, table_id, tokens[0])
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    return table_id, tokens


def entry_kinds(path: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return [k for (k,) in db.execute("SELECT kind FROM entries ORDER BY entry_no")]


async def test_a_job_that_fails_halfway_writes_nothing_and_the_table_survives_a_restart(
    tmp_path: Path,
) -> None:
    """StartMatch writes the start and the deal's announcement: one transaction. A write
    failing at the second entry leaves neither, the move is refused UNAVAILABLE, and the
    table (not lost at the next start) takes the same move once the journal writes again."""
    data_dir = tmp_path / "host"
    served = await start_host(data_dir)
    try:
        table_id, tokens = await two_seats(served)
        path = journal_path(data_dir, table_id)
        before = entry_kinds(path)
        with contextlib.closing(sqlite3.connect(path)) as db:
            db.execute(
                "CREATE TRIGGER fail_announce BEFORE INSERT ON entries"
                " WHEN NEW.kind = 'announce' BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END"
            )
            db.commit()
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await start(served, table_id, tokens[0])
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        info = error_info(refused.value)
        assert info is not None and info.reason == "NOT_SAVED"
        assert "could not save" in refused.value.details()
        assert entry_kinds(path) == before, "half of the job reached the journal"
        assert await phase_of(served, table_id) == lobby_pb2.TABLE_PHASE_WAITING
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)

    served = await start_host(data_dir)  # the table is there after a restart
    try:
        assert await phase_of(served, table_id) == lobby_pb2.TABLE_PHASE_WAITING
        with contextlib.closing(sqlite3.connect(path)) as db:
            db.execute("DROP TRIGGER fail_announce")
            db.commit()
        await start(served, table_id, tokens[0])  # the first player starts (PROTOCOL.md)
        assert await phase_of(served, table_id) == lobby_pb2.TABLE_PHASE_PLAYING
        assert entry_kinds(path)[-2:] == ["start", "announce"]
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


async def test_a_journal_cut_inside_a_job_is_never_left_by_the_host(tmp_path: Path) -> None:
    """Every entry one job wrote has the same transaction: the journal records which job
    each entry belongs to, and StartMatch's two entries share one."""
    data_dir = tmp_path / "host"
    table_id, _ = await a_started_table(data_dir)
    with contextlib.closing(sqlite3.connect(journal_path(data_dir, table_id))) as db:
        jobs = dict(db.execute("SELECT kind, job_no FROM entries"))
    assert jobs["start"] == jobs["announce"]
    assert jobs["join"] != jobs["start"]


@contextlib.contextmanager
def small_tmpfs(where: Path, size: str) -> Iterator[Path]:
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def can_mount() -> bool:
    return (
        os.geteuid() == 0
        and subprocess.run(["which", "mount"], capture_output=True).returncode == 0
    )


def fill(folder: Path) -> Path:
    """Take every free byte of ``folder``'s file system; returns the file to delete."""
    ballast = folder / "ballast"
    # Unbuffered: a write the disk takes only in part must not leave bytes for close to flush
    # (that flush would fail too, outside the suppress).
    with open(ballast, "wb", buffering=0) as out, contextlib.suppress(OSError):
        while True:
            out.write(b"\0" * 65536)
            out.flush()
    return ballast


async def chat(served: HostClient, token: str, text: str) -> None:
    await served.table.SendChat(
        table_pb2.SendChatRequest(text=text), metadata=bearer(token), timeout=15
    )


async def test_a_full_disk_refuses_the_move_keeps_the_table_and_takes_the_next_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """R12 spirit for the disk: the move whose write failed is refused UNAVAILABLE ("disk
    full"), nothing of it is published or kept, reads go on, the failure is logged once,
    and once there is space again the next move is accepted."""
    if not can_mount():
        pytest.skip("needs root to mount a tmpfs")
    with small_tmpfs(tmp_path / "small", "6m") as small:
        served = await start_host(small / "host")
        try:
            table_id, tokens = await two_seats(served)
            await chat(served, tokens[0], "before")
            ballast = fill(small)
            caplog.set_level(logging.ERROR, logger="host")
            refusals = []
            for n in range(3):  # a few lines, each with a page of its own
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await chat(served, tokens[0], f"line {n} " + "x" * 400)
                refusals.append(refused.value)
            assert {r.code() for r in refusals} == {grpc.StatusCode.UNAVAILABLE}
            assert all("disk full" in r.details() for r in refusals)
            view = await served.table.GetView(
                table_pb2.GetViewRequest(), metadata=bearer(tokens[1])
            )
            assert view.view.table.table_id == table_id  # reads are still served
            logged = [r for r in caplog.records if "could not save" in r.getMessage()]
            assert (
                len(logged) == 1
                and str(journal_path(small / "host", table_id)) in logged[0].getMessage()
            )
            ballast.unlink()
            await chat(served, tokens[0], "after")
        finally:
            await served.channel.close()
            await served.host.stop(grace=0.5)
        lines = []
        with contextlib.closing(sqlite3.connect(journal_path(small / "host", table_id))) as db:
            for (raw,) in db.execute("SELECT public FROM events ORDER BY seq"):
                event = table_pb2.TableEvent.FromString(raw)
                if event.HasField("chat"):
                    lines.append(event.chat.text)
        assert lines == ["before", "after"]


async def test_a_journal_locked_by_another_process_refuses_then_recovers(tmp_path: Path) -> None:
    data_dir = tmp_path / "host"
    served = await start_host(data_dir)
    try:
        table_id, tokens = await two_seats(served)
        other = sqlite3.connect(journal_path(data_dir, table_id), isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process's write lock, held past the timeout
        try:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await chat(served, tokens[0], "locked out")
            assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
            assert "locked" in refused.value.details()
        finally:
            other.execute("ROLLBACK")
            other.close()
        await chat(served, tokens[0], "unlocked")
        await start(served, table_id, tokens[0])
        assert await phase_of(served, table_id) == lobby_pb2.TABLE_PHASE_PLAYING
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


async def test_a_damaged_journal_is_set_aside_and_every_other_table_starts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data_dir = tmp_path / "host"
    served = await start_host(data_dir)
    try:
        good, _ = await two_seats(served)
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    garbage = journal_path(data_dir, "0badc0ffee00")
    garbage.write_bytes(b"this is not a database" * 100)
    caplog.set_level(logging.ERROR, logger="host")
    served = await start_host(data_dir)
    try:
        listed = await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
        assert [t.table_id for t in listed.tables] == [good]
        assert not garbage.exists()
        assert (data_dir / "damaged" / garbage.name).exists()
        assert any(garbage.name in r.getMessage() for r in caplog.records)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await served.join("0badc0ffee00", "cat")
        assert refused.value.code() == grpc.StatusCode.NOT_FOUND
        assert "damaged" in refused.value.details()
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    served = await start_host(data_dir)  # and it still says so at the next start
    try:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await served.join("0badc0ffee00", "cat")
        assert "damaged" in refused.value.details()
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


async def test_a_journal_the_engine_cannot_play_back_is_set_aside_with_its_reason(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "host"
    table_id, tokens = await a_started_table(data_dir)
    with contextlib.closing(sqlite3.connect(journal_path(data_dir, table_id))) as db:
        db.execute("DELETE FROM host_seeds")  # the replay can no longer deal deal 1
        db.commit()
    served = await start_host(data_dir)
    try:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(tokens[0]))
        assert refused.value.code() == grpc.StatusCode.NOT_FOUND
        assert "damaged" in refused.value.details() and "host seed" in refused.value.details()
        reason = (data_dir / "damaged" / f"{table_id}{SUFFIX}.reason").read_text()
        assert "host seed of deal 1" in reason
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


async def test_a_job_that_raises_is_undone_and_the_table_goes_on(served: HostClient) -> None:
    """A bug in one job answers INTERNAL, keeps nothing of it, and the table serves on."""
    table_id, tokens = await two_seats(served)
    task = served.host.registry.tables[table_id]
    seq = task.table.seq

    def broken(table: object) -> None:
        table.chat(0, table_pb2.SendChatRequest(text="half"))  # type: ignore[attr-defined]
        raise RuntimeError("a bug after a commit")

    with pytest.raises(RuntimeError):
        await task.call(broken)
    assert task.table.seq == seq and task.fanout.last_seq == seq
    await chat(served, tokens[1], "still here")
    assert task.fanout.last_seq == seq + 1


async def test_a_second_host_on_the_same_data_dir_refuses_to_start(tmp_path: Path) -> None:
    data_dir = tmp_path / "host"
    served = await start_host(data_dir)
    try:
        with pytest.raises(RuntimeError, match=rf"PID {os.getpid()}"):
            await start_host(data_dir)
        # the first host is untouched
        await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    again = await start_host(data_dir)  # a stopped host let go of its data dir
    await again.channel.close()
    await again.host.stop(grace=0.5)


async def test_a_second_host_on_the_same_port_is_an_error(tmp_path: Path) -> None:
    served = await start_host(tmp_path / "one")
    try:
        from host.edge.server import Host

        second = Host(f"127.0.0.1:{served.host.port}", tmp_path / "two")
        with pytest.raises(OSError, match="cannot listen"):
            await second.start()
        await second.stop(grace=0.1)
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


async def test_stopping_a_host_whose_journal_fails_exits_cleanly(tmp_path: Path) -> None:
    data_dir = tmp_path / "host"
    served = await start_host(data_dir)
    table_id, tokens = await two_seats(served)
    with contextlib.closing(sqlite3.connect(journal_path(data_dir, table_id))) as db:
        db.execute(
            "CREATE TRIGGER fail_all BEFORE INSERT ON entries BEGIN SELECT RAISE(ABORT, 'no'); END"
        )
        db.commit()
    with pytest.raises(grpc.aio.AioRpcError):
        await chat(served, tokens[0], "lost")
    await served.channel.close()
    await asyncio.wait_for(served.host.stop(grace=0.5), timeout=10)


async def test_a_journal_an_older_host_left_inside_a_job_is_finished_at_start(
    tmp_path: Path,
) -> None:
    """The issue's reproduction: StartMatch's announcement (entry, events, host seed) gone,
    as an older host that committed entry by entry left it when killed between them. The
    table is not lost: the rest of the job is made again (a fresh announcement, never
    published before) and written, and the deal goes on from there."""
    data_dir = tmp_path / "host"
    table_id, tokens = await a_started_table(data_dir)
    path = journal_path(data_dir, table_id)
    with contextlib.closing(sqlite3.connect(path)) as db:
        (last,) = db.execute("SELECT MAX(entry_no) FROM entries").fetchone()
        assert db.execute("SELECT kind FROM entries WHERE entry_no = ?", (last,)).fetchone() == (
            "announce",
        )
        seqs = [s for (s,) in db.execute("SELECT seq FROM events WHERE entry_no = ?", (last,))]
        db.executemany("DELETE FROM private_events WHERE seq = ?", [(seq,) for seq in seqs])
        db.execute("DELETE FROM events WHERE entry_no = ?", (last,))
        db.execute("DELETE FROM host_seeds")
        db.execute("DELETE FROM entries WHERE entry_no = ?", (last,))
        db.commit()
    served = await start_host(data_dir)
    try:
        assert await phase_of(served, table_id) == lobby_pb2.TABLE_PHASE_PLAYING
        view = await served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(tokens[0]))
        assert view.view.deal_no == 1 and len(view.view.deal_events) == 1  # announced again
        assert entry_kinds(path)[-2:] == ["start", "announce"]
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    served = await start_host(data_dir)  # and what was written then replays like any journal
    try:
        again = await served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(tokens[0]))
        assert again.view.deal_events == view.view.deal_events
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
