"""Another match at the same table (TableService.Rematch), over real gRPC on 127.0.0.1.

After a match each person seated agrees; the first player may change the rules,
which asks everyone again; the last agreement starts the match with the same
seats and seat tokens, its deals numbered on from the last one. The agreement
is journaled: a restarted host reopens the table as it was.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import grpc
import pytest
from conftest import HostClient, start_host, until

from host.edge.errors import error_info
from scala40_net.bots import make_bot
from scala40_net.pb import lobby_pb2, ruleset_pb2, table_pb2
from scala40_net.seat.netbot import NetworkSeat, SeatLog

ONE_DEAL = ruleset_pb2.RulesetOptions(
    match_mode=ruleset_pb2.MATCH_MODE_DEALS, deals_in_match=1, rientro=False
)


def rematch(request_id: str, rules: ruleset_pb2.Ruleset | None = None) -> table_pb2.RematchRequest:
    request = table_pb2.RematchRequest(context=table_pb2.MoveContext(request_id=request_id))
    if rules is not None:
        request.rules.CopyFrom(rules)
    return request


async def refused(call: object) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    info = error_info(caught.value)
    assert info is not None
    return caught.value.code(), info.reason


async def play(seats: list[NetworkSeat]) -> None:
    """Both people's seats play the match to its end."""
    for seat in seats:
        seat.winners = None
    await asyncio.wait_for(asyncio.gather(*(s.play_match() for s in seats)), timeout=180)


async def listening(served: HostClient, table_id: str, *seats: NetworkSeat) -> None:
    """Until the host has each seat's stream open: every event from now on reaches it."""
    fanout = served.host.registry.tables[table_id].fanout
    await until(lambda: {s.seat for s in seats} <= fanout.connected_seats(), 60)


async def view(served: HostClient, seat: NetworkSeat) -> table_pb2.GetViewResponse:
    answer: table_pb2.GetViewResponse = await served.table.GetView(
        table_pb2.GetViewRequest(), metadata=seat.metadata
    )
    return answer


