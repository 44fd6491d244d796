"""No table plays for ever: a match nobody watches pauses, the stall rule stays on at a table,
and a match of void deals ends (R11.5) — on the in-memory journal and over gRPC."""

from __future__ import annotations

import asyncio
import dataclasses

import grpc
import pytest
from conftest import HostClient
from test_host_table_memory import SETTINGS, config, join, new_task

from host.edge.errors import error_info
from host.journal.memory import MemoryJournal
from host.table.bots import InHostTable
from host.table.task import TableTask
from scala40_net.pb import lobby_pb2, ruleset_pb2
from tests.conftest import until

ALONE = dataclasses.replace(SETTINGS, nobody_there=0.3)


async def bots_left_alone(journal: MemoryJournal) -> TableTask:
    """A long match of host bots whose one person started it and left."""
    task = new_task(journal, config(3, deals=99), settings=ALONE)
    task.start()
    ann = await task.call(lambda table: table.join(join("Ann")))
    for _ in range(2):
        await task.call(lambda table: table.add_bot(ann.seat, lobby_pb2.AddBotRequest()))
    await task.call(lambda table: table.start_match(ann.seat, lobby_pb2.StartMatchRequest()))
    await task.call(lambda table: table.leave(ann.seat, lobby_pb2.LeaveTableRequest()))
    return task


async def test_a_match_nobody_watches_pauses_and_a_stream_resumes_it() -> None:
    journal = MemoryJournal()
    task = await bots_left_alone(journal)
    try:
        await until(lambda: task.paused, explain=lambda: f"at seq {task.table.seq}")
        paused_at = len(journal.stored)
        for _ in range(10):  # a while: the bots, the clocks, the deadline all wait
            await asyncio.sleep(0.1)
            assert len(journal.stored) == paused_at
            assert not task.match_over
        # A spectator's stream opens: the match goes on from where it was.
        await task.call(lambda _: task.subscribe(None, 0))
        assert not task.paused
        await until(lambda: len(journal.stored) > paused_at)
    finally:
        await task.stop()


async def test_a_host_bot_asking_while_its_table_is_paused_waits_for_a_stream() -> None:
    """A bot's request asked after the pause (its next move, say, once its last one was
    answered) is not run on the paused table: it waits, nothing is journaled, and it runs
    once a stream opens."""
    journal = MemoryJournal()
    task = await bots_left_alone(journal)
    try:
        await until(lambda: task.paused, explain=lambda: f"at seq {task.table.seq}")
        stored = len(journal.stored)
        bot_seat = next(s.number for s in task.table.seats if s.is_bot)
        asked = asyncio.create_task(InHostTable(task, bot_seat).view())
        await asyncio.sleep(0.5)
        assert not asked.done(), "a paused table answered a host bot"
        assert len(journal.stored) == stored
        await task.call(lambda _: task.subscribe(None, 0))
        answer = await asyncio.wait_for(asked, 30)
        assert answer.view.table.table_id == task.table_id
    finally:
        await task.stop()


async def test_a_watched_match_does_not_pause() -> None:
    journal = MemoryJournal()
    task = new_task(journal, config(3, deals=1), settings=ALONE)
    task.start()
    try:
        ann = await task.call(lambda table: table.join(join("Ann")))
        for _ in range(2):
            await task.call(lambda table: table.add_bot(ann.seat, lobby_pb2.AddBotRequest()))
        await task.call(lambda _: task.subscribe(None, 0))  # somebody watches
        await task.call(lambda table: table.start_match(ann.seat, lobby_pb2.StartMatchRequest()))
        await task.call(lambda table: table.leave(ann.seat, lobby_pb2.LeaveTableRequest()))
        await until(lambda: task.match_over, seconds=120)
        assert not task.paused
    finally:
        await task.stop()


async def test_the_stall_rule_cannot_be_turned_off_at_a_table(served: HostClient) -> None:
    ruleset = ruleset_pb2.Ruleset(
        options=ruleset_pb2.RulesetOptions(opening_points=150, stall_rebuilds=0)
    )
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await served.new_table(seats=2, ruleset=ruleset)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info = error_info(refused.value)
    assert info is not None and info.reason == "BAD_RULESET" and info.metadata["rule"] == "R10.2"
    assert not (await served.lobby.ListTables(lobby_pb2.ListTablesRequest())).tables


async def test_a_match_whose_deals_all_end_void_ends() -> None:
    """The issue's table: two seats, semplice, opening points 150 (nobody can open): every
    deal ends void at its third idle rebuild, and the third of those ends the match."""
    table = config(2, ruleset_pb2.PRESET_SEMPLICE, deals=3)
    table.ruleset.options.opening_points = 150
    task = new_task(MemoryJournal(), table)
    task.start()
    try:
        ann = await task.call(lambda table: table.join(join("Ann")))
        await task.call(lambda table: table.add_bot(ann.seat, lobby_pb2.AddBotRequest()))
        await task.call(lambda _: task.subscribe(None, 0))
        await task.call(lambda table: table.start_match(ann.seat, lobby_pb2.StartMatchRequest()))
        await task.call(lambda table: table.leave(ann.seat, lobby_pb2.LeaveTableRequest()))
        await until(lambda: task.match_over, seconds=300)
        m = task.table.match
        assert m is not None and m.deals_closed == 0 and m.winners == m.seats
    finally:
        await task.stop()
