"""The pause between deals: the next deal waits for the people at the table, or for its clock."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

from conftest import HostClient, start_host

from host.table.state import TableSettings
from scala40_net.bots import make_bot
from scala40_net.pb import deal_pb2, lobby_pb2, ruleset_pb2, table_pb2
from scala40_net.seat.netbot import NetworkSeat, SeatLog

TWO_DEALS = ruleset_pb2.Ruleset(
    options=ruleset_pb2.RulesetOptions(match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=2)
)


class SlowReader(NetworkSeat):
    """A person who never says Ready: only the pause's clock starts the next deal."""

    async def _ready(self, pause: table_pb2.BetweenDeals) -> None:
        return


async def _two_deals(
    served: HostClient, seat_type: type[NetworkSeat], pause: int | None
) -> tuple[list[tuple[float, table_pb2.TableEvent]], NetworkSeat]:
    request = lobby_pb2.CreateTableRequest(name="pause", seats=2, ruleset=TWO_DEALS)
    if pause is not None:
        request.between_deals_seconds = pause
    table_id = (await served.lobby.CreateTable(request)).table_id
    seat = seat_type(served.channel, table_id, make_bot("medium", random.Random(4)), log=SeatLog())
    await seat.join("Ada")
    await served.lobby.AddBot(
        lobby_pb2.AddBotRequest(table_id=table_id, level=lobby_pb2.BOT_LEVEL_EASY),
        metadata=seat.metadata,
    )
    playing = asyncio.create_task(seat.play_match())
    while seat.log is None or not seat.log.events:
        await asyncio.sleep(0.01)
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=seat.metadata
    )
    await asyncio.wait_for(playing, timeout=120)
    assert seat.log is not None
    return list(zip(seat.log.received_at, seat.log.events, strict=True)), seat


def _first_pause(events: list[tuple[float, table_pb2.TableEvent]]) -> tuple[int, float]:
    """The index of the first deal's MatchUpdate and the seconds until deal 2 was announced."""
    end = next(i for i, (_, e) in enumerate(events) if e.HasField("match_update"))
    for at, event in events[end:]:
        if event.HasField("deal"):
            public = deal_pb2.DealEvent.FromString(event.deal.public_event)
            if public.WhichOneof("event") == "announced":
                return end, at - events[end][0]
    raise AssertionError("deal 2 was never announced")


async def test_the_next_deal_waits_for_the_clock_when_a_person_is_not_ready(
    tmp_path: Path,
) -> None:
    served = await start_host(tmp_path / "host", TableSettings(between_deals=20))
    try:
        events, _ = await _two_deals(served, SlowReader, pause=2)
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    end, waited = _first_pause(events)
    update = events[end][1].match_update
    assert update.HasField("between_deals")
    assert list(update.between_deals.waiting_for_seats) == [0]  # the person, not the bot
    assert 1000 <= update.between_deals.next_deal_within_ms <= 2000
    assert waited >= 1.5


async def test_a_person_saying_ready_starts_the_next_deal_at_once(tmp_path: Path) -> None:
    served = await start_host(tmp_path / "host", TableSettings(between_deals=20))
    try:
        started = time.monotonic()
        events, _ = await _two_deals(served, NetworkSeat, pause=60)
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    end, waited = _first_pause(events)
    assert events[end][1].match_update.between_deals.next_deal_within_ms > 50_000
    ready = [e.match_update for _, e in events[end + 1 :] if e.HasField("match_update")]
    assert list(ready[0].between_deals.ready_seats) == [0]
    assert waited < 30 and time.monotonic() - started < 60


async def test_a_table_with_no_pause_goes_straight_on(tmp_path: Path) -> None:
    # The host's default would pause a minute; the table's own option says not to.
    served = await start_host(tmp_path / "host", TableSettings(between_deals=60))
    try:
        events, _ = await _two_deals(served, SlowReader, pause=0)
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    end, waited = _first_pause(events)
    assert not events[end][1].match_update.HasField("between_deals")
    assert waited < 10


