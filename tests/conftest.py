"""Fixtures for a real host on 127.0.0.1 (an ephemeral port) and clients talking to it over gRPC,
and what every test gets so that tests can run at the same time (``make test`` runs them on
several workers, pytest-xdist): the rules a test follows for that are in ``tests/README.md``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from hypothesis import HealthCheck, settings

from host.edge.server import Host
from host.table.bots import SimpleBot
from host.table.state import TableSettings
from scala40_net import wire
from scala40_net.bots.base import Bot
from scala40_net.net import tls
from scala40_net.pb import (
    lobby_pb2,
    lobby_pb2_grpc,
    rules_service_pb2_grpc,
    table_pb2_grpc,
)
from scala40_net.seat.link import bearer as bearer  # the tests take it from here
from scala40_net.seat.netbot import DATA_DIR_VARIABLE, NetworkSeat, SeatLog

# On a machine busy with other workers an example may take far longer than usual: a property
# fails on what it finds, never on how long an example took. A test's own @settings still say
# how many examples it wants.
settings.register_profile("scala40", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("scala40")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long tests first, longest first (``pytest.mark.long(seconds)``, about what one takes
    alone): the workers start on them and share out the short ones, instead of one worker
    being left at the end with a test of minutes. The other tests keep their order."""

    def seconds(item: pytest.Item) -> float:
        mark = item.get_closest_marker("long")
        return float(mark.args[0]) if mark is not None and mark.args else 0.0

    items.sort(key=seconds, reverse=True)  # stable: the same order on every worker


@pytest.fixture(autouse=True)
def own_user_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test's own user data and state dirs (what platformdirs gives the client and the
    host, and every process a test starts): nothing is written to, or read from, the
    person's home, nor shared with a test running at the same time. The config and cache
    dirs stay the person's: pip (the first-run test) reads its configuration there."""
    home = tmp_path_factory.mktemp("user")
    for name in ("XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, str(home / name.removeprefix("XDG_").removesuffix("_HOME")))
    monkeypatch.delenv("SCALA40_DATA_DIR", raising=False)


# Every honest seat answers at once, so these deadlines are never waited for; they
# are long enough that a loaded machine does not leave an honest seat out. Tests of
# the deadlines themselves use much shorter ones.
TEST_SETTINGS = TableSettings(commit_timeout=10.0, reveal_timeout=10.0, between_deals=0.0)


@pytest.fixture(autouse=True)
def bot_keys_of_the_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's scala40-bot processes keep their player keys in its own folder."""
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(tmp_path / "scala40-bot-data"))


async def until(
    condition: Callable[[], object], seconds: float = 30.0, explain: Callable[[], str] = str
) -> None:
    """Wait for ``condition``; fail the test, saying ``explain()``, when it does not come true."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        if loop.time() > deadline:
            said = explain()
            raise AssertionError(f"timed out after {seconds} s" + (f": {said}" if said else ""))
        await asyncio.sleep(0.02)


@dataclass
class HostClient:
    """A running host and a channel to it, with the three service stubs."""

    host: Host
    channel: grpc.aio.Channel
    lobby: lobby_pb2_grpc.LobbyServiceStub
    table: table_pb2_grpc.TableServiceStub
    rules: rules_service_pb2_grpc.RulesServiceStub

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.host.port}"

    async def new_table(self, seats: int = 4, **fields: object) -> str:
        request = lobby_pb2.CreateTableRequest(name="test table", seats=seats, **fields)  # type: ignore[arg-type]
        return (await self.lobby.CreateTable(request)).table_id

    async def join(
        self, table_id: str, name: str = "ann", **fields: object
    ) -> lobby_pb2.JoinTableResponse:
        request = lobby_pb2.JoinTableRequest(table_id=table_id, player_name=name, **fields)  # type: ignore[arg-type]
        response: lobby_pb2.JoinTableResponse = await self.lobby.JoinTable(request)
        return response


def bot_seat(
    channel: grpc.aio.Channel,
    table_id: str,
    joined: lobby_pb2.JoinTableResponse,
    bot: Bot | None = None,
    **options: float,
) -> NetworkSeat:
    """A bot client playing a seat already joined, keeping every byte it receives."""
    seat = NetworkSeat(channel, table_id, bot or SimpleBot(), log=SeatLog(), **options)  # type: ignore[arg-type]
    seat.take_seat(joined.seat, joined.seat_token)
    return seat


async def host_channel(host: Host) -> grpc.aio.Channel:
    """A TLS channel to ``host`` on 127.0.0.1, pinned to its fingerprint as an invite would."""
    channel, _ = await tls.pinned_channel(
        "127.0.0.1", host.port, host.identity.fingerprint, wire.CHANNEL_OPTIONS
    )
    return channel


async def start_host(
    data_dir: Path, settings: TableSettings = TEST_SETTINGS, port: int = 0
) -> HostClient:
    """A host on 127.0.0.1 (``port``, or a free one) and a channel to it."""
    host = Host(f"127.0.0.1:{port}", data_dir, settings)
    await host.start()
    channel = await host_channel(host)
    return HostClient(
        host,
        channel,
        lobby_pb2_grpc.LobbyServiceStub(channel),
        table_pb2_grpc.TableServiceStub(channel),
        rules_service_pb2_grpc.RulesServiceStub(channel),
    )


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[HostClient]:
    """A host on 127.0.0.1 with its data in a temporary folder."""
    client = await start_host(tmp_path / "host")
    try:
        yield client
    finally:
        await client.channel.close()
        await client.host.stop(grace=0.5)
