"""Floods of connections from one address: they are cut to its share, and the others play."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from pathlib import Path

import grpc
import pytest
from conftest import bot_seat, host_channel, until
from hostproc import HostProcess, free_port
from other_address import OtherAddress
from test_host_limits import host_with

from host.edge import connections, limits
from host.edge.errors import error_info
from host.edge.limits import (
    Callers,
    Limits,
    connection_cap,
    connections_per_address,
    peer_of,
)
from host.edge.lobby import MAX_TABLES
from scala40_net import wire
from scala40_net.net import tls
from scala40_net.pb import lobby_pb2, lobby_pb2_grpc, ruleset_pb2

pytestmark = pytest.mark.skipif(not connections.available(), reason="Linux's /proc is needed")

FLOODER = "127.0.0.2"  # one address on loopback; the players come from 127.0.0.1


def _inode(sock: socket.socket) -> int:
    return os.fstat(sock.fileno()).st_ino


def _connect_from(source: str, port: int, timeout: float = 2.0) -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(timeout)
    sock.connect(("127.0.0.1", port))
    return sock


def test_the_kernels_table_names_each_connections_client_address() -> None:
    with contextlib.ExitStack() as held:
        for family, listen in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::")):
            listener = held.enter_context(socket.socket(family))
            listener.bind((listen, 0))  # "::": IPv4 clients of a dual-stack socket too
            listener.listen()
            port = listener.getsockname()[1]
            clients = [held.enter_context(_connect_from(f"127.0.0.{n}", port)) for n in (2, 3)]
            accepted = [held.enter_context(listener.accept()[0]) for _ in clients]
            expected = [(family, "", 0, _inode(listener))] + [
                (
                    family,
                    sock.getpeername()[0].removeprefix("::ffff:"),
                    sock.getpeername()[1],
                    _inode(sock),
                )
                for sock in accepted
            ]
            assert sorted(connections.sockets_on(port)) == sorted(expected)
            assert sorted(connections.sockets_on(port, [family])) == sorted(expected)
        assert connections.tcp_sockets_in_use() >= 6


def test_the_listeners_filter_drops_only_the_addresses_at_their_cap() -> None:
    with contextlib.ExitStack() as held:
        listener = held.enter_context(socket.socket(socket.AF_INET6))
        listener.bind(("::", 0))
        listener.listen()
        port = listener.getsockname()[1]
        before = held.enter_context(_connect_from(FLOODER, port))
        made_before = held.enter_context(listener.accept()[0])
        program = connections.dropping([FLOODER, "::1", "10.0.0.1"])
        assert connections.filter_listeners({_inode(listener)}, program) == 1
        with pytest.raises(TimeoutError):  # its SYNs go unanswered
            held.enter_context(_connect_from(FLOODER, port, timeout=1.0))
        six = held.enter_context(socket.socket(socket.AF_INET6))
        six.settimeout(1.0)
        with pytest.raises(TimeoutError):
            six.connect(("::1", port))
        held.enter_context(_connect_from("127.0.0.3", port))  # another address is taken
        before.sendall(b"still here")  # a connection made before goes on
        assert made_before.recv(10) == b"still here"
        connections.filter_listeners({_inode(listener)}, None)
        held.enter_context(_connect_from(FLOODER, port))  # below its cap again: taken


def test_one_addresss_share_is_a_quarter_of_the_cap_at_most() -> None:
    assert connections_per_address(connection_cap(8192, MAX_TABLES)) == 32
    assert connections_per_address(16) == 4
    assert connections_per_address(connection_cap(256, MAX_TABLES)) == 4


def test_at_its_cap_an_addresss_first_callers_stay_whatever_their_inodes() -> None:
    # Four connections first seen by the same look; the kernel numbered their sockets from
    # two CPUs' batches, so the inodes say nothing of which came first. The two that called
    # stay, the first caller first; of the silent ones, the one an earlier look saw stays.
    by_address = {"127.0.0.1": [9001, 9002, 5001, 5002]}
    seen = {9001: 3, 9002: 3, 5001: 3, 5002: 3}
    called = {9002: 0, 5002: 1}
    assert connections.past_the_cap(by_address, 2, seen, called) == {"127.0.0.1": [5001, 9001]}
    assert connections.past_the_cap(by_address, 3, {**seen, 9001: 2}, called) == {
        "127.0.0.1": [5001]
    }


def test_the_callers_are_ranked_by_their_first_call_and_forgotten_once_closed() -> None:
    callers = Callers(bound=3)
    for peer in ("ipv4:127.0.0.1:4000", "ipv6:[::1]:4001", "ipv4:127.0.0.1:4000"):
        callers.called(peer)
    callers.called("ipv6:[::ffff:127.0.0.2]:4002")  # an IPv4 client of a dual-stack socket
    callers.called("unix:/tmp/socket")  # no address: never ranked
    assert callers.ranks([("127.0.0.1", 4000), ("::1", 4001), ("127.0.0.2", 4002)]) == {
        ("::1", 4001): 1,
        ("127.0.0.2", 4002): 2,
    }  # the bound forgot the oldest, then the closed and the unranked went
    assert callers.ranks([("::1", 4001)]) == {("::1", 4001): 1}
    assert callers.ranks([]) == {}
    assert peer_of("ipv4:10.0.0.1:notaport") is None and peer_of("ipv4:nohost:1") is None


async def _one(port: int, timeout: float, hello: bool = True) -> socket.socket | None:
    """A connection from the flooding address, idle or having sent the start of a TLS hello
    (``hello``) never finished; None when the host did not take it (dropped or refused)."""
    sock = socket.socket()
    sock.setblocking(False)
    sock.bind((FLOODER, 0))
    try:
        await asyncio.wait_for(
            asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port)), timeout
        )
        if hello:
            sock.send(b"\x16\x03\x01")
    except (TimeoutError, OSError):
        sock.close()
        return None
    return sock


async def _flood(port: int, count: int, timeout: float = 0.5) -> list[socket.socket]:
    """``count`` connections from the flooding address, tried 100 at a time, every other one
    idle and the others half a TLS hello; those taken."""
    opened: list[socket.socket] = []
    for first in range(0, count, 100):
        tried = await asyncio.gather(
            *(_one(port, timeout, hello=n % 2 == 0) for n in range(min(100, count - first)))
        )
        opened += [sock for sock in tried if sock is not None]
    return opened


def _still_open(sock: socket.socket) -> bool:
    """Whether the host has not closed this connection (it never answers a half hello)."""
    sock.setblocking(False)
    try:
        return sock.recv(1) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


async def test_an_address_past_its_share_has_its_newest_connections_closed(
    tmp_path: Path,
) -> None:
    chosen = Limits(max_connections_per_address=4, handshake_seconds=60, idle_seconds=600)
    async with host_with(tmp_path, chosen) as served:
        await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
        # Three connections the host has seen in a look before the flood: its oldest. (Of
        # connections first seen in the same look, which stay is the kernel's order.)
        oldest = await _flood(served.host.port, 3)
        await asyncio.sleep(3 * chosen.connection_sweep_seconds)
        flood = oldest + await _flood(served.host.port, 17)
        try:
            await until(
                lambda: sum(map(_still_open, flood)) <= 4,
                explain=lambda: f"{sum(map(_still_open, flood))} flood connections left",
            )
            await asyncio.sleep(4 * chosen.connection_alert_seconds)
            assert sum(map(_still_open, flood)) == 4
            assert all(map(_still_open, oldest)), "its oldest stay"
            # While it holds its share, a new one from it is not even accepted; the players'
            # address is served, on the connection it had and on a new one.
            assert not await _flood(served.host.port, 1)
            await served.new_table(seats=2)
            again = await host_channel(served.host)
            async with again:
                await lobby_pb2_grpc.LobbyServiceStub(again).ListTables(
                    lobby_pb2.ListTablesRequest()
                )
        finally:
            for sock in flood:
                sock.close()

        # Gone below its share: the address is taken again.
        async def taken() -> bool:
            return bool(await _flood(served.host.port, 1))

        for _ in range(40):
            if await taken():
                break
            await asyncio.sleep(0.25)
        else:
            raise AssertionError("the address was still refused once its connections closed")


# A host whose descriptors let it take 344 connections (2,100 open files, less the journals'
# 1,756 and a spare): a flood of 400 from one address reaches the cap at once.
OPEN_FILES = 2100
FLOOD = 400


async def test_a_flood_at_the_hosts_limit_leaves_the_others_connecting_and_playing(
    tmp_path: Path,
) -> None:
    assert connection_cap(OPEN_FILES, MAX_TABLES) < FLOOD
    host = HostProcess(
        tmp_path / "host",
        free_port(),
        "--bot-delay",
        "0",
        "--between-deals",
        "0",
        open_files=OPEN_FILES,
    )
    await host.start()
    flood: list[socket.socket] = []
    stop = asyncio.Event()
    rounds = [0]  # the flood's top-ups so far

    async def keep_flooding() -> None:
        """Top the flood up to its size every half second, as a flooder holding them would,
        until the match beside it is over (bounded: 600 rounds, past the match's bound on a
        busy machine)."""
        for _ in range(600):
            for sock in [sock for sock in flood if not _still_open(sock)]:
                sock.close()
                flood.remove(sock)
            flood.extend(await _flood(host.port, FLOOD - len(flood)))
            rounds[0] += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=0.5)
                return

    flooding = asyncio.create_task(keep_flooding())
    codes: list[grpc.StatusCode] = []
    try:
        # The flood has reached the cap, then been cut and topped up again.
        await until(lambda: rounds[0] >= 3, 60)
        channel, _ = await tls.pinned_channel(
            "127.0.0.1", host.port, host.fingerprint, wire.CHANNEL_OPTIONS
        )
        async with channel:
            lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
            try:
                # A 2-seat match over after its first deal (R11.1: bust_at 1), a bot opposite.
                created = await lobby.CreateTable(
                    lobby_pb2.CreateTableRequest(
                        name="beside a flood",
                        seats=2,
                        ruleset=ruleset_pb2.Ruleset(options=ruleset_pb2.RulesetOptions(bust_at=1)),
                    ),
                    timeout=10,
                )
                joined = await lobby.JoinTable(
                    lobby_pb2.JoinTableRequest(table_id=created.table_id, player_name="ann"),
                    timeout=10,
                )
                player = bot_seat(channel, created.table_id, joined)
                await lobby.AddBot(
                    lobby_pb2.AddBotRequest(table_id=created.table_id),
                    metadata=player.metadata,
                    timeout=10,
                )
                playing = asyncio.create_task(player.play_match())
                await until(lambda: bool(player.log and player.log.events))
                await lobby.StartMatch(
                    lobby_pb2.StartMatchRequest(table_id=created.table_id),
                    metadata=player.metadata,
                    timeout=10,
                )
                await asyncio.wait_for(playing, timeout=120)
            except grpc.aio.AioRpcError as error:
                codes.append(error.code())
                info = error_info(error)
                raise AssertionError(
                    f"{error.code()} {info.reason if info else ''}: {error.details()}"
                ) from None
        assert player.winners is not None, "the match did not end"
        assert not flooding.done(), "the flood stopped before the match was played"
        assert len(flood) < FLOOD, "the flood was never cut"
    finally:
        stop.set()
        await flooding
        for sock in flood:
            sock.close()
        await host.stop()
    assert grpc.StatusCode.UNKNOWN not in codes
    log = host.log.read_text()
    assert "Traceback" not in log
    assert f"{FLOODER} holds" in log


async def test_a_call_refused_for_its_rate_is_answered_after_a_pause_and_others_meanwhile(
    tmp_path: Path,
) -> None:
    # A pause far longer than the test looks: the refused calls are still waiting at its end.
    chosen = Limits(requests_per_second=2, slow_down_seconds=60)
    async with host_with(tmp_path, chosen) as served, OtherAddress(served.host.port) as other:
        flooder = await other.channel(served.host)
        async with flooder:
            stub = lobby_pb2_grpc.LobbyServiceStub(flooder)
            for _ in range(4):  # the burst: twice the rate
                await stub.ListTables(lobby_pb2.ListTablesRequest())
            waiting = [
                asyncio.ensure_future(stub.ListTables(lobby_pb2.ListTablesRequest()))
                for _ in range(3)
            ]
            done, _ = await asyncio.wait(waiting, timeout=2)
            assert not done, "a call past the rate was answered at once"
            # Meanwhile another address is served at once.
            await served.lobby.ListTables(lobby_pb2.ListTablesRequest(), timeout=10)
            # Past the calls one address may have waiting, it is answered at once.
            more = [
                asyncio.ensure_future(stub.ListTables(lobby_pb2.ListTablesRequest()))
                for _ in range(limits.SLOWED_PER_ADDRESS + 10)
            ]
            done, pending = await asyncio.wait(more, timeout=5)
            still = len(pending) + sum(not call.done() for call in waiting)
            assert still == limits.SLOWED_PER_ADDRESS, f"{still} calls waiting"
            refused = [
                error_info(call.exception())  # type: ignore[arg-type]
                for call in done
                if call.exception() is not None
            ]
            assert refused and all(
                info is not None and info.reason == "TOO_MANY_REQUESTS" for info in refused
            )
            for call in [*waiting, *more]:
                call.cancel()
