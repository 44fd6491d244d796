"""A table organiser run inside a test's network namespace (tests/test_lan_netns.py).

``python tests/lan_table.py HOST:PORT FINGERPRINT TOKEN_FILE``: creates a
4-seat table for a short match (2 deals, no turn clock, a long grace), joins
it, adds two host bots, writes ``SEAT TOKEN`` to TOKEN_FILE (for
``scala40-bot --seat-token-file``), prints the table id, waits until every
seat is taken and its player listening, and starts the match.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from scala40_net import invite, wire
from scala40_net.net import tls
from scala40_net.pb import lobby_pb2, lobby_pb2_grpc, ruleset_pb2

DEALS = 2


async def organise(address: str, fingerprint: str, token_file: Path) -> None:
    place = invite.parse(address)
    channel, _ = await tls.pinned_channel(place.host, place.port, fingerprint, wire.CHANNEL_OPTIONS)
    lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
    try:
        options = ruleset_pb2.RulesetOptions(
            match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=DEALS
        )
        created = await lobby.CreateTable(
            lobby_pb2.CreateTableRequest(
                name="LAN",
                seats=4,
                ruleset=ruleset_pb2.Ruleset(options=options),
                turn_seconds=0,
                grace_seconds=600,  # a pulled cable is waited for, not handed to a bot
                between_deals_seconds=0,
            ),
            timeout=10,
        )
        table_id = created.table_id
        joined = await lobby.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Ann"), timeout=10
        )
        metadata = (("authorization", f"Bearer {joined.seat_token}"),)
        for _ in range(2):
            await lobby.AddBot(
                lobby_pb2.AddBotRequest(table_id=table_id, level=lobby_pb2.BOT_LEVEL_EASY),
                metadata=metadata,
                timeout=10,
            )
        fd = os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(f"{joined.seat} {joined.seat_token}\n")
        print(table_id, flush=True)
        async with asyncio.timeout(60):
            while True:
                listed = await lobby.ListTables(lobby_pb2.ListTablesRequest(), timeout=10)
                table = next(t for t in listed.tables if t.table_id == table_id)
                # Every seat taken and listening: a seat whose stream opens only after the
                # deal is announced would miss its commitment (FAIR_DEAL.md).
                if all(seat.taken and seat.connected for seat in table.seats):
                    break
                await asyncio.sleep(0.2)
        await lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=table_id), metadata=metadata, timeout=10
        )
        print("started", flush=True)
    finally:
        await channel.close()


if __name__ == "__main__":
    asyncio.run(organise(sys.argv[1], sys.argv[2], Path(sys.argv[3])))
