"""``scala40-bot`` carries on across host restarts (SIGTERM and SIGKILL): it reconnects with its
seat token, resumes its stream, sends its fair-deal messages again with the same request ids, is
never left out of a deal's mix for it, and plays the match to its end."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from hostproc import HostProcess, free_port

from host.table.bots import SimpleBot
from scala40_net.fairdeal.record import DealRecord
from scala40_net.fairdeal.replay import replay_deal
from scala40_net.fairdeal.verify import verify_record
from scala40_net.pb import lobby_pb2, lobby_pb2_grpc, ruleset_pb2, table_pb2, table_pb2_grpc
from scala40_net.seat.netbot import NetworkSeat, SeatLog

RESTARTS = 6


@pytest.mark.long(15)
async def test_a_network_bot_plays_a_match_to_its_end_across_host_restarts(
    tmp_path: Path,
) -> None:
    host = HostProcess(
        tmp_path / "host",
        free_port(),
        "--bot-delay",
        "0.05",
        "--commit-timeout",
        "5",
        "--reveal-timeout",
        "5",
    )
    await host.start()
    bot: subprocess.Popen[str] | None = None
    try:
        assert host.channel is not None
        lobby = lobby_pb2_grpc.LobbyServiceStub(host.channel)
        options = ruleset_pb2.RulesetOptions(bust_at=250)  # a few deals at least
        table_id = (
            await lobby.CreateTable(
                lobby_pb2.CreateTableRequest(
                    name="restarts", seats=3, ruleset=ruleset_pb2.Ruleset(options=options)
                )
            )
        ).table_id
        joined = await lobby.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=table_id, player_name="ann")
        )
        ann = NetworkSeat(host.channel, table_id, SimpleBot(), log=SeatLog())  # type: ignore[arg-type]
        ann.take_seat(joined.seat, joined.seat_token)
        await lobby.AddBot(lobby_pb2.AddBotRequest(table_id=table_id), metadata=ann.metadata)
        bot = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "scala40_net.seat.netbot",
                f"127.0.0.1:{host.port}",
                "--table",
                table_id,
                "--level",
                "easy",
                "--rematch-wait",
                "0",  # it leaves at the match's end
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        async with asyncio.timeout(30):
            while True:
                listed = await lobby.ListTables(lobby_pb2.ListTablesRequest())
                if all(s.taken for s in listed.tables[0].seats):
                    break
                await asyncio.sleep(0.05)
        playing = asyncio.create_task(ann.play_to_end())
        while not ann.log or not ann.log.events:
            await asyncio.sleep(0.02)
        await lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=table_id), metadata=ann.metadata
        )
        for n in range(RESTARTS):
            await asyncio.sleep(0.4 + 0.3 * n)
            if playing.done():
                break
            if n % 2:
                await host.kill()
            else:
                await host.terminate()
            await host.start()
            ann.tables = table_pb2_grpc.TableServiceStub(host.channel)
            ann.lobby = lobby_pb2_grpc.LobbyServiceStub(host.channel)
        winners = await asyncio.wait_for(playing, timeout=240)
        out, _ = await asyncio.to_thread(bot.communicate, timeout=60)
        assert bot.returncode == 0, out
        assert "match over: won by" in out and "seat" in out.rsplit("won by", 1)[1]
        assert winners
        deal_lines = [line for line in out.splitlines() if line.startswith("deal ")]
        assert deal_lines and all("record verified" in line for line in deal_lines), out
        # In every deal it played, its own seed was in the mix (a bust sits a deal out).
        assert not any("left out" in line or "no seed" in line for line in deal_lines), out
        # Nobody was left out of any deal's mix, restarts or not.
        assert host.channel is not None
        tables = table_pb2_grpc.TableServiceStub(host.channel)
        for signed in ann.log.signed:
            answer = await tables.GetDealRecord(
                table_pb2.GetDealRecordRequest(deal_no=signed.deal_no), metadata=ann.metadata
            )
            verified = verify_record(DealRecord.from_json(answer.record), replayer=replay_deal)
            assert verified.left_out == [], f"deal {signed.deal_no}: {verified.left_out}"
    finally:
        if bot is not None and bot.poll() is None:
            bot.kill()
        await host.stop()
