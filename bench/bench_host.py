"""Host benchmark: from a Play RPC to its event at every subscriber of the table, over loopback.

Run with ``make bench`` or ``.venv/bin/python bench/bench_host.py``. The host
runs in its own process (with a bare gRPC echo server beside it, the yardstick);
this process plays 2-seat tables with bot clients and one spectator stream per
table, and prints p50/p99 of the Play-to-last-subscriber latency with 1 table
and with 100 tables at once, each beside the echo round trip of the same run,
and the plays a second that saturate the machine. Figures are printed, never
asserted. Targets: p50 at most 2x the echo at 1 table; p99 at most 10 ms at
100 tables. The whole run is bounded (about a minute at most).
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from host.edge.limits import Limits  # noqa: E402
from host.edge.server import Host  # noqa: E402
from host.table.bots import SimpleBot  # noqa: E402
from host.table.state import TableSettings  # noqa: E402
from scala40_net import actions, views, wire  # noqa: E402
from scala40_net.pb import (  # noqa: E402
    lobby_pb2,
    lobby_pb2_grpc,
    ruleset_pb2,
    table_pb2,
    table_pb2_grpc,
)
from scala40_net.seat.netbot import NetworkSeat, SeatLog  # noqa: E402

ECHO = "/bench.Echo/Echo"
ECHO_CALLS = 2000
ONE_TABLE_SECONDS = 8.0
MANY_TABLES = 100
MANY_TABLES_SECONDS = 15.0
FLAT_OUT_SECONDS = 8.0
# At 100 tables each player thinks this long before drawing (jittered per seat, so
# tables do not move in step): about one turn per second per table, a brisk human pace.
THINK = 0.8


# --- The server process -------------------------------------------------------------------


async def serve(data_dir: Path) -> None:
    # No pause between deals: the figures are of moves, comparable with earlier runs. Without
    # TLS, like the bare echo server it is compared with: these figures are the host's own
    # (the journal, the table task, the fan-out), not the cipher's.
    settings = TableSettings(commit_timeout=5, reveal_timeout=5, between_deals=0)
    host = Host(
        "127.0.0.1:0",
        data_dir,
        settings,
        insecure=True,
        # One channel carries every table here: a stranger's limit would be the bench's.
        limits=Limits(
            requests_per_second=1e9,
            seat_requests_per_second=1e9,
            tables_per_minute=10**9,
            streams_per_connection=10**9,
            streams_per_address=10**9,
        ),
    )
    await host.start()

    async def echo(request: bytes, context: object) -> bytes:
        return request

    echo_server = grpc.aio.server(options=wire.SERVER_OPTIONS)
    handler = grpc.method_handlers_generic_handler(
        "bench.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(echo)}
    )
    echo_server.add_generic_rpc_handlers((handler,))
    echo_port = echo_server.add_insecure_port("127.0.0.1:0")
    await echo_server.start()
    print(host.port, echo_port, flush=True)
    # Serve until the benchmark closes our stdin.
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await echo_server.stop(0)
    await host.stop(grace=0)


# --- The client process -------------------------------------------------------------------


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def echo_round_trips(port: int) -> list[float]:
    async with grpc.aio.insecure_channel(
        f"127.0.0.1:{port}", options=wire.CHANNEL_OPTIONS
    ) as channel:
        call = channel.unary_unary(ECHO)
        payload = b"x" * 64
        for _ in range(200):  # warm up
            await call(payload)
        samples = []
        for _ in range(ECHO_CALLS):
            start = time.perf_counter()
            await call(payload)
            samples.append((time.perf_counter() - start) * 1000)
        return samples


class StockBot(SimpleBot):
    """Always draws from the stock: the bots' thinking runs in this process, so it is kept short."""

    def choose_draw(self, view: views.DealView) -> actions.DrawSource:
        return actions.DrawSource.STOCK


