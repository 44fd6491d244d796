"""Restart recovery: a host stopped mid-match comes back from its journal and the match goes on."""

from __future__ import annotations

import asyncio
from pathlib import Path

from conftest import bot_seat, start_host

from scala40_net.fairdeal.record import DealRecord
from scala40_net.fairdeal.replay import replay_deal
from scala40_net.fairdeal.verify import verify_record
from scala40_net.pb import lobby_pb2, table_pb2, table_pb2_grpc


async def test_a_match_goes_on_after_a_restart_with_the_same_tokens_and_seqs(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "host"
    first = await start_host(data_dir)
    table_id = await first.new_table(seats=3)
    seats = []
    for name in ("ann", "bob"):
        joined = await first.join(table_id, name)
        seats.append(bot_seat(first.channel, table_id, joined))
    await first.lobby.AddBot(lobby_pb2.AddBotRequest(table_id=table_id), metadata=seats[0].metadata)
    tasks = [asyncio.create_task(s.play_match()) for s in seats]
    while not all(s.log.events for s in seats):
        await asyncio.sleep(0.01)
    await first.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=seats[0].metadata
    )
    while seats[0].last_seq < 60:
        await asyncio.sleep(0.005)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    before = first.host.registry.tables[table_id]
    await first.channel.close()
    await first.host.stop(grace=0.5)
    stopped_at, deal_no = before.seq, before.deal_no

    second = await start_host(data_dir)
    try:
        table = second.host.registry.tables[table_id]
        assert (table.seq, table.deal_no) == (stopped_at, deal_no)
        for seat in seats:  # the same clients, the same tokens, a new connection
            seat.tables = table_pb2_grpc.TableServiceStub(second.channel)
        await asyncio.wait_for(asyncio.gather(*(s.play_match() for s in seats)), timeout=60)
        fingerprint = (
            await second.lobby.GetHostInfo(lobby_pb2.GetHostInfoRequest())
        ).host_fingerprint
        for seat in seats:
            received = [
                table_pb2.SubscribeEventsResponse.FromString(m).event.seq for m in seat.log.messages
            ]
            assert received[1:] == list(range(received[1], received[-1] + 1)), (
                "a gap or a duplicate"
            )
            for signed in seat.log.signed:
                answer = await second.table.GetDealRecord(
                    table_pb2.GetDealRecordRequest(deal_no=signed.deal_no), metadata=seat.metadata
                )
                record = DealRecord.from_json(answer.record)
                mine = seat.log.seeds.get(signed.deal_no)
                verified = verify_record(
                    record,
                    host_fingerprint=fingerprint,
                    replayer=replay_deal,
                    **({"seat": seat.seat, "my_seed": mine[0], "my_cut": mine[1]} if mine else {}),
                )
                assert verified.replay.startswith("ok")
        assert any(s.deal_no == deal_no for s in seats[0].log.signed)  # the deal cut by the restart
    finally:
        await second.channel.close()
        await second.host.stop(grace=0.5)
