"""Restart recovery: a host stopped mid-match comes back from its journal and the match goes on."""

from __future__ import annotations

import asyncio
from pathlib import Path

from conftest import HostClient, bearer, bot_seat, start_host

from host.table.state import TableSettings
from scala40_net.fairdeal import spec
from scala40_net.fairdeal.exchange import SeatExchange
from scala40_net.fairdeal.record import DealRecord
from scala40_net.fairdeal.replay import replay_deal
from scala40_net.fairdeal.verify import verify_record
from scala40_net.pb import deal_pb2, lobby_pb2, table_pb2, table_pb2_grpc

# The fair deal's deadlines are not what these tests check: a seat (or the test itself)
# sends its commitment and reveal once the host is back, which a busy machine may take more
# than a few seconds to allow, so the deadlines are far beyond it.
SETTINGS = TableSettings(commit_timeout=120.0, reveal_timeout=120.0, between_deals=0.0)
# Bounds for a busy machine, far above what each takes alone (a second or so; a match's rest
# some seconds): they cost nothing when the host is quick.
STEP_SECONDS = 60.0
MATCH_REST_SECONDS = 240.0  # within the suite's 300 s a test


async def test_a_match_goes_on_after_a_restart_with_the_same_tokens_and_seqs(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "host"
    first = await start_host(data_dir, SETTINGS)
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
    before = first.host.registry.tables[table_id].table
    await first.channel.close()
    await first.host.stop(grace=0.5)
    stopped_at, deal_no = before.seq, before.state.deal_no

    second = await start_host(data_dir, SETTINGS)
    try:
        table = second.host.registry.tables[table_id].table
        # As it was: the host bot seat may already have moved on since (it resumes at once).
        assert table.seq >= stopped_at and table.state.deal_no >= deal_no
        for seat in seats:  # the same clients, the same tokens, a new connection
            seat.tables = table_pb2_grpc.TableServiceStub(second.channel)
        await asyncio.wait_for(
            asyncio.gather(*(s.play_match() for s in seats)), timeout=MATCH_REST_SECONDS
        )
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


async def deal_events_now(served: HostClient, token: str) -> dict[str, deal_pb2.DealEvent]:
    """The current deal's public events so far, by kind, from the seat's view."""
    answer = await served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(token))
    events = [deal_pb2.DealEvent.FromString(raw) for raw in answer.view.deal_events]
    return {e.WhichOneof("event") or "": e for e in events}


async def test_a_host_bot_that_committed_before_a_restart_reveals_after_it(
    tmp_path: Path,
) -> None:
    """The bot's seed and cut are journaled with its commitment: after the restart it reveals
    the seed it committed to and is in the mix, not left out for want of a reveal."""
    data_dir = tmp_path / "host"
    first = await start_host(data_dir, SETTINGS)
    table_id = await first.new_table(seats=2)
    ann = await first.join(table_id, "ann")
    token = ann.seat_token
    await first.lobby.AddBot(lobby_pb2.AddBotRequest(table_id=table_id), metadata=bearer(token))
    await first.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=bearer(token)
    )
    table = first.host.registry.tables[table_id].table
    bot = 1 - ann.seat
    async with asyncio.timeout(
        STEP_SECONDS
    ):  # the bot commits; ann has not, so no reveal can start
        while table.current is None or bot in table.current.exchange.awaiting_commitments:
            await asyncio.sleep(0.01)
    assert table.current.step == table_pb2.TURN_PHASE_COMMIT
    await first.channel.close()
    await first.host.stop(grace=0.5)

    second = await start_host(data_dir, SETTINGS)
    try:
        mine = SeatExchange(ann.seat)
        mine.on_announced((await deal_events_now(second, token))["announced"])
        commit = table_pb2.CommitSeedRequest(
            context=table_pb2.MoveContext(request_id="c1"), deal_no=1, commitment=mine.commit()
        )
        await second.table.CommitSeed(commit, metadata=bearer(token))
        async with asyncio.timeout(STEP_SECONDS):
            while "commitments" not in (published := await deal_events_now(second, token)):
                await asyncio.sleep(0.01)
        mine.on_commitments(published["commitments"])
        reveal = mine.reveal()
        revealing = table_pb2.RevealSeedRequest(
            context=table_pb2.MoveContext(request_id="r1"),
            deal_no=1,
            seed=reveal.seed,
            cut=reveal.cut,
        )
        await second.table.RevealSeed(revealing, metadata=bearer(token))
        async with asyncio.timeout(STEP_SECONDS):
            while "reveals" not in (published := await deal_events_now(second, token)):
                await asyncio.sleep(0.01)
        reveals = published["reveals"].reveals
        assert not reveals.left_out, reveals.left_out
        assert {r.seat for r in reveals.reveals} == {ann.seat, bot}
        # The seed revealed is the one committed before the restart: the host checked it.
        committed = {c.seat: c.commitment for c in published["commitments"].commitments.commitments}
        bot_reveal = next(r for r in reveals.reveals if r.seat == bot)
        assert (
            spec.seat_commitment(table_id, 1, bot, bot_reveal.seed, bot_reveal.cut)
            == committed[bot]
        )
    finally:
        await second.channel.close()
        await second.host.stop(grace=0.5)
