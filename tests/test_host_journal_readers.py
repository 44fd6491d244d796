"""The host owner's read-only commands run beside a running host without harming its tables.

``scala40-host --list-matches`` and ``--export-records`` open each journal with a
second, read-only SQLite connection while the host's own connection writes it.
Such a reader changes nothing of a journal's content (SQLite may still touch its
files: as root it gives the write-ahead log its owner again when it opens it),
so the host's damage watch must not take it for damage: every table goes on
acknowledging moves, before, between and after the commands, and a real write
from elsewhere is still found.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from conftest import bearer
from hostproc import HostProcess, free_port
from test_host_journal_damage import garbled_log_far_in

from host.journal.sqlite import SUFFIX, TABLES_FOLDER
from scala40_net.pb import lobby_pb2, lobby_pb2_grpc, table_pb2, table_pb2_grpc

ROUNDS = 3


def owner_command(data_dir: Path, *options: str) -> str:
    """One of the host owner's commands on ``data_dir``, as a person runs it: its output."""
    done = subprocess.run(
        [sys.executable, "-m", "host", "--data-dir", str(data_dir), *options],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_listing_and_exporting_beside_a_running_host_leave_its_tables_playing(
    tmp_path: Path,
) -> None:
    host = HostProcess(tmp_path / "data", free_port())
    try:
        await host.start()
        assert host.channel is not None
        lobby = lobby_pb2_grpc.LobbyServiceStub(host.channel)
        tables = table_pb2_grpc.TableServiceStub(host.channel)
        created = await lobby.CreateTable(
            lobby_pb2.CreateTableRequest(name="Sera", seats=2), timeout=15
        )
        tokens = [
            (
                await lobby.JoinTable(
                    lobby_pb2.JoinTableRequest(table_id=created.table_id, player_name=name),
                    timeout=15,
                )
            ).seat_token
            for name in ("ann", "bob")
        ]

        async def chat(seat: int, text: str) -> None:
            await tables.SendChat(
                table_pb2.SendChatRequest(text=text), metadata=bearer(tokens[seat]), timeout=15
            )

        await chat(0, "before")
        for n in range(ROUNDS):
            listed = await asyncio.to_thread(owner_command, host.data_dir, "--list-matches")
            assert created.table_id in listed and "'Sera'" in listed
            await chat(1, f"after listing {n}")  # acknowledged: the table still takes moves
            exported = await asyncio.to_thread(
                owner_command, host.data_dir, "--export-records", str(tmp_path / f"out{n}")
            )
            assert "deal record(s) written" in exported
            await chat(0, f"after exporting {n}")
        assert "damaged" not in host.log.read_text()
        # and the watch still sees a real write from elsewhere, after the readers as before
        journal = host.data_dir / TABLES_FOLDER / f"{created.table_id}{SUFFIX}"
        garbled_log_far_in(journal)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await chat(1, "after the damage")
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "damaged while the host ran" in (refused.value.details() or "")
    finally:
        await host.stop()
