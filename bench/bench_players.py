"""Players benchmark: a join with a player key's proof against one without, the rating of
one match, and the reading of a finished match from its table's journal.

Run with ``make bench`` or ``.venv/bin/python bench/bench_players.py [--joins N]``. A host
on 127.0.0.1 with TLS and limits raised out of the way; figures are printed, never asserted.
A proved join is the challenge asked (one more call), the signature made and checked; the
no-key join is one call.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from host.edge.limits import Limits
from host.edge.server import Host
from host.journal import ratings
from host.journal.history import History
from host.table.bots import SimpleBot
from scala40_net import wire
from scala40_net.net import tls
from scala40_net.pb import lobby_pb2, lobby_pb2_grpc, players_pb2, players_pb2_grpc, ruleset_pb2
from scala40_net.players import PlayerKey
from scala40_net.seat.netbot import NetworkSeat
from scala40_net.seat.proof import add_proof


def _line(what: str, ms: list[float]) -> str:
    ordered = sorted(ms)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return f"{what:28} median {statistics.median(ms):6.2f} ms  p90 {p90:6.2f} ms  (n={len(ms)})"


async def joins(count: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        roomy = Limits(requests_per_second=1e6, tables_per_minute=1_000_000)
        host = Host("127.0.0.1:0", Path(folder), limits=roomy, advertise=False)
        await host.start()
        channel, _ = await tls.pinned_channel(
            "127.0.0.1", host.port, host.identity.fingerprint, wire.CHANNEL_OPTIONS
        )
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        players = players_pb2_grpc.PlayersServiceStub(channel)
        keys = [PlayerKey.generate() for _ in range(count)]
        times: dict[str, list[float]] = {"join without a key": [], "join with a proof": []}
        try:
            for n in range(count):
                for what in times:
                    made = lobby_pb2.CreateTableRequest(name="bench", seats=2)
                    table_id = (await lobby.CreateTable(made)).table_id
                    request = lobby_pb2.JoinTableRequest(table_id=table_id, player_name=f"P{n}")
                    start = time.perf_counter()
                    if what == "join with a proof":
                        request.player_name = f"K{n}"
                        await add_proof(players, request, keys[n], host.identity.fingerprint)
                    await lobby.JoinTable(request)
                    times[what].append((time.perf_counter() - start) * 1000)
            standings = await players.GetStandings(players_pb2.GetStandingsRequest())
            assert not standings.standings  # nobody played: nobody rated
        finally:
            await channel.close()
            await host.stop(grace=0.2)
    for what, ms in times.items():
        print(_line(what, ms))


def rating(count: int) -> None:
    """One 4-seat match rated (openskill Thurstone-Mosteller full pairing), ``count`` times."""
    match = players_pb2.PastMatch(match_id="t/1")
    for seat, place in enumerate((1, 2, 2, 4)):
        match.players.add(seat=seat, place=place, key_fingerprint=f"K{seat}")
    ms = []
    for _ in range(count):
        start = time.perf_counter()
        ratings.rate(match, {})
        ms.append((time.perf_counter() - start) * 1000)
    print(_line("rating a 4-seat match", ms))


async def reading(deals: int) -> None:
    """A match of ``deals`` deals (a network bot and three medium host bots) played to its
    end, then read back as the history reads it at a match's end: through the table's own
    journal, on the host's loop (what that read holds the loop for)."""
    with tempfile.TemporaryDirectory() as folder:
        host = Host("127.0.0.1:0", Path(folder), advertise=False)
        await host.start()
        channel, _ = await tls.pinned_channel(
            "127.0.0.1", host.port, host.identity.fingerprint, wire.CHANNEL_OPTIONS
        )
        try:
            lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
            rules = ruleset_pb2.Ruleset(
                options=ruleset_pb2.RulesetOptions(
                    match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=deals
                )
            )
            made = lobby_pb2.CreateTableRequest(name="bench", seats=4, ruleset=rules)
            table_id = (await lobby.CreateTable(made)).table_id
            joined = await lobby.JoinTable(
                lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Ada")
            )
            seat = NetworkSeat(channel, table_id, SimpleBot())
            seat.take_seat(joined.seat, joined.seat_token)
            for _ in range(3):
                await lobby.AddBot(
                    lobby_pb2.AddBotRequest(table_id=table_id, level=lobby_pb2.BOT_LEVEL_MEDIUM),
                    metadata=seat.metadata,
                )
            playing = asyncio.create_task(seat.play_match())
            await asyncio.sleep(0.5)  # its stream open before the start
            await lobby.StartMatch(
                lobby_pb2.StartMatchRequest(table_id=table_id), metadata=seat.metadata
            )
            await asyncio.wait_for(playing, timeout=600)
            task = host.registry.tables[table_id]
            ms, found = [], []
            for _ in range(5):
                start = time.perf_counter()
                found = History.read_live(table_id, task.config, task.journal)
                ms.append((time.perf_counter() - start) * 1000)
            entries = len(task.journal.entries())
        finally:
            await channel.close()
            await host.stop(grace=0.2)
    print(_line(f"reading a match of {found[0].deal_count} deals", ms) + f", {entries} entries")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--joins", type=int, default=60, help="joins of each kind (60)")
    parser.add_argument("--deals", type=int, default=8, help="deals of the match read (8)")
    args = parser.parse_args()
    asyncio.run(joins(args.joins))
    rating(1000)
    asyncio.run(reading(args.deals))


if __name__ == "__main__":
    main()
