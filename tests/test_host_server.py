"""The host process: health, reflection, the console script, graceful shutdown, the journal."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from conftest import HostClient, bearer, start_host
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from test_host_bad_input import deal_two_seats

from host.journal.sqlite import TABLES_FOLDER
from scala40_net.fairdeal.identity import KEY_FILE_NAME
from scala40_net.net import tls
from scala40_net.pb import lobby_pb2, lobby_pb2_grpc, table_pb2

ROOT = Path(__file__).resolve().parent.parent


async def test_health_and_reflection_list_every_service(served: HostClient) -> None:
    health = health_pb2_grpc.HealthStub(served.channel)
    for service in (
        "",
        "scala40.v1.LobbyService",
        "scala40.v1.TableService",
        "scala40.v1.RulesService",
    ):
        answer = await health.Check(health_pb2.HealthCheckRequest(service=service))
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
    reflection = reflection_pb2_grpc.ServerReflectionStub(served.channel)
    call = reflection.ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")])
    )
    names = {s.name async for answer in call for s in answer.list_services_response.service}
    assert {
        "scala40.v1.LobbyService",
        "scala40.v1.TableService",
        "scala40.v1.RulesService",
        "grpc.health.v1.Health",
    } <= names


async def test_stopping_ends_event_streams_cleanly_and_says_not_serving(tmp_path: Path) -> None:
    served = await start_host(tmp_path)
    table_id = await served.new_table(seats=2)
    ann = await served.join(table_id)
    stream = served.table.SubscribeEvents(
        table_pb2.SubscribeEventsRequest(), metadata=bearer(ann.seat_token)
    )
    first = await stream.read()
    assert first.event.HasField("snapshot")
    health = health_pb2_grpc.HealthStub(served.channel)
    stopping = asyncio.create_task(served.host.stop(grace=2))
    rest = []
    while (message := await stream.read()) is not grpc.aio.EOF:
        rest.append(message)
    assert await stream.code() == grpc.StatusCode.OK  # ended by the host, not cut
    await stopping
    with pytest.raises(grpc.aio.AioRpcError):
        await health.Check(health_pb2.HealthCheckRequest(), timeout=1)
    await served.channel.close()


async def test_each_table_journal_is_wal_durable_private_and_holds_no_token(
    served: HostClient,
) -> None:
    dealt = await deal_two_seats(served)
    other = await served.new_table(seats=2)
    data_dir = served.host.data_dir
    journal = served.host.journals.path(dealt.table_id)
    assert journal.parent == data_dir / TABLES_FOLDER
    assert served.host.journals.path(other).exists()
    for folder in (data_dir, journal.parent):
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    for path in (journal, data_dir / KEY_FILE_NAME):
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    db = sqlite3.connect(journal)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    kinds = [k for (k,) in db.execute("SELECT kind FROM entries ORDER BY entry_no")]
    assert kinds == [
        "join",
        "join",
        "start",
        "announce",
        "commit",
        "commit",
        "commitments",
        "reveal",
        "reveal",
        "deal",
    ]
    # The deal in play keeps its host seed secret in the journal; no token is ever written.
    assert db.execute("SELECT deal_no FROM host_seeds").fetchall() == [(1,)]
    raw = b"".join(p.read_bytes() for p in journal.parent.iterdir())
    for token in dealt.tokens.values():
        assert token.encode() not in raw
    events = db.execute("SELECT COUNT(*), MAX(seq) FROM events").fetchone()
    view = await served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(dealt.tokens[0]))
    assert events == (view.seq, view.seq)
    db.close()


def test_scala40_host_starts_and_stops_on_sigterm(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "host",
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
            str(tmp_path / "d"),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "listening on 127.0.0.1:0" in line and "fingerprint" in line
        port = int(line.split("(port ")[1].split(")")[0])

        invite = process.stdout.readline()
        assert invite.startswith("scala40-host: invite: scala40://") and "?fp=" in invite
        assert "read aloud:" in process.stdout.readline()

        async def ask() -> str:
            channel, found = await tls.pinned_channel("127.0.0.1", port, None)
            async with channel:
                info = await lobby_pb2_grpc.LobbyServiceStub(channel).GetHostInfo(
                    lobby_pb2.GetHostInfoRequest()
                )
            # One fingerprint: the TLS certificate's binding and the deal-signing identity.
            assert found.fingerprint == info.host_fingerprint
            return str(info.host_fingerprint)

        fingerprint = asyncio.run(ask())
        assert fingerprint in line and fingerprint in invite
        process.terminate()
        out, err = process.communicate(timeout=15)
        assert process.returncode == 0, err
        assert "shutting down" in out
    finally:
        if process.poll() is None:
            process.kill()


@pytest.mark.parametrize("seats", [2])
async def test_a_seat_that_never_commits_is_left_out_and_the_deal_goes_on(
    tmp_path: Path, seats: int
) -> None:
    from host.table.state import TableSettings
    from scala40_net.pb import deal_pb2

    served = await start_host(tmp_path, TableSettings(commit_timeout=0.3, reveal_timeout=0.3))
    try:
        table_id = await served.new_table(seats=seats)
        ann = await served.join(table_id, "ann")
        await served.lobby.AddBot(
            lobby_pb2.AddBotRequest(table_id=table_id), metadata=bearer(ann.seat_token)
        )
        await served.lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=table_id), metadata=bearer(ann.seat_token)
        )
        for _ in range(300):
            view = (
                await served.table.GetView(
                    table_pb2.GetViewRequest(), metadata=bearer(ann.seat_token)
                )
            ).view
            if view.phase in (table_pb2.TURN_PHASE_DRAW, table_pb2.TURN_PHASE_PLAY):
                break
            await asyncio.sleep(0.05)
        events = [deal_pb2.DealEvent.FromString(e) for e in view.deal_events]
        reveals = next(e.reveals for e in events if e.HasField("reveals"))
        assert [(x.seat, x.reason) for x in reveals.left_out] == [
            (0, deal_pb2.LEFT_OUT_REASON_NO_COMMITMENT)
        ]
        assert [r.seat for r in reveals.reveals] == [1]
        assert len(view.my_hand) == 13  # dealt all the same
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
