"""A network bot (``scala40-bot``) and another match at its table, over real gRPC on 127.0.0.1.

A bot follows the people: once someone else has agreed to a rematch it agrees too
(again, when the first player's new rules withdrew its agreement), and plays the
new match; it never starts one of its own, and leaves when nobody asked within its
``rematch_wait`` (``--rematch-wait``; 0 leaves at the match's end).
"""

from __future__ import annotations

import asyncio
import random

from conftest import HostClient, until

from scala40_net.bots import make_bot
from scala40_net.pb import lobby_pb2, ruleset_pb2, table_pb2
from scala40_net.seat.netbot import NetworkSeat, SeatLog

ONE_DEAL = ruleset_pb2.RulesetOptions(
    match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=1, rientro=False
)


async def a_match_of_two(
    served: HostClient, rematch_wait: float
) -> tuple[NetworkSeat, NetworkSeat, asyncio.Task[tuple[int, ...]]]:
    """Ada (a person's seat, played here by a bot's moves) and Gigi (a network bot that waits
    ``rematch_wait`` for a rematch) play a one-deal match to its end; Gigi's task goes on."""
    ruleset = ruleset_pb2.Ruleset(preset=ruleset_pb2.PRESET_CLASSIC, options=ONE_DEAL)
    request = lobby_pb2.CreateTableRequest(name="evening", seats=2, ruleset=ruleset)
    table_id = (await served.lobby.CreateTable(request)).table_id
    ada, gigi = (
        NetworkSeat(served.channel, table_id, make_bot("easy", random.Random(n)), log=SeatLog())
        for n in (1, 2)
    )
    gigi.rematch_wait = rematch_wait
    await ada.join("Ada")
    await gigi.join("Gigi")
    bot = asyncio.create_task(gigi.play_to_end())
    playing = asyncio.create_task(ada.play_match())
    await until(lambda: bool(ada.log and ada.log.events and gigi.log and gigi.log.events), 60)
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=ada.metadata
    )
    await asyncio.wait_for(playing, 120)
    return ada, gigi, bot


def agreed(request_id: str, rules: ruleset_pb2.Ruleset | None = None) -> table_pb2.RematchRequest:
    context = table_pb2.MoveContext(request_id=request_id)
    return table_pb2.RematchRequest(context=context, rules=rules)


async def test_a_network_bot_agrees_to_the_rematch_a_person_asked_for(served: HostClient) -> None:
    ada, gigi, bot = await a_match_of_two(served, rematch_wait=60)
    try:
        await asyncio.sleep(0.5)
        assert not bot.done(), "the bot waits for a rematch"
        assert gigi.log is not None
        assert not any(e.HasField("rematch") for e in gigi.log.events), "it asks for none"
        # Ada asks for another match with other rules (she is the first player): Gigi agrees
        # and the match starts; Ada plays it.
        other = ruleset_pb2.RulesetOptions()
        other.CopyFrom(ONE_DEAL)
        other.opening_points = 51
        rules = ruleset_pb2.Ruleset(preset=ruleset_pb2.PRESET_CLASSIC, options=other)
        ada.winners = None  # her seat plays the next match too
        second = asyncio.create_task(ada.play_match())
        await served.table.Rematch(agreed("ada-1", rules), metadata=ada.metadata)
        await asyncio.wait_for(second, 120)
        # Gigi's stream reads the match's end on its own: after Ada's, maybe.
        await until(lambda: gigi.matches == 2, 60)
        starts = [e.match_started for e in gigi.log.events if e.HasField("match_started")]
        assert len(starts) == 2 and starts[1].ruleset.opening_points == 51
        assert gigi.matches == 2
    finally:
        bot.cancel()


async def test_a_network_bot_leaves_when_nobody_asks_within_its_wait(served: HostClient) -> None:
    ada, gigi, bot = await a_match_of_two(served, rematch_wait=1.0)
    # It leaves a second after it read the match's end (a bound for a busy machine; its
    # default wait is 300 s).
    winners = await asyncio.wait_for(bot, 60)
    assert winners == ada.winners
    assert gigi.matches == 1


async def test_a_network_bot_with_no_wait_leaves_at_the_match_end(served: HostClient) -> None:
    ada, _, bot = await a_match_of_two(served, rematch_wait=0)
    assert await asyncio.wait_for(bot, 60) == ada.winners  # a bound for a busy machine