class TimedTable:
    """2-seat matches played one after another by bot clients, with a spectator; Plays are timed.

    ``seat_stream``: the bots move on their seat's stream (TableService.Seat), as the clients
    do; False: as unary calls beside a SubscribeEvents stream (the simple way).
    """

    def __init__(self, channel: grpc.aio.Channel, think: float, seat_stream: bool = True) -> None:
        self.channel = channel
        self.think = think
        self.seat_stream = seat_stream
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        self.stub = table_pb2_grpc.TableServiceStub(channel)
        self.samples: list[float] = []  # milliseconds

    async def play(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await self.play_match(stop)

    async def play_match(
        self, stop: asyncio.Event, ruleset: ruleset_pb2.Ruleset | None = None
    ) -> None:
        plays: dict[int, float] = {}  # seq of the Played event -> when its Play was sent
        spectator_at: dict[int, float] = {}

        def timed(
            play: Callable[[table_pb2.PlayRequest], Awaitable[table_pb2.PlayResponse]],
        ) -> object:
            async def call(request: table_pb2.PlayRequest) -> table_pb2.PlayResponse:
                start = time.perf_counter()
                response = await play(request)
                plays[response.seq] = start
                return response

            return call

        request = lobby_pb2.CreateTableRequest(name="bench", seats=2, ruleset=ruleset)
        table_id = (await self.lobby.CreateTable(request)).table_id
        seats = []
        for name in ("a", "b"):
            join = lobby_pb2.JoinTableRequest(table_id=table_id, player_name=name)
            joined = await self.lobby.JoinTable(join)
            think = self.think * random.uniform(0.5, 1.5)
            seat = NetworkSeat(self.channel, table_id, StockBot(), log=SeatLog(), think=think)  # type: ignore[arg-type]
            seat.take_seat(joined.seat, joined.seat_token)
            seat.table.seat_stream = self.seat_stream
            seat.table.play = timed(seat.table.play)  # the seat's transport: stream or call
            seats.append(seat)
        watch = await self.lobby.SpectateTable(lobby_pb2.SpectateTableRequest(table_id=table_id))
        stream = self.stub.SubscribeEvents(
            table_pb2.SubscribeEventsRequest(),
            metadata=(("authorization", f"Bearer {watch.spectator_token}"),),
        )

        async def spectate() -> None:
            async for message in stream:
                spectator_at[message.event.seq] = time.perf_counter()

        tasks = [asyncio.create_task(s.play_match()) for s in seats] + [
            asyncio.create_task(spectate())
        ]
        while any(not s.log.events for s in seats) or not spectator_at:
            await asyncio.sleep(0.01)
        start = lobby_pb2.StartMatchRequest(table_id=table_id)
        await self.lobby.StartMatch(start, metadata=seats[0].metadata)
        stopping = asyncio.create_task(stop.wait())
        await asyncio.wait([stopping, *tasks[:2]], return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            task.cancel()
        stopping.cancel()
        await asyncio.gather(*tasks, stopping, return_exceptions=True)
        arrivals: dict[int, list[float]] = {}
        for seat in seats:
            for received_at, data in zip(seat.log.received_at, seat.log.messages, strict=True):
                seq = table_pb2.SubscribeEventsResponse.FromString(data).event.seq
                arrivals.setdefault(seq, []).append(received_at)
        for seq, sent in plays.items():
            seen = arrivals.get(seq, [])
            if len(seen) == len(seats) and seq in spectator_at:
                self.samples.append((max(*seen, spectator_at[seq]) - sent) * 1000)


async def tables_at_once(port: int, count: int, seconds: float, think: float = 0.0) -> list[float]:
    async with grpc.aio.insecure_channel(
        f"127.0.0.1:{port}", options=wire.CHANNEL_OPTIONS
    ) as channel:
        stop = asyncio.Event()
        tables = [TimedTable(channel, think) for _ in range(count)]
        runs = [asyncio.create_task(t.play(stop)) for t in tables]
        await asyncio.sleep(seconds)
        stop.set()
        results = await asyncio.gather(*runs, return_exceptions=True)
        # A table that failed (a limit, a refused call) must show, not leave its figure short.
        for failure in [r for r in results if isinstance(r, BaseException)]:
            raise failure
        return [ms for t in tables for ms in t.samples]


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` so far (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(host_port: int, echo_port: int, host_pid: int) -> None:
    echo = await echo_round_trips(echo_port)
    one = await tables_at_once(host_port, 1, ONE_TABLE_SECONDS)
    many = await tables_at_once(host_port, MANY_TABLES, MANY_TABLES_SECONDS, THINK)
    # CPU time a play costs while both cores are saturated: the load of other work on the
    # machine changes the plays a second much more than it changes these.
    host_cpu, own_cpu = cpu_seconds(host_pid), cpu_seconds(os.getpid())
    flat_out = await tables_at_once(host_port, MANY_TABLES, FLAT_OUT_SECONDS)
    host_cpu, own_cpu = cpu_seconds(host_pid) - host_cpu, cpu_seconds(os.getpid()) - own_cpu
    echo_p50, echo_p99 = percentiles(echo)
    one_p50, one_p99 = percentiles(one)
    many_p50, many_p99 = percentiles(many)
    flat_p50, flat_p99 = percentiles(flat_out)
    print(
        f"bare gRPC unary echo round trip (the baseline): p50 {echo_p50:.3f} ms, "
        f"p99 {echo_p99:.3f} ms ({len(echo)} calls)"
    )
    print(
        f"Play -> event at every subscriber, 1 table: p50 {one_p50:.3f} ms = "
        f"{one_p50 / echo_p50:.1f}x the echo, p99 {one_p99:.3f} ms = {one_p99 / echo_p99:.1f}x "
        f"the echo's ({len(one)} plays; target p50 <= 2x the echo)"
    )
    print(
        f"Play -> event at every subscriber, {MANY_TABLES} tables: p50 {many_p50:.3f} ms = "
        f"{many_p50 / echo_p50:.1f}x the echo, p99 {many_p99:.3f} ms = "
        f"{many_p99 / echo_p99:.1f}x the echo's ({len(many)} plays, players thinking "
        f"~{THINK} s; target p99 <= 10 ms)"
    )
    print(
        f"Play -> event at every subscriber, {MANY_TABLES} tables with no thinking at all: "
        f"p50 {flat_p50:.3f} ms, p99 {flat_p99:.3f} ms ({len(flat_out)} plays; "
        f"{len(flat_out) / FLAT_OUT_SECONDS:.0f} plays/s saturate both cores, bots included; "
        "target >= 2x the figure before this work, see bench/README.md)"
    )
    plays = max(1, len(flat_out))
    print(
        f"CPU time a play costs, 100 tables with no thinking: host process "
        f"{host_cpu / plays * 1000:.2f} ms, this process (the bots and the spectators) "
        f"{own_cpu / plays * 1000:.2f} ms"
    )


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        asyncio.run(serve(Path(sys.argv[2])))
        return 0
    with tempfile.TemporaryDirectory(
        prefix="scala40-bench-", dir=os.environ.get("BENCH_DIR")
    ) as data_dir:
        server = subprocess.Popen(
            [sys.executable, __file__, "--serve", data_dir],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        try:
            assert server.stdout is not None and server.stdin is not None
            host_port, echo_port = map(int, server.stdout.readline().split())
            print(
                f"host benchmark (host in its own process, journal in {data_dir}, "
                f"{os.cpu_count()} cores)"
            )
            asyncio.run(measure(host_port, echo_port, server.pid))
        finally:
            if server.stdin is not None:
                server.stdin.close()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
