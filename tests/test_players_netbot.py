"""scala40-bot's own player key: made on first start, owner-only; its match rated, its seat
given back by key when it is started again."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import sys
from pathlib import Path

from conftest import HostClient, bot_seat
from keyed_match import keyed_join

from scala40_net.pb import lobby_pb2, players_pb2, players_pb2_grpc, ruleset_pb2
from scala40_net.players import PlayerKey
from scala40_net.seat import netbot


async def _seat(served: HostClient, table_id: str, seat: int) -> lobby_pb2.SeatInfo:
    listed = (await served.lobby.ListTables(lobby_pb2.ListTablesRequest())).tables
    return next(t for t in listed if t.table_id == table_id).seats[seat]


async def _until_connected(served: HostClient, table_id: str, seat: int, connected: bool) -> None:
    async with asyncio.timeout(30):
        while (await _seat(served, table_id, seat)).connected != connected:
            await asyncio.sleep(0.05)


async def _start_bot(served: HostClient, table_id: str) -> asyncio.subprocess.Process:
    argv = [served.address, "--fingerprint", served.host.identity.fingerprint]
    argv += ["--table", table_id, "--level", "easy", "--name", "Robo", "--rematch-wait", "0"]
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "scala40_net.seat.netbot", *argv,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip


async def test_a_keyed_scala40_bot_is_rated_and_takes_its_seat_back_after_a_restart(
    served: HostClient,
) -> None:
    options = ruleset_pb2.RulesetOptions(match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=1)
    table_id = (
        await served.lobby.CreateTable(
            lobby_pb2.CreateTableRequest(
                name="robo", seats=2, ruleset=ruleset_pb2.Ruleset(options=options)
            )
        )
    ).table_id
    # Ann has a key too: a match with one rated seat alone rates nobody.
    joined = await keyed_join(served, table_id, "Ann", PlayerKey.generate())
    ann = bot_seat(served.channel, table_id, joined, think=0.15)
    bot = await _start_bot(served, table_id)
    try:
        await _until_connected(served, table_id, 1, True)
        # Its key, made at the default place of its data dir (this test's), owner-only.
        key_file = netbot.default_key_file(netbot.data_dir(), "Robo")
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        robo = PlayerKey.read(key_file)
        assert (await _seat(served, table_id, 1)).key_fingerprint == robo.fingerprint

        playing = asyncio.create_task(ann.play_match())
        while not ann.log.events:
            await asyncio.sleep(0.01)
        await served.lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=table_id), metadata=ann.metadata
        )
        async with asyncio.timeout(60):
            while sum(e.WhichOneof("event") == "deal" for e in ann.log.events) < 12:
                await asyncio.sleep(0.02)
        assert not playing.done()
        os.kill(bot.pid, signal.SIGKILL)  # its seat token is lost with it
        await bot.wait()
        await _until_connected(served, table_id, 1, False)

        bot = await _start_bot(served, table_id)
        await asyncio.wait_for(playing, 120)
        out, _ = await asyncio.wait_for(bot.communicate(), 60)
        said = out.decode()
        assert bot.returncode == 0, said
        assert f"seat 1 at table {table_id}" in said, said
        assert f"player key {robo.fingerprint}" in said, said
    finally:
        if bot.returncode is None:
            bot.kill()
            await bot.wait()

    players = players_pb2_grpc.PlayersServiceStub(served.channel)
    async with asyncio.timeout(30):
        while not (
            found := (
                await players.ListMatches(
                    players_pb2.ListMatchesRequest(key_fingerprint=robo.fingerprint)
                )
            ).matches
        ):
            await asyncio.sleep(0.05)
    [match] = found
    [rated] = [p for p in match.players if p.key_fingerprint == robo.fingerprint]
    assert (rated.seat, rated.name) == (1, "Robo")
    assert rated.HasField("rating_after")
    standings = await players.GetStandings(players_pb2.GetStandingsRequest())
    assert robo.fingerprint in {line.key_fingerprint for line in standings.standings}


def test_an_explicit_key_file_is_made_owner_only_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "bots" / "robo.pem"
    made = PlayerKey.kept_at(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert PlayerKey.kept_at(path).public_key == made.public_key
    assert [p.name for p in path.parent.iterdir()] == ["robo.pem"]  # no leftover


def test_two_names_have_two_keys_and_one_name_one(tmp_path: Path) -> None:
    one = netbot.default_key_file(tmp_path, "Robo")
    assert netbot.default_key_file(tmp_path, "robo") == one  # one name, as names compare
    assert netbot.default_key_file(tmp_path, "Robo 2") != one
    assert netbot.default_key_file(tmp_path, "../x/y").parent == tmp_path / "keys"
