"""Nobody in where they don't belong: every limit a stranger can hit answers RESOURCE_EXHAUSTED
with a sentence and leaves everyone else served; hostile names and bytes are refused cleanly."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from conftest import HostClient, bearer, host_channel, start_host

from host.edge import limits
from host.edge.errors import error_info
from host.edge.limits import Limits
from host.edge.server import Host
from host.journal.sqlite import SUFFIX, TABLES_FOLDER
from host.table.state import TableSettings
from scala40_net.pb import lobby_pb2, lobby_pb2_grpc, table_pb2, table_pb2_grpc


async def refused(call: object) -> tuple[grpc.StatusCode, str, str]:
    try:
        await call  # type: ignore[misc]
    except grpc.aio.AioRpcError as error:
        info = error_info(error)
        return error.code(), info.reason if info else "", error.details() or ""
    raise AssertionError("the call was not refused")


@contextlib.asynccontextmanager
async def host_with(
    tmp_path: Path, chosen: Limits, settings: TableSettings | None = None
) -> AsyncIterator[HostClient]:
    """A host with ``chosen`` limits (and table settings) and a channel to it."""
    host = Host("127.0.0.1:0", tmp_path / "host", settings or TableSettings(), limits=chosen)
    await host.start()
    channel = await host_channel(host)
    client = HostClient(
        host,
        channel,
        lobby_pb2_grpc.LobbyServiceStub(channel),
        table_pb2_grpc.TableServiceStub(channel),
        None,  # type: ignore[arg-type]
    )
    try:
        yield client
    finally:
        await channel.close()
        await host.stop(grace=0.5)


async def test_undecodable_bytes_are_invalid_argument_and_logged_once_a_minute(
    served: HostClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    raw = served.channel.unary_unary(
        "/scala40.v1.LobbyService/CreateTable",
        request_serializer=lambda b: b,
        response_deserializer=lambda b: b,
    )
    for _ in range(30):
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await raw(b"\xff\xff\xff\xff garbage")
        assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        info = error_info(error.value)
        assert info is not None and info.reason == "MALFORMED_REQUEST"
    lines = [r for r in caplog.records if "undecodable" in r.getMessage()]
    assert len(lines) == 1
    assert not any(r.exc_info for r in caplog.records), "a traceback was logged"
    listed = await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
    assert not listed.tables


async def test_requests_per_second_from_one_address_are_bounded_and_seats_go_on(
    tmp_path: Path,
) -> None:
    # One a second, in bursts of two: a token comes back only a whole second after the burst,
    # however slowly a busy machine makes each call.
    async with host_with(tmp_path, Limits(requests_per_second=1, slow_down_seconds=0)) as served:
        # Another connection from the same address is the same address: it waits too (that
        # another address is served: tests/test_host_edge.py). It is connected first, so that
        # no handshake stands between the burst and its call.
        other = await host_channel(served.host)
        async with other:
            await other.channel_ready()
            answers = []
            for _ in range(20):
                try:
                    await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
                    answers.append("ok")
                except grpc.aio.AioRpcError as error:
                    answers.append(error_info(error).reason)  # type: ignore[union-attr]
            assert "ok" in answers and "TOO_MANY_REQUESTS" in answers
            _, reason, _ = await refused(
                lobby_pb2_grpc.LobbyServiceStub(other).ListTables(lobby_pb2.ListTablesRequest())
            )
            assert reason == "TOO_MANY_REQUESTS"


async def test_new_tables_per_address_per_minute_are_bounded(served: HostClient) -> None:
    for _ in range(limits.TABLES_PER_MINUTE):
        await served.new_table(seats=2)
    code, reason, sentence = await refused(served.new_table(seats=2))
    assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_NEW_TABLES")
    assert "a minute" in sentence


async def test_guessing_tokens_is_throttled_per_address(tmp_path: Path) -> None:
    async with host_with(tmp_path, Limits()) as served:
        table_id = await served.new_table(seats=2)
        real = (await served.join(table_id, "ann")).seat_token
        for n in range(limits.WRONG_GUESSES_PER_MINUTE):
            code, _, _ = await refused(
                served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(f"guess{n}"))
            )
            assert code == grpc.StatusCode.UNAUTHENTICATED
        code, reason, _ = await refused(
            served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer("one more"))
        )
        assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_WRONG_GUESSES")
        # The right token is served still: the lockout stops guesses, not the players.
        await served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(real))


async def test_a_table_password_is_kept_as_scrypt_and_guessing_it_is_throttled(
    tmp_path: Path,
) -> None:
    async with host_with(tmp_path, Limits()) as served:
        table_id = await served.new_table(seats=6, password="segreto")
        path = tmp_path / "host" / TABLES_FOLDER / f"{table_id}{SUFFIX}"
        with contextlib.closing(sqlite3.connect(path)) as db:
            (config,) = db.execute("SELECT config FROM table_config").fetchone()
        stored = lobby_pb2.CreateTableRequest.FromString(config).password
        assert stored.startswith("scrypt$") and "segreto" not in stored
        await served.join(table_id, "ann", password="segreto")
        for n in range(limits.WRONG_GUESSES_PER_MINUTE):
            _, reason, _ = await refused(served.join(table_id, f"p{n}", password=f"x{n}"))
            assert reason == "BAD_PASSWORD"
        _, reason, _ = await refused(served.join(table_id, "late", password="segreto"))
        assert reason == "TOO_MANY_WRONG_GUESSES"


async def test_streams_per_connection_are_bounded(served: HostClient) -> None:
    table_id = await served.new_table(seats=2)
    token = (await served.join(table_id, "ann")).seat_token
    streams = []
    for _ in range(limits.STREAMS_PER_CONNECTION):
        stream = served.table.SubscribeEvents(
            table_pb2.SubscribeEventsRequest(), metadata=bearer(token)
        )
        await stream.read()  # the snapshot: the stream is open
        streams.append(stream)
    one_more = served.table.SubscribeEvents(
        table_pb2.SubscribeEventsRequest(), metadata=bearer(token)
    )
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await one_more.read()
    assert error.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    for stream in streams:
        stream.cancel()
    # Closed ones no longer count, once the host has heard of the cancels (a loaded
    # machine may take a moment: asked again until it has, for ten seconds at most).
    deadline = asyncio.get_running_loop().time() + 10
    while True:
        again = served.table.SubscribeEvents(
            table_pb2.SubscribeEventsRequest(), metadata=bearer(token)
        )
        try:
            first = await again.read()
            break
        except grpc.aio.AioRpcError as refusal:
            assert refusal.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert asyncio.get_running_loop().time() < deadline, "the closed streams still count"
            await asyncio.sleep(0.05)
    assert first.event.HasField("snapshot")
    again.cancel()


async def test_chat_lines_per_seat_per_minute_and_spectators_per_table(
    served: HostClient,
) -> None:
    table_id = await served.new_table(seats=2)
    token = (await served.join(table_id, "ann")).seat_token
    for n in range(limits.CHAT_LINES_PER_MINUTE):
        await served.table.SendChat(table_pb2.SendChatRequest(text=f"{n}"), metadata=bearer(token))
    code, reason, _ = await refused(
        served.table.SendChat(table_pb2.SendChatRequest(text="more"), metadata=bearer(token))
    )
    assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MUCH_CHAT")
    for _ in range(limits.SPECTATORS_PER_TABLE):
        await served.lobby.SpectateTable(lobby_pb2.SpectateTableRequest(table_id=table_id))
    code, reason, _ = await refused(
        served.lobby.SpectateTable(lobby_pb2.SpectateTableRequest(table_id=table_id))
    )
    assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_SPECTATORS")


async def test_leaving_ends_the_seats_open_streams_at_once(served: HostClient) -> None:
    table_id = await served.new_table(seats=2)
    ann = await served.join(table_id, "ann")
    await served.join(table_id, "bea")
    stream = served.table.SubscribeEvents(
        table_pb2.SubscribeEventsRequest(), metadata=bearer(ann.seat_token)
    )
    await stream.read()
    await served.lobby.LeaveTable(
        lobby_pb2.LeaveTableRequest(table_id=table_id), metadata=bearer(ann.seat_token)
    )
    async with asyncio.timeout(5):
        while (await stream.read()) is not grpc.aio.EOF:
            pass  # the leave's own event may come first; then the stream ends


@pytest.mark.parametrize(
    "name",
    ["ann\x00", "\x1b[31mred", "abc\u202edcba", "Bot 3", "bot", "a" * 25, "   "],
)
async def test_a_name_others_cannot_read_safely_is_refused(served: HostClient, name: str) -> None:
    table_id = await served.new_table(seats=2)
    code, reason, _ = await refused(served.join(table_id, name))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")


async def test_names_are_trimmed_and_unique_at_a_table(served: HostClient) -> None:
    table_id = await served.new_table(seats=3)
    await served.join(table_id, "  Anna   Rossi ")
    code, reason, _ = await refused(served.join(table_id, "anna rossi"))
    assert (code, reason) == (grpc.StatusCode.ALREADY_EXISTS, "NAME_TAKEN")
    listed = await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
    assert listed.tables[0].seats[0].name == "Anna Rossi"


async def test_the_first_player_frees_a_squatted_seat_before_the_start(served: HostClient) -> None:
    table_id = await served.new_table(seats=2)
    ann = await served.join(table_id, "ann")
    squatter = await served.join(table_id, "squatter")
    free = table_pb2.DecideAbsenceRequest(
        seat=squatter.seat, choice=table_pb2.ABSENCE_CHOICE_FREE_SEAT
    )
    code, reason, _ = await refused(
        served.table.DecideAbsence(free, metadata=bearer(squatter.seat_token))
    )
    assert reason == "NOT_THE_DECIDER"
    await served.table.DecideAbsence(free, metadata=bearer(ann.seat_token))
    code, _, _ = await refused(
        served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(squatter.seat_token))
    )
    assert code == grpc.StatusCode.UNAUTHENTICATED
    await served.join(table_id, "bea")  # the seat is free again


async def test_stream_churn_journals_one_connection_event_per_burst(tmp_path: Path) -> None:
    served = await start_host(tmp_path / "host")
    try:
        table_id = await served.new_table(seats=2)
        token = (await served.join(table_id, "ann")).seat_token
        for _ in range(30):
            stream = served.table.SubscribeEvents(
                table_pb2.SubscribeEventsRequest(), metadata=bearer(token)
            )
            await stream.read()
            stream.cancel()
        await asyncio.sleep(1.5)
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    path = tmp_path / "host" / TABLES_FOLDER / f"{table_id}{SUFFIX}"
    with contextlib.closing(sqlite3.connect(path)) as db:
        (count,) = db.execute("SELECT COUNT(*) FROM entries WHERE kind = 'connection'").fetchone()
    assert count <= 3, f"{count} connection entries for 30 streams"


async def test_a_data_dir_with_loose_permissions_is_tightened(tmp_path: Path) -> None:
    data_dir = tmp_path / "host"
    data_dir.mkdir(mode=0o755)
    data_dir.chmod(0o755)
    served = await start_host(data_dir)
    try:
        assert data_dir.stat().st_mode & 0o777 == 0o700
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
