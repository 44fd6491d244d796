"""Resuming event streams: after a disconnect exactly the missed events; a snapshot when too old."""

from __future__ import annotations

import asyncio
from pathlib import Path

from conftest import HostClient, bearer, bot_seat, start_host
from hypothesis import given, settings
from hypothesis import strategies as st
from test_host_bad_input import context, deal_two_seats, view

from host.table.fanout import Fanout, Record, prepare
from host.table.state import TableSettings
from scala40_net.pb import deal_pb2, lobby_pb2, table_pb2
from scala40_net.seat.netbot import NetworkSeat


async def read_until(
    served: HostClient, token: str, after_seq: int, stop: int
) -> list[table_pb2.SubscribeEventsResponse]:
    """Subscribe after ``after_seq`` and read until an event with seq >= ``stop``, then hang up."""
    call = served.table.SubscribeEvents(
        table_pb2.SubscribeEventsRequest(after_seq=after_seq), metadata=bearer(token)
    )
    out = []
    async for message in call:
        out.append(message)
        if message.event.seq >= stop:
            break
    call.cancel()
    return out


async def two_bots_playing(served: HostClient) -> list[NetworkSeat]:
    table_id = await served.new_table(seats=2)
    seats = []
    for name in ("ann", "bob"):
        joined = await served.join(table_id, name)
        seats.append(bot_seat(served.channel, table_id, joined))
    return seats


async def test_a_client_that_reconnects_mid_deal_gets_exactly_the_missed_events(
    served: HostClient,
) -> None:
    ann, bob = await two_bots_playing(served)
    # A second connection of ann's seat: it will drop mid-deal and come back.
    token = ann.metadata[0][1].removeprefix("Bearer ")
    tasks = [asyncio.create_task(s.play_match()) for s in (ann, bob)]
    while not ann.log.events or not bob.log.events:
        await asyncio.sleep(0.01)
    start_seq = ann.last_seq
    table_id = next(iter(served.host.registry.tables))
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=ann.metadata
    )
    first = await read_until(served, token, start_seq, start_seq + 30)
    last_seen = first[-1].event.seq
    await asyncio.sleep(0.05)  # the table plays on while this connection is away
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=30)
    final_seq = ann.last_seq
    assert final_seq > last_seen + 10
    second = await read_until(served, token, last_seen, final_seq)
    seqs = [m.event.seq for m in first + second]
    assert seqs == list(range(start_seq + 1, final_seq + 1)), "a gap or a duplicate"
    assert all(not m.event.HasField("snapshot") for m in first + second)
    # Byte for byte what the connection that never dropped received.
    continuous = {
        table_pb2.SubscribeEventsResponse.FromString(b).event.seq: b for b in ann.log.messages
    }
    assert [m.SerializeToString() for m in first + second] == [continuous[s] for s in seqs]


async def test_a_subscriber_too_far_behind_gets_a_snapshot_then_the_events(tmp_path: Path) -> None:
    served = await start_host(
        tmp_path, TableSettings(commit_timeout=10, reveal_timeout=10, keep_events=20)
    )
    try:
        ann, bob = await two_bots_playing(served)
        tasks = [asyncio.create_task(s.play_match()) for s in (ann, bob)]
        while not ann.log.events or not bob.log.events:
            await asyncio.sleep(0.01)
        table_id = next(iter(served.host.registry.tables))
        await served.lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=table_id), metadata=ann.metadata
        )
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=30)
        token = bob.metadata[0][1].removeprefix("Bearer ")
        fanout = served.host.registry.tables[table_id].fanout
        before = fanout.last_seq
        resumed = await read_until(served, token, 1, 0)
        # Events 2.. are no longer kept: the view as of the last event comes instead (its seq).
        assert resumed[0].event.HasField("snapshot")
        assert before <= resumed[0].event.seq <= fanout.last_seq and fanout.oldest_kept_seq > 2
        assert resumed[0].event.snapshot.my_seat == bob.seat
        # A spectator's first snapshot (after_seq 0) shows no hand.
        watch = await served.lobby.SpectateTable(lobby_pb2.SpectateTableRequest(table_id=table_id))
        seen = await read_until(served, watch.spectator_token, 0, 0)
        assert seen[0].event.HasField("snapshot") and not seen[0].event.snapshot.HasField("my_seat")
        assert not seen[0].event.snapshot.my_hand and not seen[0].event.snapshot.my_private_events
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)