async def test_a_restart_during_the_pause_keeps_it_and_the_readies_it_had(tmp_path: Path) -> None:
    """The journal ends inside a pause: played back, the pause runs again, the Ready already
    sent still counts, and the last person's Ready starts the next deal."""
    settings = TableSettings(between_deals=60)
    first = await start_host(tmp_path / "host", settings)
    # Deals to spare: a pause is waited out only with Bea's stream open when it begins (a
    # stream reopening on a busy machine at that moment leaves her out of that pause).
    four_deals = ruleset_pb2.Ruleset(options=ruleset_pb2.RulesetOptions(
        match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=4))  # fmt: skip
    request = lobby_pb2.CreateTableRequest(name="restart", seats=3, ruleset=four_deals)
    table_id = (await first.lobby.CreateTable(request)).table_id
    quick = NetworkSeat(
        first.channel, table_id, make_bot("medium", random.Random(1)), log=SeatLog()
    )
    slow = SlowReader(first.channel, table_id, make_bot("medium", random.Random(2)), log=SeatLog())
    await quick.join("Ada")
    slow_joined = await first.lobby.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=table_id, player_name="Bea")
    )
    slow.take_seat(slow_joined.seat, slow_joined.seat_token)
    await first.lobby.AddBot(
        lobby_pb2.AddBotRequest(table_id=table_id, level=lobby_pb2.BOT_LEVEL_EASY),
        metadata=quick.metadata,
    )
    tasks = [asyncio.create_task(s.play_match()) for s in (quick, slow)]
    while not (quick.log and quick.log.events and slow.log and slow.log.events):
        await asyncio.sleep(0.01)
    await first.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=quick.metadata
    )
    table = first.host.registry.tables[table_id].table
    pause = table.deals.between_deals
    deadline = time.monotonic() + 180
    while not (pause.running and pause.ready and slow.seat in pause.waiting_for):
        assert time.monotonic() < deadline, "no deal ended with a Ready while Bea was there"
        assert table.state.phase == lobby_pb2.TABLE_PHASE_PLAYING, "the match ended"
        await asyncio.sleep(0.02)
    deal_no = table.state.deal_no
    # Ada (ready) goes first: the pause still waits for Bea; then Bea, and nobody is left,
    # so only the clock (or someone back) ends it.
    for task, seat in zip(tasks, (quick.seat, slow.seat), strict=True):
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        while (
            seat in table.links.presence.connected_seats()
            or seat in table.deals.between_deals.waiting_for
        ):
            await asyncio.sleep(0.01)
    assert table.state.deal_no == deal_no and table.deals.between_deals.running
    await first.channel.close()
    await first.host.stop(grace=0.5)

    second = await start_host(tmp_path / "host", settings)
    back_metadata = (("authorization", f"Bearer {slow_joined.seat_token}"),)
    try:
        table = second.host.registry.tables[table_id].table
        assert table.state.deal_no == deal_no and table.deals.between_deals.running
        assert table.deals.between_deals.ready == {quick.seat}
        # A snapshot in the pause holds the deal that ended, so a client shows its end.
        seen = await second.table.GetView(table_pb2.GetViewRequest(), metadata=back_metadata)
        kinds = [
            deal_pb2.DealEvent.FromString(e).WhichOneof("event") for e in seen.view.deal_events
        ]
        assert "ended" in kinds and seen.view.HasField("between_deals")
        # Bea comes back with her token; her client says Ready from the snapshot's pause.
        back = NetworkSeat(second.channel, table_id, make_bot("medium", random.Random(3)))
        back.take_seat(slow_joined.seat, slow_joined.seat_token)
        playing = asyncio.create_task(back.play_match())
        started = time.monotonic()
        while table.state.deal_no <= deal_no:
            assert time.monotonic() - started < 30, "the next deal waited for the clock"
            await asyncio.sleep(0.02)
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)
    finally:
        await second.channel.close()
        await second.host.stop(grace=0.5)


def test_the_host_default_pause_is_an_option_of_scala40_host() -> None:
    from host.cli import _parser

    assert _parser().parse_args([]).between_deals == 20.0
    assert _parser().parse_args(["--between-deals", "0"]).between_deals == 0.0


async def test_a_person_who_leaves_during_the_pause_is_no_longer_waited_for(
    tmp_path: Path,
) -> None:
    served = await start_host(tmp_path / "host", TableSettings(between_deals=60))
    try:
        request = lobby_pb2.CreateTableRequest(name="gone", seats=3, ruleset=TWO_DEALS)
        table_id = (await served.lobby.CreateTable(request)).table_id
        quick = NetworkSeat(served.channel, table_id, make_bot("medium", random.Random(5)))
        slow = SlowReader(served.channel, table_id, make_bot("medium", random.Random(6)))
        await quick.join("Ada")
        await slow.join("Bea")
        await served.lobby.AddBot(
            lobby_pb2.AddBotRequest(table_id=table_id, level=lobby_pb2.BOT_LEVEL_EASY),
            metadata=quick.metadata,
        )
        playing = asyncio.create_task(quick.play_match())
        leaving = asyncio.create_task(slow.play_match())
        table = served.host.registry.tables[table_id].table
        while not table.links.presence.connected_seats() >= {0, 1}:
            await asyncio.sleep(0.01)
        await served.lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=table_id), metadata=quick.metadata
        )
        deadline = time.monotonic() + 90
        while not (table.deals.between_deals.running and table.deals.between_deals.ready):
            assert time.monotonic() < deadline, "the first deal never ended with a Ready"
            await asyncio.sleep(0.02)
        assert table.state.deal_no == 1
        leaving.cancel()  # Bea's client goes away without a word
        await asyncio.gather(leaving, return_exceptions=True)
        started = time.monotonic()
        while table.state.deal_no < 2:
            assert time.monotonic() - started < 20, "deal 2 still waited for Bea"
            await asyncio.sleep(0.02)
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
