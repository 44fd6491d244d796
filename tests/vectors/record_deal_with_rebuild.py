"""Record a real deal with a stock rebuild: tests/vectors/recorded_deal_rebuild.json.

Run from the repository root: ``.venv/bin/python tests/vectors/record_deal_with_rebuild.py``.
A real host on 127.0.0.1 (its data in a temporary folder) plays a two-seat,
one-deck match under the semplice preset between a network bot seat and a
host bot, until a deal has had its stock rebuilt (R10.1); that deal's record
file, as GetDealRecord returns it to the network seat (with its private
events), is written as it came. Seeds come from the OS, so every run records
another deal: the file is made once and committed, and make_fair_deal_v1.py
derives the known answers from it.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from host.edge.server import Host
from host.table.bots import SimpleBot
from host.table.state import TableSettings
from scala40_net import wire
from scala40_net.fairdeal.record import DealRecord, parse_deal_event
from scala40_net.net import tls
from scala40_net.pb import (
    lobby_pb2,
    lobby_pb2_grpc,
    ruleset_pb2,
    table_pb2,
    table_pb2_grpc,
)
from scala40_net.seat.netbot import NetworkSeat, SeatLog

OUT = Path(__file__).with_name("recorded_deal_rebuild.json")
SETTINGS = TableSettings(commit_timeout=10.0, reveal_timeout=10.0, between_deals=0.0)


def has_rebuild(record: DealRecord) -> bool:
    return any(parse_deal_event(e).WhichOneof("event") == "stock_rebuilt" for e in record.events)


SEMPLICE_TWO = ruleset_pb2.Ruleset(
    preset=ruleset_pb2.PRESET_SEMPLICE,
    options=ruleset_pb2.RulesetOptions(
        max_players=2, match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=9
    ),
)


async def record_one(
    data_dir: Path,
    ruleset: ruleset_pb2.Ruleset = SEMPLICE_TWO,
    wanted: Callable[[DealRecord], bool] = has_rebuild,
) -> bytes | None:
    """The first deal of one match whose record ``wanted`` picks (with private events)."""
    host = Host("127.0.0.1:0", data_dir, SETTINGS)
    await host.start()
    channel, _ = await tls.pinned_channel(
        "127.0.0.1", host.port, host.identity.fingerprint, wire.CHANNEL_OPTIONS
    )
    try:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        tables = table_pb2_grpc.TableServiceStub(channel)
        created = await lobby.CreateTable(
            lobby_pb2.CreateTableRequest(name="rebuild", seats=2, ruleset=ruleset)
        )
        joined = await lobby.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=created.table_id, player_name="ann")
        )
        metadata = (("authorization", f"Bearer {joined.seat_token}"),)
        await lobby.AddBot(
            lobby_pb2.AddBotRequest(table_id=created.table_id, level=lobby_pb2.BOT_LEVEL_EASY),
            metadata=metadata,
        )
        seat = NetworkSeat(channel, created.table_id, SimpleBot(), log=SeatLog())  # type: ignore[arg-type]
        seat.take_seat(joined.seat, joined.seat_token)
        await lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=created.table_id), metadata=metadata
        )
        await seat.play_to_end()
        for signed in seat.log.signed if seat.log else []:
            answer = await tables.GetDealRecord(
                table_pb2.GetDealRecordRequest(deal_no=signed.deal_no), metadata=metadata
            )
            record = DealRecord.from_json(answer.record)
            if wanted(record) and record.private_events:
                return bytes(answer.record)
        return None
    finally:
        await channel.close()
        await host.stop(grace=0.5)


async def main() -> None:
    for attempt in range(20):
        with tempfile.TemporaryDirectory() as folder:
            found = await record_one(Path(folder) / "host")
        if found is not None:
            json.loads(found)  # a JSON document, written exactly as the host sent it
            OUT.write_bytes(found)
            print(f"wrote {OUT} (match {attempt + 1})")
            return
    raise SystemExit("no deal with a stock rebuild in 20 matches")


if __name__ == "__main__":
    asyncio.run(main())
