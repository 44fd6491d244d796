"""The network bot: joins a real host's table over gRPC, does the fair deal, plays a match out."""

from __future__ import annotations

import asyncio
import random

from scala40_net.bots import make_bot
from scala40_net.bots.netbot import NetworkSeat, parse_address
from scala40_net.pb import lobby_pb2, ruleset_pb2
from tests.conftest import HostClient


def test_parse_address_adds_the_default_port() -> None:
    assert parse_address("localhost") == "localhost:4040"
    assert parse_address("10.0.0.2:5000") == "10.0.0.2:5000"
    assert parse_address("[::1]:5000") == "[::1]:5000"


async def test_network_bot_plays_a_match_against_a_host_bot(served: HostClient) -> None:
    options = ruleset_pb2.RulesetOptions(match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=1)
    request = lobby_pb2.CreateTableRequest(
        name="bots", seats=2, ruleset=ruleset_pb2.Ruleset(options=options)
    )
    table_id = (await served.lobby.CreateTable(request)).table_id
    seat = NetworkSeat(served.channel, table_id, make_bot("hard", random.Random(1)))
    me = await seat.join("net bot")
    add = lobby_pb2.AddBotRequest(table_id=table_id, level=lobby_pb2.BOT_LEVEL_MEDIUM)
    await served.lobby.AddBot(add, metadata=seat.metadata)
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=seat.metadata
    )
    winners = await asyncio.wait_for(seat.play_match(), timeout=120)
    assert winners and set(winners) <= {me, 1 - me}