async def test_a_rematch_is_agreed_by_everyone_seated_and_survives_a_restart(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "host"
    served = await start_host(data_dir)
    try:
        ruleset = ruleset_pb2.Ruleset(preset=ruleset_pb2.PRESET_CLASSIC, options=ONE_DEAL)
        request = lobby_pb2.CreateTableRequest(name="evening", seats=3, ruleset=ruleset)
        table_id = (await served.lobby.CreateTable(request)).table_id
        ada, bea = (
            NetworkSeat(
                served.channel, table_id, make_bot("medium", random.Random(n)), log=SeatLog()
            )
            for n in (1, 2)
        )
        await ada.join("Ada")
        await bea.join("Bea")
        await served.lobby.AddBot(lobby_pb2.AddBotRequest(table_id=table_id), metadata=ada.metadata)
        # Before the match is over there is nothing to agree to.
        assert await refused(served.table.Rematch(rematch("early"), metadata=ada.metadata)) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "MATCH_NOT_OVER",
        )
        playing = asyncio.create_task(play([ada, bea]))
        await listening(served, table_id, ada, bea)
        await served.lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=table_id), metadata=ada.metadata
        )
        await playing
        first = await view(served, ada)
        assert first.view.table.phase == lobby_pb2.TABLE_PHASE_FINISHED
        last_deal = first.view.deal_no

        # Only the first player changes the rules: Bea's are refused, and change nothing.
        semplice = ruleset_pb2.Ruleset(preset=ruleset_pb2.PRESET_SEMPLICE, options=ONE_DEAL)
        assert await refused(
            served.table.Rematch(rematch("bea-rules", semplice), metadata=bea.metadata)
        ) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_THE_DECIDER")
        # Rules the table cannot play are refused and change nothing either: one deck for
        # three, the stall rule off (R10.2).
        seq = (await view(served, ada)).seq
        one_deck = ruleset_pb2.Ruleset(options=ruleset_pb2.RulesetOptions(decks=1))
        endless = ruleset_pb2.Ruleset(options=ruleset_pb2.RulesetOptions(stall_rebuilds=0))
        for bad in (one_deck, endless):
            assert await refused(
                served.table.Rematch(
                    rematch(f"bad-{bad.options.decks}", bad), metadata=ada.metadata
                )
            ) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_RULESET")
        after = await view(served, ada)
        assert after.seq == seq and after.view.table.preset == ruleset_pb2.PRESET_CLASSIC
        # Bea agrees to the same rules; then Ada changes them, which asks Bea again.
        await served.table.Rematch(rematch("bea-1"), metadata=bea.metadata)
        await served.table.Rematch(rematch("ada-1", semplice), metadata=ada.metadata)
        seq = (await view(served, ada)).seq
        await served.table.Rematch(rematch("ada-1", semplice), metadata=ada.metadata)  # a retry
        assert (await view(served, ada)).seq == seq  # answered again, nothing new
        waiting = (await view(served, bea)).view.table
        assert waiting.phase == lobby_pb2.TABLE_PHASE_FINISHED
        assert waiting.preset == ruleset_pb2.PRESET_SEMPLICE

        second = asyncio.create_task(play([ada, bea]))
        await listening(served, table_id, ada, bea)
        await served.table.Rematch(rematch("bea-2"), metadata=bea.metadata)
        await second
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)

    assert ada.log is not None
    updates = [e.rematch for e in ada.log.events if e.HasField("rematch")]
    assert [(list(u.agreed_seats), list(u.waiting_for_seats)) for u in updates] == [
        ([bea.seat], [ada.seat]),
        ([ada.seat], [bea.seat]),  # the new rules withdrew Bea's agreement
    ]
    assert updates[1].ruleset != updates[0].ruleset  # semplice, announced before it is agreed
    starts = [e.match_started for e in ada.log.events if e.HasField("match_started")]
    assert len(starts) == 2 and sorted(starts[1].seats) == [0, 1, 2]
    assert starts[1].ruleset == updates[1].ruleset

    again = await start_host(data_dir)
    try:
        reopened = await view(again, ada)  # the same seat token
        assert reopened.view.table.phase == lobby_pb2.TABLE_PHASE_FINISHED
        assert reopened.view.table.preset == ruleset_pb2.PRESET_SEMPLICE
        assert reopened.view.deal_no > last_deal  # deals numbered on, across the matches
        record = await again.table.GetDealRecord(
            table_pb2.GetDealRecordRequest(deal_no=reopened.view.deal_no), metadata=bea.metadata
        )
        assert record.record
    finally:
        await again.channel.close()
        await again.host.stop(grace=0.5)


async def three_people(served: HostClient) -> tuple[str, list[NetworkSeat]]:
    """A one-deal table of three people's seats: Ada (the first player), Bea and Cleo."""
    ruleset = ruleset_pb2.Ruleset(preset=ruleset_pb2.PRESET_CLASSIC, options=ONE_DEAL)
    request = lobby_pb2.CreateTableRequest(name="evening", seats=3, ruleset=ruleset)
    table_id = (await served.lobby.CreateTable(request)).table_id
    seats = [
        NetworkSeat(served.channel, table_id, make_bot("medium", random.Random(n)), log=SeatLog())
        for n in (1, 2, 3)
    ]
    for seat, name in zip(seats, ("Ada", "Bea", "Cleo"), strict=True):
        await seat.join(name)
    return table_id, seats


def hand_to_bot(seat: int) -> table_pb2.DecideAbsenceRequest:
    return table_pb2.DecideAbsenceRequest(seat=seat, choice=table_pb2.ABSENCE_CHOICE_HAND_TO_BOT)