async def test_a_slow_subscriber_is_dropped_and_resumes_from_its_last_event() -> None:
    fanout = Fanout(keep=100, queue_size=4)
    backlog, slow = fanout.subscribe(0, 0, table_pb2.TableEvent)
    assert len(backlog) == 1  # a snapshot: it had nothing yet
    for seq in range(1, 11):
        fanout.publish(Record(seq, table_pb2.TableEvent(seq=seq)))
    assert slow.dropped and slow.last_queued_seq == 4 and slow.queue.qsize() == 4
    assert fanout.subscriber_count() == 0  # the table no longer writes to it
    backlog, again = fanout.subscribe(0, slow.last_queued_seq, table_pb2.TableEvent)
    assert [e.seq for e in backlog] == list(range(5, 11)) and not again.dropped


async def test_a_snapshots_private_events_say_which_public_event_each_came_with(
    served: HostClient,
) -> None:
    dealt = await deal_two_seats(served)
    me = bearer(dealt.tokens[dealt.mover])
    seq = (await view(served, dealt.tokens[dealt.mover])).seq
    draw = table_pb2.DrawRequest(context=context(seq, "d1"), source=deal_pb2.DRAW_SOURCE_STOCK)
    drawn = await served.table.Draw(draw, metadata=me)
    stream = served.table.SubscribeEvents(table_pb2.SubscribeEventsRequest(), metadata=me)
    snapshot = (await stream.read()).event.snapshot
    stream.cancel()
    for shown in (snapshot, (await view(served, dealt.tokens[dealt.mover])).view):
        kinds = [deal_pb2.DealEvent.FromString(b).WhichOneof("event") for b in shown.deal_events]
        assert len(shown.my_private_with_event) == len(shown.my_private_events) == 2
        paired = [
            (kinds[k], p.WhichOneof("event"))
            for k, p in zip(shown.my_private_with_event, shown.my_private_events, strict=True)
        ]
        assert paired == [("started", "hand_dealt"), ("drawn", "stock_card_drawn")]
        assert shown.my_private_events[1].stock_card_drawn.card == drawn.card
    # The same link as in the deal's record file (FAIR_DEAL.md "Record file": with_event).
    other = (await view(served, dealt.tokens[dealt.other])).view
    assert list(other.my_private_with_event) == [kinds.index("started")]


@given(
    text=st.text(max_size=400),
    private=st.dictionaries(st.integers(0, 5), st.binary(max_size=300), max_size=4),
)
@settings(max_examples=100, deadline=None)
def test_the_stream_messages_made_ready_once_are_what_protobuf_writes_for_each_seat(
    text: str, private: dict[int, bytes]
) -> None:
    """Each stream gets the bytes of SubscribeEventsResponse(event=its seat's event): the
    public bytes shared by the seats with no private part and the spectators."""
    public = table_pb2.TableEvent(seq=7)
    public.deal.public_event = text.encode()
    parts = {
        seat: deal_pb2.PrivateDealEvent(stock_card_drawn=deal_pb2.StockCardDrawn(card=len(data)))
        for seat, data in private.items()
    }
    record = Record(7, public, parts)
    ready = prepare(record)
    for seat in (None, *range(7)):
        expected = table_pb2.SubscribeEventsResponse(event=record.for_seat(seat))
        assert ready.for_seat(seat) == expected.SerializeToString()
        assert table_pb2.SubscribeEventsResponse.FromString(ready.for_seat(seat)) == expected
    assert all(ready.for_seat(s) is ready.public for s in (None, 6))
