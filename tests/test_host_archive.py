"""Finished matches are archived (kept, not replayed), the table cap counts live tables only,
idle tables that never started are removed, and the host's owner lists and exports matches."""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from conftest import HostClient, bot_seat, start_host, until

import host.edge.lobby
from host.journal.sqlite import ARCHIVE_FOLDER, SUFFIX, TABLES_FOLDER
from host.table.state import TableSettings
from scala40_net.pb import lobby_pb2, ruleset_pb2

QUICK = TableSettings(commit_timeout=10, reveal_timeout=10, archive_after=0.3, idle_removal=600)


async def a_finished_match(served: HostClient) -> str:
    """A 2-seat match, one network bot and one host bot, over after its first deal (R11.1:
    bust_at 1, so whoever pays anything is out)."""
    ruleset = ruleset_pb2.Ruleset(options=ruleset_pb2.RulesetOptions(bust_at=1))
    table_id = await served.new_table(seats=2, ruleset=ruleset)
    joined = await served.join(table_id, "ann")
    player = bot_seat(served.channel, table_id, joined)
    await served.lobby.AddBot(lobby_pb2.AddBotRequest(table_id=table_id), metadata=player.metadata)
    playing = asyncio.create_task(player.play_match())
    while not player.log.events:
        await asyncio.sleep(0.01)
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=player.metadata
    )
    await asyncio.wait_for(playing, timeout=60)
    return table_id


async def listed(served: HostClient) -> list[str]:
    answer = await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
    return [t.table_id for t in answer.tables]


def host_cli(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "host", *args], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_a_finished_match_is_archived_listed_exported_and_verifiable(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "host"
    served = await start_host(data_dir, QUICK)
    try:
        table_id = await a_finished_match(served)
        path = data_dir / ARCHIVE_FOLDER / f"{table_id}{SUFFIX}"
        await until(path.exists)
        assert table_id not in await listed(served)
        assert not (data_dir / TABLES_FOLDER / f"{table_id}{SUFFIX}").exists()
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)

    served = await start_host(data_dir, QUICK)  # archived: not replayed, not listed
    try:
        assert table_id not in served.host.registry.tables
        assert path.exists()
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)

    lines = host_cli("--data-dir", str(data_dir), "--list-matches").splitlines()
    (line,) = [x for x in lines if x.startswith(table_id)]
    assert "archive" in line and "over" in line and "ann" in line and "won by" in line
    out = tmp_path / "records"
    assert "deal record(s) written" in host_cli(
        "--data-dir", str(data_dir), "--export-records", str(out)
    )
    records = sorted(out.glob(f"{table_id}-deal-*.json"))
    assert records
    verified = subprocess.run(
        [sys.executable, "-m", "scala40_net.verifier", str(records[0])],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr


async def test_the_table_cap_counts_only_tables_whose_match_is_not_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(host.edge.lobby, "MAX_TABLES", 2)
    settings = TableSettings(commit_timeout=10, reveal_timeout=10, archive_after=600)
    served = await start_host(tmp_path / "host", settings)
    try:
        finished = await a_finished_match(served)
        await served.new_table(seats=2)
        assert finished in await listed(served)  # over, but still live for its seats
        await served.new_table(seats=2)  # the finished one does not count
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await served.new_table(seats=2)
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "not over" in refused.value.details()
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


async def test_a_table_that_never_starts_is_removed_once_idle(tmp_path: Path) -> None:
    settings = TableSettings(commit_timeout=10, reveal_timeout=10, idle_removal=0.4)
    data_dir = tmp_path / "host"
    served = await start_host(data_dir, settings)
    try:
        idle = await served.new_table(seats=2)
        path = data_dir / TABLES_FOLDER / f"{idle}{SUFFIX}"
        assert path.exists()
        await until(lambda: not path.exists())
        assert idle not in await listed(served)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await served.join(idle, "late")
        assert refused.value.code() == grpc.StatusCode.NOT_FOUND
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


async def test_a_match_that_ended_just_before_a_restart_is_reopened_then_archived(
    tmp_path: Path,
) -> None:
    """Its seats may come back for the last deal's record after the restart: the table is
    there, finished, and is archived ``archive_after`` later like any other."""
    data_dir = tmp_path / "host"
    long_wait = TableSettings(commit_timeout=10, reveal_timeout=10, archive_after=600)
    served = await start_host(data_dir, long_wait)
    try:
        table_id = await a_finished_match(served)
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    # Archived 10 s after the restart, not QUICK's 0.3 s: the table must still be listed when
    # the first call arrives, after a TLS handshake that a busy machine makes slow.
    served = await start_host(data_dir, dataclasses.replace(QUICK, archive_after=10))
    try:
        answer = await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
        (table,) = [t for t in answer.tables if t.table_id == table_id]
        assert table.phase == lobby_pb2.TABLE_PHASE_FINISHED
        await until((data_dir / ARCHIVE_FOLDER / f"{table_id}{SUFFIX}").exists)
        assert table_id not in await listed(served)
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
