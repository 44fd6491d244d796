"""The lobby over gRPC: tables created, listed, joined and left; bots, passwords, chat."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from conftest import HostClient, bearer, until

from host.edge.errors import error_info
from host.table.task import PRESENCE_SETTLE_SECONDS
from scala40_net.pb import lobby_pb2, ruleset_pb2, table_pb2


async def refusal(call: object) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    info = error_info(caught.value)
    return caught.value.code(), info.reason if info else ""


async def test_a_table_is_created_listed_joined_and_filled_with_bots(served: HostClient) -> None:
    rules = ruleset_pb2.Ruleset(preset=ruleset_pb2.PRESET_TRADIZIONALE)
    table_id = await served.new_table(seats=3, ruleset=rules)
    ann = await served.join(table_id, "ann")
    bob = await served.join(table_id, "bob", seat=2)
    assert (ann.seat, bob.seat) == (0, 2) and ann.seat_token != bob.seat_token
    bot = await served.lobby.AddBot(
        lobby_pb2.AddBotRequest(table_id=table_id, level=lobby_pb2.BOT_LEVEL_EASY),
        metadata=bearer(ann.seat_token),
    )
    assert bot.seat == 1
    listed = (await served.lobby.ListTables(lobby_pb2.ListTablesRequest())).tables
    (summary,) = [t for t in listed if t.table_id == table_id]
    assert (
        summary.phase == lobby_pb2.TABLE_PHASE_WAITING
        and summary.preset == ruleset_pb2.PRESET_TRADIZIONALE
    )
    assert summary.ruleset.max_run == 5 and summary.ruleset.rientro
    assert [(s.taken, s.bot, s.name) for s in summary.seats] == [
        (True, False, "ann"),
        (True, True, "Bot 1"),
        (True, False, "bob"),
    ]
    assert await refusal(served.join(table_id, "cy")) == (
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "TABLE_FULL",
    )
    await served.lobby.LeaveTable(
        lobby_pb2.LeaveTableRequest(table_id=table_id), metadata=bearer(bob.seat_token)
    )
    # The token given up no longer opens anything.
    code, _ = await refusal(
        served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(bob.seat_token))
    )
    assert code == grpc.StatusCode.UNAUTHENTICATED
    cy = await served.join(table_id, "cy")
    assert cy.seat == 2


async def test_lobby_refusals_name_what_is_wrong(served: HostClient) -> None:
    assert await refusal(
        served.lobby.CreateTable(lobby_pb2.CreateTableRequest(name="", seats=4))
    ) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    bad_seats = lobby_pb2.CreateTableRequest(name="t", seats=9)
    assert await refusal(served.lobby.CreateTable(bad_seats)) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_RULESET",
    )
    one_deck = lobby_pb2.CreateTableRequest(
        name="t", seats=4, ruleset=ruleset_pb2.Ruleset(options=ruleset_pb2.RulesetOptions(decks=1))
    )
    assert await refusal(served.lobby.CreateTable(one_deck)) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_RULESET",
    )
    table_id = await served.new_table(seats=2, password="sesame")
    assert await refusal(served.join(table_id, "ann")) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "BAD_PASSWORD",
    )
    assert await refusal(served.join(table_id, "ann", password="open")) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "BAD_PASSWORD",
    )
    ann = await served.join(table_id, "ann", password="sesame")
    assert await refusal(served.join(table_id, "bob", password="sesame", seat=0)) == (
        grpc.StatusCode.ALREADY_EXISTS,
        "SEAT_TAKEN",
    )
    assert await refusal(served.join(table_id, "bob", password="sesame", seat=5)) == (
        grpc.StatusCode.NOT_FOUND,
        "NO_SUCH_SEAT",
    )
    assert await refusal(served.join(table_id, "x" * 30, password="sesame")) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
    start = lobby_pb2.StartMatchRequest(table_id=table_id)
    assert await refusal(served.lobby.StartMatch(start, metadata=bearer(ann.seat_token))) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "NOT_ENOUGH_PLAYERS",
    )
    assert await refusal(served.lobby.StartMatch(start)) == (
        grpc.StatusCode.UNAUTHENTICATED,
        "BAD_TOKEN",
    )
    spectate = lobby_pb2.SpectateTableRequest(table_id=table_id)
    assert await refusal(served.lobby.SpectateTable(spectate)) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "BAD_PASSWORD",
    )


async def test_chat_and_seat_changes_reach_every_stream_in_order(served: HostClient) -> None:
    table_id = await served.new_table(seats=2)
    ann = await served.join(table_id, "ann")
    stream = served.table.SubscribeEvents(
        table_pb2.SubscribeEventsRequest(), metadata=bearer(ann.seat_token)
    )
    received: list[table_pb2.TableEvent] = []

    async def follow() -> None:
        async for message in stream:
            received.append(message.event)
            if message.event.HasField("chat"):
                return

    follower = asyncio.create_task(follow())
    while not received:
        await asyncio.sleep(0.01)
    bob = await served.join(table_id, "bob")
    await served.table.SendChat(
        table_pb2.SendChatRequest(text="ciao a tutti"), metadata=bearer(bob.seat_token)
    )
    await asyncio.wait_for(follower, 5)
    kinds = [e.WhichOneof("event") for e in received]
    assert kinds[0] == "snapshot" and kinds[-1] == "chat"
    assert [e.seq for e in received[1:]] == list(range(received[0].seq + 1, received[-1].seq + 1))
    assert received[-1].chat.name == "bob" and received[-1].chat.text == "ciao a tutti"
    assert any(e.HasField("seat_changed") and e.seat_changed.name == "bob" for e in received)
    empty = table_pb2.SendChatRequest(text="   ")
    assert await refusal(served.table.SendChat(empty, metadata=bearer(ann.seat_token))) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )


async def test_a_person_plays_alone_against_bots_and_leaving_hands_the_seat_to_a_bot(
    served: HostClient,
) -> None:
    table_id = await served.new_table(seats=3)
    ann = await served.join(table_id, "ann")
    for _ in range(2):
        await served.lobby.AddBot(
            lobby_pb2.AddBotRequest(table_id=table_id), metadata=bearer(ann.seat_token)
        )
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=bearer(ann.seat_token)
    )
    code, reason = await refusal(
        served.lobby.AddBot(
            lobby_pb2.AddBotRequest(table_id=table_id), metadata=bearer(ann.seat_token)
        )
    )
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "MATCH_STARTED")
    await served.lobby.LeaveTable(
        lobby_pb2.LeaveTableRequest(table_id=table_id), metadata=bearer(ann.seat_token)
    )
    for _ in range(600):
        listed = (await served.lobby.ListTables(lobby_pb2.ListTablesRequest())).tables
        if listed[0].phase == lobby_pb2.TABLE_PHASE_FINISHED:
            break
        await asyncio.sleep(0.1)
    assert listed[0].phase == lobby_pb2.TABLE_PHASE_FINISHED
    # The seat keeps its player's name and score; a host bot played it to the end.
    assert listed[0].seats[0].away == lobby_pb2.AWAY_REASON_LEFT
    assert listed[0].seats[0].name == "ann" and not listed[0].seats[0].bot


async def test_a_second_stream_on_a_seat_changes_nobodys_presence(served: HostClient) -> None:
    """Two streams on one seat are allowed (a second window, say). The seat is connected while
    any of them is open: a second one opening and closing is no news, and says nothing."""
    table_id = await served.new_table(seats=2)
    ann = await served.join(table_id, "ann")
    bob = await served.join(table_id, "bob")
    watching = served.table.SubscribeEvents(
        table_pb2.SubscribeEventsRequest(), metadata=bearer(ann.seat_token)
    )
    received: list[table_pb2.TableEvent] = []

    async def follow_until(text: str) -> None:
        async for message in watching:
            received.append(message.event)
            if message.event.HasField("chat") and message.event.chat.text == text:
                return

    async def say(text: str) -> None:
        await served.table.SendChat(
            table_pb2.SendChatRequest(text=text), metadata=bearer(bob.seat_token)
        )

    seats = served.host.registry.tables[table_id].table.state.seats
    # Ann's own stream has settled: the host has told everyone she is connected (however late
    # a busy machine runs the settling).
    await until(lambda: seats[ann.seat].told_connected, 30)
    await say("one")
    await asyncio.wait_for(follow_until("one"), 5)
    assert any(
        e.HasField("seat_changed") and e.seat_changed.seat == ann.seat and e.seat_changed.connected
        for e in received
    ), "ann's first stream makes her connected"
    received.clear()
    second = served.table.SubscribeEvents(
        table_pb2.SubscribeEventsRequest(), metadata=bearer(ann.seat_token)
    )
    assert (await second.read()).event.HasField("snapshot")
    await asyncio.sleep(PRESENCE_SETTLE_SECONDS * 3)
    second.cancel()
    await asyncio.sleep(PRESENCE_SETTLE_SECONDS * 3)
    await say("two")
    await asyncio.wait_for(follow_until("two"), 5)
    changes = [e.seat_changed for e in received if e.HasField("seat_changed")]
    assert not changes, f"a second stream opening and closing published {changes}"
    watching.cancel()
    bob_watches = served.table.SubscribeEvents(
        table_pb2.SubscribeEventsRequest(), metadata=bearer(bob.seat_token)
    )
    assert (await bob_watches.read()).event.HasField("snapshot")
    await until(lambda: not seats[ann.seat].told_connected, 30)  # her last stream closed
    await say("three")
    told = []
    while not (event := (await bob_watches.read()).event).HasField("chat"):
        if event.HasField("seat_changed") and event.seat_changed.seat == ann.seat:
            told.append(event.seat_changed.connected)
    assert told[-1:] == [False], "ann's last stream closing makes her disconnected"
    bob_watches.cancel()
