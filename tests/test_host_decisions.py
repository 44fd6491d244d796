"""Who may decide what at a table: absences decided only for absent seats, more time bounded,
the match started by the table's first player (real host on 127.0.0.1, short clocks)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from conftest import HostClient, bot_seat, start_host, until

from host.edge.errors import error_info
from host.table.absences import MORE_TIME_PER_DEAL
from host.table.state import TableSettings
from scala40_net.pb import lobby_pb2, table_pb2
from scala40_net.seat.netbot import NetworkSeat

SHORT = TableSettings(commit_timeout=10, reveal_timeout=10)


async def refusal(call: object) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await call  # type: ignore[misc]
    info = error_info(refused.value)
    return refused.value.code(), info.reason if info is not None else ""


async def seated(
    served: HostClient, names: list[str], **table: int
) -> tuple[str, list[NetworkSeat]]:
    table_id = await served.new_table(seats=len(names), **table)
    seats = [bot_seat(served.channel, table_id, await served.join(table_id, n)) for n in names]
    return table_id, seats


def decide(seat: int, choice: int) -> table_pb2.DecideAbsenceRequest:
    return table_pb2.DecideAbsenceRequest(seat=seat, choice=choice)  # type: ignore[arg-type]


async def stop(tasks: list[asyncio.Task[tuple[int, ...]]]) -> None:
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def test_a_connected_player_is_not_absent_whatever_the_decider_asks(
    served: HostClient,
) -> None:
    table_id, (ann, bea) = await seated(served, ["ann", "bea"], turn_seconds=30)
    bea.think = 3600  # bea is there, thinking over her turns
    tasks = [asyncio.create_task(s.play_match()) for s in (ann, bea)]
    await until(lambda: ann.log.events and bea.log.events)  # type: ignore[union-attr]
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=ann.metadata
    )
    task = served.host.registry.tables[table_id]
    await until(lambda: task.clock.seat == bea.seat, seconds=60)  # bea's turn: she thinks
    left = task.clock.remaining()
    for seat in (bea.seat, ann.seat):  # a connected player, and the decider's own seat
        for choice in (table_pb2.ABSENCE_CHOICE_MORE_TIME, table_pb2.ABSENCE_CHOICE_HAND_TO_BOT):
            answer = await refusal(
                served.table.DecideAbsence(decide(seat, choice), metadata=ann.metadata)
            )
            assert answer == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_ABSENT"), (seat, choice)
    assert not any(s.away for s in task.table.seats)
    now_left = task.clock.remaining()
    assert left is not None and now_left is not None and now_left <= left  # no more time given
    assert task.clock.seat == bea.seat
    await stop(tasks)


@pytest.fixture
async def short(tmp_path: Path) -> AsyncIterator[HostClient]:
    """A host whose fair-deal deadlines are short enough to be met in a test."""
    served = await start_host(tmp_path / "host", SHORT)
    try:
        yield served
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


async def test_more_time_for_an_absent_seat_is_bounded_and_the_seat_is_handed_over(
    short: HostClient,
) -> None:
    """The decider asks for more time as often as they like: only MORE_TIME_PER_DEAL are
    granted, and the absent seat is still handed to a host bot within two grace periods."""
    served = short
    table_id, (ann, bea) = await seated(served, ["ann", "bea"], grace_seconds=2)
    playing = asyncio.create_task(ann.play_match())  # bea never opens a stream
    await until(lambda: bool(ann.log and ann.log.events))
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=ann.metadata
    )
    task = served.host.registry.tables[table_id]
    more = decide(bea.seat, table_pb2.ABSENCE_CHOICE_MORE_TIME)
    granted, refused = 0, []
    for _ in range(40):  # bounded: 40 asks, half a second apart
        if task.table.seats[bea.seat].away:
            break
        try:
            await served.table.DecideAbsence(more, metadata=ann.metadata)
            granted += 1
        except grpc.aio.AioRpcError as error:
            info = error_info(error)
            refused.append((error.code(), info.reason if info else ""))
        await asyncio.sleep(0.5)
    assert granted == MORE_TIME_PER_DEAL
    assert refused and set(refused) <= {
        (grpc.StatusCode.FAILED_PRECONDITION, "NO_MORE_TIME"),
        (grpc.StatusCode.FAILED_PRECONDITION, "NOT_ABSENT"),  # handed over meanwhile
    }
    assert task.table.seats[bea.seat].away == lobby_pb2.AWAY_REASON_DISCONNECTED
    await stop([playing])


@pytest.mark.long(12)
async def test_more_time_on_a_turn_never_passes_its_clock_plus_the_grace_period(
    short: HostClient,
) -> None:
    served = short
    table_id, (ann, bea) = await seated(served, ["ann", "bea"], turn_seconds=3, grace_seconds=600)
    playing = asyncio.create_task(ann.play_match())  # bea never opens a stream
    await until(lambda: bool(ann.log and ann.log.events))
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=ann.metadata
    )
    task = served.host.registry.tables[table_id]
    await until(lambda: task.clock.seat == bea.seat, seconds=60)
    more = decide(bea.seat, table_pb2.ABSENCE_CHOICE_MORE_TIME)
    for _ in range(MORE_TIME_PER_DEAL):
        await served.table.DecideAbsence(more, metadata=ann.metadata)
        left = task.clock.remaining()
        assert left is not None and left <= 3 + 600
    # However long a turn is given, it ends: the host plays bea's timed-out turn.
    assert await refusal(served.table.DecideAbsence(more, metadata=ann.metadata)) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "NO_MORE_TIME",
    )
    await until(lambda: task.table.seats[bea.seat].away == lobby_pb2.AWAY_REASON_TIMED_OUT)
    await stop([playing])


async def test_only_the_first_player_starts_the_match(served: HostClient) -> None:
    table_id, (ann, bea) = await seated(served, ["ann", "bea"])
    start = lobby_pb2.StartMatchRequest(table_id=table_id)
    task = served.host.registry.tables[table_id]
    journaled = task.table.seq
    assert await refusal(served.lobby.StartMatch(start, metadata=bea.metadata)) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "NOT_THE_DECIDER",
    )
    assert task.table.state.phase == lobby_pb2.TABLE_PHASE_WAITING
    assert task.table.seq == journaled
    # Once the first player has left, the next one who joined is the table's first player.
    await served.lobby.LeaveTable(
        lobby_pb2.LeaveTableRequest(table_id=table_id), metadata=ann.metadata
    )
    cat = bot_seat(served.channel, table_id, await served.join(table_id, "cat"))
    assert await refusal(served.lobby.StartMatch(start, metadata=cat.metadata)) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "NOT_THE_DECIDER",
    )
    await served.lobby.StartMatch(start, metadata=bea.metadata)
    assert task.table.state.phase == lobby_pb2.TABLE_PHASE_PLAYING
