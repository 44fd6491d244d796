"""Join/leave churn: seat changes are rate-limited per address and table like chat lines, and a
waiting table's churn does not fill its event log (real host on 127.0.0.1; in-memory table)."""

from __future__ import annotations

import grpc
import pytest
from conftest import HostClient, bearer
from test_host_table_memory import config, join, new_task

from host.edge.errors import error_info
from host.edge.limits import SEAT_CHANGES_PER_MINUTE
from host.journal.memory import MemoryJournal
from host.table.state import TableSettings
from scala40_net.pb import lobby_pb2, table_pb2


async def test_seat_changes_from_one_address_are_rate_limited_and_a_refused_one_does_nothing(
    served: HostClient,
) -> None:
    table_id = await served.new_table(seats=2)
    task = served.host.registry.tables[table_id]
    changes = 0
    refused: grpc.aio.AioRpcError | None = None
    for cycle in range(SEAT_CHANGES_PER_MINUTE):  # bounded: more cycles than the limit allows
        try:
            joined = await served.join(table_id, f"p{cycle}")
            changes += 1
            leave = lobby_pb2.LeaveTableRequest(table_id=table_id)
            await served.lobby.LeaveTable(leave, metadata=bearer(joined.seat_token))
            changes += 1
        except grpc.aio.AioRpcError as error:
            refused = error
            break
    assert refused is not None and changes == SEAT_CHANGES_PER_MINUTE
    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    info = error_info(refused)
    assert info is not None and info.reason == "TOO_MANY_SEAT_CHANGES"
    seq = task.table.seq
    with pytest.raises(grpc.aio.AioRpcError):
        await served.join(table_id, "again")
    assert task.table.seq == seq and not any(s.taken for s in task.table.seats)
    # Another table is not held up by this one's churn.
    other = await served.new_table(seats=2)
    assert (await served.join(other, "ann")).seat_token


async def test_a_waiting_tables_churn_does_not_fill_its_event_log() -> None:
    settings = TableSettings(commit_timeout=10.0, reveal_timeout=10.0, between_deals=0.0)
    task = new_task(MemoryJournal(), config(3), bots=False, settings=settings)
    task.start()
    try:
        ann = await task.call(lambda table: table.join(join("Ann")))
        leave = lobby_pb2.LeaveTableRequest()
        for _ in range(1_500):  # 3,000 seat changes, each one event
            seat = (await task.call(lambda table: table.join(join("Bea")))).seat
            await task.call(lambda table, seat=seat: table.leave(seat, leave))  # type: ignore[misc]
        kept = task.fanout.last_seq - task.fanout.oldest_kept_seq + 1
        assert task.fanout.last_seq > 3_000
        assert kept <= settings.keep_waiting_events
        # A stream from before what is kept starts from a snapshot, the seats as they are.
        backlog, subscriber = await task.call(lambda _: task.subscribe(ann.seat, 1))
        task.fanout.unsubscribe(subscriber)
        assert backlog[0].HasField("snapshot")
        seats = backlog[0].snapshot.table.seats
        assert [s.name for s in seats if s.taken] == ["Ann"]
        # Once the match starts, the table keeps its whole log again.
        await task.call(lambda table: table.join(join("Cat")))
        start = lobby_pb2.StartMatchRequest()
        await task.call(lambda table: table.start_match(ann.seat, start))
        started_at = task.fanout.last_seq
        for _ in range(5):
            await task.call(
                lambda table: table.chat(ann.seat, table_pb2.SendChatRequest(text="hi"))
            )
        assert task.fanout.oldest_kept_seq <= started_at - settings.keep_waiting_events + 1
    finally:
        await task.stop()
