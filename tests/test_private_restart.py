"""A scala40-bot process killed mid-deal at a private table and started again resumes its seat
from its per-deal key on disk and the deal's transcript the host hands back; the deal goes
on to its end and its record audits (docs/PRIVATE_TABLES.md, "Keys, drop-outs, liveness")."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import HostClient, until
from private_participant import quick_rules
from test_host_private import audit_stream, record_verifies

from scala40_net.bots import make_bot
from scala40_net.pb import deal_pb2, lobby_pb2, table_pb2
from scala40_net.seat.netbot import NetworkSeat, SeatLog


def start_bot(
    served: HostClient, table_id: str, name: str, data_dir: Path, think: float = 0.15
) -> subprocess.Popen[str]:
    env = dict(os.environ, SCALA40_BOT_DATA_DIR=str(data_dir), PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        [sys.executable, "-m", "scala40_net.seat.netbot", f"127.0.0.1:{served.host.port}",
         "--fingerprint", served.host.identity.fingerprint, "--table", table_id,
         "--level", "medium", "--name", name, "--think", str(think), "--rematch-wait", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip


def draws(log: SeatLog) -> int:
    return sum(
        1
        for e in log.events
        if e.HasField("deal")
        and deal_pb2.DealEvent.FromString(e.deal.public_event).WhichOneof("event") == "drawn"
    )


@pytest.mark.long(60)
@pytest.mark.timeout(400)
async def test_a_bot_killed_mid_deal_resumes_from_its_key_on_disk(
    served: HostClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    created = await served.lobby.CreateTable(
        lobby_pb2.CreateTableRequest(
            name="private restart", seats=3, ruleset=quick_rules(2), private_cards=True,
            grace_seconds=120,
        )
    )  # fmt: skip
    table_id = created.table_id
    watcher = NetworkSeat(served.channel, table_id, make_bot("medium", random.Random(7)),
                          log=SeatLog())  # fmt: skip
    watcher.private_dir = tmp_path / "watcher"
    watcher.think = 0.15
    await watcher.join("medium watcher")
    data = tmp_path / "bots"
    others = [start_bot(served, table_id, f"medium {n}", data) for n in range(2)]
    stopping = asyncio.Event()
    signed: list[table_pb2.DealSigned] = []

    async def deal_over(s: table_pb2.DealSigned, u: table_pb2.MatchUpdate) -> None:
        signed.append(s)

    watcher.on_deal_over = deal_over
    playing = asyncio.create_task(watcher.play_to_end(stopping))
    back: subprocess.Popen[str] | None = None
    said: list[str] = []  # what the bot started again says
    try:

        async def seated() -> bool:
            listed = await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
            table = next(t for t in listed.tables if t.table_id == table_id)
            return all(s.taken for s in table.seats)

        for _ in range(600):
            if await seated():
                break
            await asyncio.sleep(0.05)
        await until(lambda: watcher.log is not None and watcher.log.events, 30)
        await served.lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=table_id), metadata=watcher.metadata
        )
        assert watcher.log is not None
        log = watcher.log
        await until(lambda: draws(log) >= 3, 120)
        assert not signed, "the deal ended before a seat could be killed in it"
        # One bot's process dies mid-deal, and is started again under its name.
        os.kill(others[0].pid, signal.SIGKILL)
        await asyncio.to_thread(others[0].wait, 30)
        killed_at = draws(log)
        back = start_bot(served, table_id, "medium 0", data)
        reading = threading.Thread(target=lambda: said.extend(iter(back.stdout.readline, "")),  # type: ignore[union-attr]
                                   daemon=True)  # fmt: skip
        reading.start()
        await until(lambda: signed, 300, lambda: f"draws {draws(log)} (killed at {killed_at})")
        assert draws(log) > killed_at
        # The bot back checks the deal it resumed, to its end, as one of its seats.
        await until(lambda: any(line.startswith("deal 1 over") for line in said), 60,
                    lambda: "".join(said))  # fmt: skip
    finally:
        stopping.set()
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)
        for process in [*others, back]:
            if process is not None and process.poll() is None:
                process.kill()
    out = "".join(said)
    record = await watcher.link.deal_record(signed[0].deal_no)
    line = record_verifies(tmp_path, record, "deal.json", capsys)
    assert "went_out" in line or "void" in line, line
    assert "R10.3" not in line, line  # not voided for the seat that was away
    assert audit_stream(log.messages) >= 1
    assert "deal 1 over" in out and "private deal audited" in out, out
    assert "PRIVATE_MESSAGE_REFUSED" not in out, out