async def test_a_seat_handed_to_a_host_bot_does_not_hold_up_a_rematch(tmp_path: Path) -> None:
    """The stand-in agrees as a host bot does, and plays the seat in the new match until
    its player comes back and takes it."""
    served = await start_host(tmp_path / "host")
    try:
        table_id, (ada, bea, cleo) = await three_people(served)
        playing = asyncio.create_task(play([ada, bea]))
        await listening(served, table_id, ada, bea)  # Cleo never opens one
        await served.lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=table_id), metadata=ada.metadata
        )
        await served.table.DecideAbsence(hand_to_bot(cleo.seat), metadata=ada.metadata)
        await playing
        assert (await view(served, ada)).view.table.phase == lobby_pb2.TABLE_PHASE_FINISHED

        await served.table.Rematch(rematch("ada"), metadata=ada.metadata)
        waiting = (await view(served, ada)).view.table
        assert waiting.phase == lobby_pb2.TABLE_PHASE_FINISHED  # Bea has not agreed yet
        # Cleo comes back (opens a stream) after the match, without a word: the seat is
        # her stand-in's until the new match's first turn boundary, where she takes it.
        back_again = asyncio.create_task(play([cleo]))
        await listening(served, table_id, cleo)
        await served.table.Rematch(rematch("bea"), metadata=bea.metadata)
        started = (await view(served, ada)).view.table
        assert started.phase == lobby_pb2.TABLE_PHASE_PLAYING  # nobody waited for Cleo
        assert started.seats[cleo.seat].away == lobby_pb2.AWAY_REASON_HANDED_OVER

        await play([ada, bea])
        await asyncio.wait_for(back_again, timeout=30)
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)

    assert ada.log is not None
    updates = [e.rematch for e in ada.log.events if e.HasField("rematch")]
    assert [(list(u.agreed_seats), list(u.waiting_for_seats)) for u in updates] == [
        ([ada.seat], [bea.seat])  # Cleo's seat is not waited for
    ]
    kinds = [e.WhichOneof("event") for e in ada.log.events]
    second = len(kinds) - 1 - kinds[::-1].index("match_started")
    back = [
        e.seat_changed
        for e in ada.log.events[second:]
        if e.HasField("seat_changed") and e.seat_changed.seat == cleo.seat
    ]
    assert any(not info.away for info in back), back


async def test_an_absent_seat_at_the_match_end_is_waited_for_until_it_is_handed_over(
    tmp_path: Path,
) -> None:
    """A seat whose player has no stream at the end of the match but was never handed over
    still has its say; the first player may hand it to a host bot, and the rematch the others
    agreed to starts then, a host bot playing it. A restarted host keeps it so."""
    data_dir = tmp_path / "host"
    served = await start_host(data_dir)
    try:
        table_id, (ada, bea, cleo) = await three_people(served)
        playing = asyncio.create_task(play([ada, bea, cleo]))
        await listening(served, table_id, ada, bea, cleo)
        await served.lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=table_id), metadata=ada.metadata
        )
        await playing  # every stream closes with the match's end

        await served.table.Rematch(rematch("ada"), metadata=ada.metadata)
        await served.table.Rematch(rematch("bea"), metadata=bea.metadata)
        waiting = (await view(served, ada)).view.table
        assert waiting.phase == lobby_pb2.TABLE_PHASE_FINISHED  # Cleo still has her say
        assert not waiting.seats[cleo.seat].away
        # Only the first player decides for her; and not for a seat a bot already plays.
        assert await refused(
            served.table.DecideAbsence(hand_to_bot(cleo.seat), metadata=bea.metadata)
        ) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_THE_DECIDER")
        await served.table.DecideAbsence(hand_to_bot(cleo.seat), metadata=ada.metadata)
        started = (await view(served, ada)).view.table
        assert started.phase == lobby_pb2.TABLE_PHASE_PLAYING
        assert started.seats[cleo.seat].away == lobby_pb2.AWAY_REASON_HANDED_OVER
        assert await refused(
            served.table.DecideAbsence(hand_to_bot(cleo.seat), metadata=ada.metadata)
        ) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_ABSENT")
        seq = (await view(served, ada)).seq
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)

    again = await start_host(data_dir)
    try:
        reopened = await view(again, ada)
        assert reopened.seq >= seq
        assert reopened.view.table.phase == lobby_pb2.TABLE_PHASE_PLAYING
        assert reopened.view.table.seats[cleo.seat].away == lobby_pb2.AWAY_REASON_HANDED_OVER
    finally:
        await again.channel.close()
        await again.host.stop(grace=0.5)
