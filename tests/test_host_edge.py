"""The edge a caller meets first, over real gRPC with TLS on 127.0.0.1: the standard services
(health, reflection) answered and limited like the host's own, guesses counted before they
are checked, archived tables' tokens, a table whose journal cannot be made, connection floods."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import resource
from pathlib import Path

import grpc
import pytest
from conftest import HostClient, bearer, bot_seat, host_channel, until
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from other_address import OtherAddress
from test_host_durability import can_mount, fill, small_tmpfs
from test_host_limits import host_with

from host.edge import limits
from host.edge.errors import error_info
from host.edge.limits import Limits, connection_cap
from host.journal.sqlite import SUFFIX, TABLES_FOLDER
from host.table.state import TableSettings
from scala40_net.pb import lobby_pb2, lobby_pb2_grpc, ruleset_pb2, table_pb2, table_pb2_grpc

REFLECTION = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"


def _reason(error: grpc.aio.AioRpcError) -> str:
    info = error_info(error)
    return info.reason if info else ""


# --- Health and reflection ----------------------------------------------------------------


async def test_health_watch_answers_serving(served: HostClient) -> None:
    health = health_pb2_grpc.HealthStub(served.channel)
    for service in ("", "scala40.v1.LobbyService"):
        watch = health.Watch(health_pb2.HealthCheckRequest(service=service))
        first = await asyncio.wait_for(watch.read(), timeout=30)
        assert first.status == health_pb2.HealthCheckResponse.SERVING
        watch.cancel()
    checked = await health.Check(health_pb2.HealthCheckRequest(service=""))
    assert checked.status == health_pb2.HealthCheckResponse.SERVING


async def test_reflection_lists_the_services(served: HostClient) -> None:
    stub = reflection_pb2_grpc.ServerReflectionStub(served.channel)
    call = stub.ServerReflectionInfo()
    await call.write(reflection_pb2.ServerReflectionRequest(list_services=""))
    answer = await asyncio.wait_for(call.read(), timeout=30)
    names = {s.name for s in answer.list_services_response.service}
    assert "scala40.v1.TableService" in names and "grpc.health.v1.Health" in names
    await call.done_writing()


async def test_undecodable_reflection_requests_are_invalid_argument_logged_once_a_minute(
    served: HostClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    raw = served.channel.stream_stream(
        REFLECTION, request_serializer=lambda b: b, response_deserializer=lambda b: b
    )
    for _ in range(10):
        call = raw()
        await call.write(b"\xff\xff\xff\xff garbage")
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await asyncio.wait_for(call.read(), timeout=30)
        assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert _reason(error.value) == "MALFORMED_REQUEST"
    lines = [r for r in caplog.records if "undecodable" in r.getMessage()]
    assert len(lines) == 1
    assert not any(r.exc_info for r in caplog.records), "a traceback was logged"


async def test_undecodable_health_requests_are_invalid_argument(served: HostClient) -> None:
    for method, stream in (("Check", False), ("Watch", True)):
        path = f"/grpc.health.v1.Health/{method}"
        with pytest.raises(grpc.aio.AioRpcError) as error:
            if stream:
                call = served.channel.unary_stream(path, lambda b: b, lambda b: b)(b"\xff\xff\xff")
                await asyncio.wait_for(call.read(), timeout=30)
            else:
                await served.channel.unary_unary(path, lambda b: b, lambda b: b)(b"\xff\xff\xff")
        assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT, method
        assert _reason(error.value) == "MALFORMED_REQUEST"


async def test_reflection_and_health_are_limited_like_the_rest(tmp_path: Path) -> None:
    async with host_with(tmp_path, Limits(requests_per_second=5, slow_down_seconds=0)) as served:
        stub = reflection_pb2_grpc.ServerReflectionStub(served.channel)
        call = stub.ServerReflectionInfo()
        answered = 0
        with pytest.raises(grpc.aio.AioRpcError) as error:
            for _ in range(40):  # many requests on one stream: each one counts
                await call.write(reflection_pb2.ServerReflectionRequest(list_services=""))
                await asyncio.wait_for(call.read(), timeout=30)
                answered += 1
        assert error.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert _reason(error.value) == "TOO_MANY_REQUESTS"
        assert 1 <= answered < 40
        health = health_pb2_grpc.HealthStub(served.channel)
        with pytest.raises(grpc.aio.AioRpcError) as error:
            for _ in range(40):
                await health.Check(health_pb2.HealthCheckRequest(service=""))
        assert _reason(error.value) == "TOO_MANY_REQUESTS"


async def test_a_method_a_standard_service_does_not_serve_is_unimplemented(
    served: HostClient, caplog: pytest.LogCaptureFixture
) -> None:
    raw = served.channel.unary_unary("/grpc.health.v1.Health/List", lambda b: b, lambda b: b)
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await raw(b"")
    assert error.value.code() == grpc.StatusCode.UNIMPLEMENTED
    assert _reason(error.value) == "NOT_SERVED"
    assert not any(r.exc_info for r in caplog.records), "a traceback was logged"


# --- Guesses: counted before they are checked; a valid token goes through ------------------


async def test_concurrent_wrong_passwords_are_counted_before_the_scrypt(tmp_path: Path) -> None:
    async with host_with(tmp_path, Limits()) as served:
        table_id = await served.new_table(seats=6, password="segreto")
        channels = [await host_channel(served.host) for _ in range(20)]
        try:
            for channel in channels:  # connected first: the guesses race, not the handshakes
                await asyncio.wait_for(channel.channel_ready(), timeout=60)
            lobbies = [lobby_pb2_grpc.LobbyServiceStub(c) for c in channels]
            guesses = [
                lobbies[n % 20].SpectateTable(
                    lobby_pb2.SpectateTableRequest(table_id=table_id, password=f"x{n}")
                )
                for n in range(300)
            ]
            answers = await asyncio.gather(*guesses, return_exceptions=True)
        finally:
            for channel in channels:
                await channel.close()
        refusals = [a for a in answers if isinstance(a, grpc.aio.AioRpcError)]
        reasons = [_reason(a) for a in refusals]
        assert len(reasons) == 300
        assert "" not in reasons, {(a.code(), a.details()) for a in refusals if not _reason(a)}
        # Only the guesses the minute allows were checked at all; the rest were refused unread.
        assert reasons.count("BAD_PASSWORD") == limits.WRONG_GUESSES_PER_MINUTE
        assert reasons.count("TOO_MANY_WRONG_GUESSES") == 300 - limits.WRONG_GUESSES_PER_MINUTE


async def test_right_passwords_do_not_count_toward_the_lockout(tmp_path: Path) -> None:
    async with host_with(tmp_path, Limits()) as served:
        table_id = await served.new_table(seats=6, password="segreto")
        right = lobby_pb2.SpectateTableRequest(table_id=table_id, password="segreto")
        for _ in range(limits.SPECTATORS_PER_TABLE):
            await served.lobby.SpectateTable(right)
        for n in range(limits.WRONG_GUESSES_PER_MINUTE):
            with pytest.raises(grpc.aio.AioRpcError) as error:
                await served.join(table_id, f"p{n}", password=f"x{n}")
            assert _reason(error.value) == "BAD_PASSWORD"
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await served.join(table_id, "late", password="x")
        assert _reason(error.value) == "TOO_MANY_WRONG_GUESSES"


async def test_the_lockout_lets_a_valid_token_through(tmp_path: Path) -> None:
    async with host_with(tmp_path, Limits()) as served:
        table_id = await served.new_table(seats=2)
        real = (await served.join(table_id, "ann")).seat_token
        for n in range(limits.WRONG_GUESSES_PER_MINUTE + 5):
            with pytest.raises(grpc.aio.AioRpcError) as error:
                await served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(f"g{n}"))
            expected = (
                "BAD_TOKEN" if n < limits.WRONG_GUESSES_PER_MINUTE else "TOO_MANY_WRONG_GUESSES"
            )
            assert _reason(error.value) == expected
        seen = await served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(real))
        assert seen.view.table.table_id == table_id


# --- Tables the host no longer runs --------------------------------------------------------


async def test_a_removed_tables_tokens_get_no_such_table_and_count_no_guess(
    tmp_path: Path,
) -> None:
    quick = TableSettings(commit_timeout=10, reveal_timeout=10, idle_removal=0.2)
    async with host_with(tmp_path, Limits(tables_per_minute=100), settings=quick) as served:
        tokens = []
        for n in range(limits.WRONG_GUESSES_PER_MINUTE + 5):
            table_id = await served.new_table(seats=2)
            tokens.append((await served.join(table_id, f"p{n}")).seat_token)
        await until(lambda: not served.host.registry.tables, seconds=60)
        for token in tokens:
            for call in (
                served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer(token)),
                served.table.SubscribeEvents(
                    table_pb2.SubscribeEventsRequest(), metadata=bearer(token)
                ).read(),
            ):
                with pytest.raises(grpc.aio.AioRpcError) as error:
                    await call
                assert error.value.code() == grpc.StatusCode.NOT_FOUND
                assert _reason(error.value) == "NO_SUCH_TABLE"
        # None of them was a guess: a wrong token is still answered as one, not locked out.
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await served.table.GetView(table_pb2.GetViewRequest(), metadata=bearer("guess"))
        assert _reason(error.value) == "BAD_TOKEN"


async def test_an_archived_matchs_tokens_get_no_such_table(tmp_path: Path) -> None:
    quick = TableSettings(commit_timeout=10, reveal_timeout=10, archive_after=0.3)
    async with host_with(tmp_path, Limits(), settings=quick) as served:
        # A 2-seat match over after its first deal (R11.1: bust_at 1), a bot at each seat.
        ruleset = ruleset_pb2.Ruleset(options=ruleset_pb2.RulesetOptions(bust_at=1))
        table_id = await served.new_table(seats=2, ruleset=ruleset)
        joined = await served.join(table_id, "ann")
        player = bot_seat(served.channel, table_id, joined)
        await served.lobby.AddBot(
            lobby_pb2.AddBotRequest(table_id=table_id), metadata=player.metadata
        )
        playing = asyncio.create_task(player.play_match())
        await until(lambda: bool(player.log.events))
        await served.lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=table_id), metadata=player.metadata
        )
        await asyncio.wait_for(playing, timeout=60)
        await until(lambda: table_id not in served.host.registry.tables, seconds=60)
        for _ in range(limits.WRONG_GUESSES_PER_MINUTE + 1):
            with pytest.raises(grpc.aio.AioRpcError) as error:
                await served.table.GetDealRecord(
                    table_pb2.GetDealRecordRequest(deal_no=1), metadata=player.metadata
                )
            assert error.value.code() == grpc.StatusCode.NOT_FOUND
            assert _reason(error.value) == "NO_SUCH_TABLE"
    # After a restart too: the archive keeps the tokens' digests.
    async with host_with(tmp_path, Limits(), settings=quick) as served:
        for _ in range(limits.WRONG_GUESSES_PER_MINUTE + 1):
            with pytest.raises(grpc.aio.AioRpcError) as error:
                await served.table.GetView(table_pb2.GetViewRequest(), metadata=player.metadata)
            assert (error.value.code(), _reason(error.value)) == (
                grpc.StatusCode.NOT_FOUND,
                "NO_SUCH_TABLE",
            )


# --- A table whose journal cannot be made ---------------------------------------------------


def _no_traceback_nor_path(error: grpc.aio.AioRpcError, data_dir: Path) -> None:
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    assert _reason(error) == "NOT_SAVED"
    said = error.details() or ""
    assert said and "Traceback" not in said
    assert str(data_dir) not in said and "/tables/" not in said and ".sqlite3" not in said


async def test_create_table_on_a_full_disk_is_not_saved_with_a_sentence(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    if not can_mount():
        pytest.skip("needs root to mount a tmpfs")
    with small_tmpfs(tmp_path / "small", "6m") as small:
        async with host_with(small, Limits()) as served:
            await served.new_table(seats=2)
            ballast = fill(small)
            for _ in range(3):
                with pytest.raises(grpc.aio.AioRpcError) as error:
                    await served.new_table(seats=2)
                _no_traceback_nor_path(error.value, small)
                assert "disk full" in (error.value.details() or "")
            assert not any(r.exc_info for r in caplog.records), "a traceback was logged"
            assert len((await served.lobby.ListTables(lobby_pb2.ListTablesRequest())).tables) == 1
            assert len(list((small / "host" / TABLES_FOLDER).glob(f"*{SUFFIX}"))) == 1
            ballast.unlink()
            await served.new_table(seats=2)  # space again: tables are made again


async def test_create_table_with_no_descriptor_left_is_not_saved_with_a_sentence(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with host_with(tmp_path, Limits()) as served:
        await served.lobby.ListTables(lobby_pb2.ListTablesRequest())  # connected before
        held: list[int] = []
        try:
            with contextlib.suppress(OSError):  # every descriptor this process may open
                for _ in range(resource.getrlimit(resource.RLIMIT_NOFILE)[0]):
                    held.append(os.open(os.devnull, os.O_RDONLY))
            with pytest.raises(grpc.aio.AioRpcError) as error:
                await served.new_table(seats=2)
        finally:
            for fd in held:
                os.close(fd)
        _no_traceback_nor_path(error.value, tmp_path)
        # Whichever open ran out first says it: the host's own (no descriptor) or SQLite's.
        said = error.value.details() or ""
        assert "no file descriptor left" in said or "unable to open database file" in said
        assert not any(r.exc_info for r in caplog.records), "a traceback was logged"
        assert not list((tmp_path / "host" / TABLES_FOLDER).glob(f"*{SUFFIX}"))
        await served.new_table(seats=2)


# --- Limits per address and per seat, whatever the number of connections ------------------


async def test_requests_from_one_address_are_bounded_over_all_its_connections(
    tmp_path: Path,
) -> None:
    async with host_with(tmp_path, Limits(requests_per_second=5, slow_down_seconds=0)) as served:
        channels = [await host_channel(served.host) for _ in range(16)]
        try:
            answers = []
            for _ in range(6):  # each connection alone stays under the burst of 10
                for channel in channels:
                    try:
                        await lobby_pb2_grpc.LobbyServiceStub(channel).ListTables(
                            lobby_pb2.ListTablesRequest()
                        )
                        answers.append("ok")
                    except grpc.aio.AioRpcError as error:
                        answers.append(_reason(error))
        finally:
            for channel in channels:
                await channel.close()
        assert "ok" in answers and "TOO_MANY_REQUESTS" in answers
        async with OtherAddress(served.host.port) as other:  # another address is served
            elsewhere = await other.channel(served.host)
            async with elsewhere:
                stub = lobby_pb2_grpc.LobbyServiceStub(elsewhere)
                for _ in range(5):
                    await stub.ListTables(lobby_pb2.ListTablesRequest())


async def _open_stream(channel: grpc.aio.Channel, token: str) -> tuple[object, str]:
    stream = table_pb2_grpc.TableServiceStub(channel).SubscribeEvents(
        table_pb2.SubscribeEventsRequest(), metadata=bearer(token)
    )
    try:
        await asyncio.wait_for(stream.read(), timeout=30)
    except grpc.aio.AioRpcError as error:
        return stream, _reason(error)
    return stream, "ok"


async def test_streams_of_one_seat_are_bounded_over_all_its_connections(
    served: HostClient,
) -> None:
    table_id = await served.new_table(seats=2)
    token = (await served.join(table_id, "ann")).seat_token
    other = (await served.join(table_id, "bea")).seat_token
    channels = [await host_channel(served.host) for _ in range(limits.STREAMS_PER_SEAT + 2)]
    try:
        opened = [await _open_stream(c, token) for c in channels]
        said = [reason for _, reason in opened]
        assert said == ["ok"] * limits.STREAMS_PER_SEAT + ["TOO_MANY_STREAMS"] * 2
        # Another seat, from the same address, still opens its own.
        _, reason = await _open_stream(channels[0], other)
        assert reason == "ok"
    finally:
        for channel in channels:
            await channel.close()


async def test_streams_from_one_address_are_bounded_and_another_address_is_served(
    tmp_path: Path,
) -> None:
    chosen = Limits(streams_per_address=6, tables_per_minute=100)
    async with host_with(tmp_path, chosen) as served:
        table_id = await served.new_table(seats=6)
        tokens = [(await served.join(table_id, f"p{n}")).seat_token for n in range(6)]
        channels = [await host_channel(served.host) for _ in range(7)]
        try:
            said = [
                (await _open_stream(c, t))[1]
                for c, t in zip(channels, [*tokens, tokens[0]], strict=True)
            ]
            assert said == ["ok"] * 6 + ["TOO_MANY_STREAMS"]
            async with OtherAddress(served.host.port) as other:
                elsewhere = await other.channel(served.host)
                async with elsewhere:
                    _, reason = await _open_stream(elsewhere, tokens[1])
                    assert reason == "ok"
        finally:
            for channel in channels:
                await channel.close()


# --- Connections: handshakes and idle ones time out, a cap keeps descriptors for journals --


async def _closed_by_host(reader: asyncio.StreamReader, seconds: float = 30.0) -> bool:
    """Whether the host closes this connection within ``seconds`` (it sends nothing first:
    a TLS server speaks after the client's hello)."""
    try:
        return await asyncio.wait_for(reader.read(1), timeout=seconds) == b""
    except TimeoutError:
        return False
    except ConnectionError:
        return True


async def test_a_half_finished_handshake_is_closed_soon(tmp_path: Path) -> None:
    async with host_with(tmp_path, Limits(handshake_seconds=0.5)) as served:
        opened = [await asyncio.open_connection("127.0.0.1", served.host.port) for _ in range(5)]
        try:
            for _, writer in opened:
                writer.write(b"\x16\x03\x01")  # the start of a TLS record, never finished
            closed = await asyncio.gather(*(_closed_by_host(r) for r, _ in opened))
            assert all(closed)
        finally:
            for _, writer in opened:
                writer.close()
        await served.lobby.ListTables(lobby_pb2.ListTablesRequest())


async def test_an_idle_connection_is_closed_and_the_client_comes_back(tmp_path: Path) -> None:
    async with host_with(tmp_path, Limits(idle_seconds=0.5)) as served:
        await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
        seen: list[grpc.ChannelConnectivity] = []

        def idle() -> bool:
            seen.append(served.channel.get_state())
            return seen[-1] == grpc.ChannelConnectivity.IDLE

        await until(idle, seconds=30, explain=lambda: f"the channel stayed {seen[-1]}")
        await served.lobby.ListTables(lobby_pb2.ListTablesRequest())  # reconnected by itself


async def test_past_the_connection_cap_new_ones_are_closed_and_tables_are_still_made(
    tmp_path: Path,
) -> None:
    async with host_with(
        tmp_path, Limits(max_connections=6, max_connections_per_address=0, handshake_seconds=60)
    ) as served:
        await served.lobby.ListTables(lobby_pb2.ListTablesRequest())  # the first connection
        channels = [await host_channel(served.host) for _ in range(5)]
        try:
            for channel in channels:
                await lobby_pb2_grpc.LobbyServiceStub(channel).ListTables(
                    lobby_pb2.ListTablesRequest()
                )
            extra = [
                await asyncio.open_connection("127.0.0.1", served.host.port) for _ in range(20)
            ]
            try:
                closed = await asyncio.gather(*(_closed_by_host(r) for r, _ in extra))
                assert all(closed), f"{closed.count(False)} connections past the cap stayed"
            finally:
                for _, writer in extra:
                    writer.close()
            await served.new_table(seats=2)  # the connections in place are served
        finally:
            for channel in channels:
                await channel.close()

        # Once connections are gone, new ones are taken again (within the test's patience).
        async def connects() -> bool:
            with contextlib.suppress(grpc.aio.AioRpcError, OSError, ConnectionError):
                again = await host_channel(served.host)
                async with again:
                    await lobby_pb2_grpc.LobbyServiceStub(again).ListTables(
                        lobby_pb2.ListTablesRequest(), timeout=5
                    )
                    return True
            return False

        # A bound for a busy machine (the host counts its sockets about once a second).
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60
        while not await connects():
            if loop.time() > deadline:
                raise AssertionError("no connection was taken once the others were gone")
            await asyncio.sleep(0.2)


def test_the_connection_cap_keeps_descriptors_for_every_live_tables_journal() -> None:
    from host.edge.lobby import MAX_TABLES

    cap = connection_cap(8192, MAX_TABLES)
    assert cap + limits.DESCRIPTORS_PER_TABLE * MAX_TABLES + limits.DESCRIPTORS_SPARE == 8192
    assert connection_cap(1024, MAX_TABLES) == 16  # a tiny limit still takes a few
