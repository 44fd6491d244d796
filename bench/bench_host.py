"""Host benchmark against the floor: every figure of a play measured on the host and on the floor.

Run with ``make bench`` or ``.venv/bin/python bench/bench_host.py [--network-seats]
[SCENARIO ...]`` (scenarios: one, many, flat, setup; all by default). The host runs in
its own process (with a bare gRPC echo server beside it), and so do two floors
(``bench/floor.py``: only the necessary work of a play, its moves as unary calls
or on a bidirectional stream). Each scenario is played against each of the
three by a client process of its own, so the host's CPU and its client's are
read apart (``/proc/PID/stat``). The host's tables are played by the scripted
seats of ``seat_driver`` (the seat's stream, a draw from the stock and a discard,
as light as the floor's driver); ``--network-seats``: by ``NetworkSeat`` bots, the
clients' own code. Each scenario has two phases: set-up (every table created,
seated and started, to its first play) and play (every play after that, timed
from sending it to the last of its three subscribers receiving its event).
Printed: p50/p99 with 1 table, with 100 tables thinking ~0.8 s, with 100 not
thinking (the plays a second that saturate the machine), the CPU a play
costs, and the CPU of a table's set-up, each host figure beside the floor's
and the ratio. Figures are printed, never asserted (targets: bench/README.md).
A whole run takes about five minutes (a fresh server for each scenario and server).
"""

from __future__ import annotations

import asyncio
import cProfile
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import floor  # noqa: E402
from bench_gc import Collections  # noqa: E402
from seat_driver import Phase, ScriptedTable  # noqa: E402

from host.edge.limits import Limits  # noqa: E402
from host.edge.server import Host  # noqa: E402
from host.table.bots import SimpleBot  # noqa: E402
from host.table.state import TableSettings  # noqa: E402
from scala40_net import actions, collector, views, wire  # noqa: E402
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
ONE_TABLE_SECONDS = 6.0
MANY_TABLES = 100
MANY_TABLES_SECONDS = 12.0
FLAT_OUT_SECONDS = 6.0
SETUP_TABLES = 20  # set up one after another, each to its first play
SETUP_SECONDS = 60.0  # the longest the tables of a scenario may take to set up
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
    # BENCH_HOST_PROFILE=DIR: a cProfile of the host process over the whole scenario, in
    # DIR/<the data dir's name>.prof (``python -m pstats`` reads it).
    profile_dir = os.environ.get("BENCH_HOST_PROFILE")
    profile = cProfile.Profile() if profile_dir else None
    if profile is not None:
        profile.enable()
    # As scala40-host does (``host.edge.server.serve``); every collection's pause is kept, to
    # tell at the end how long the collector held up the host's loop.
    collector.keep_out_of_the_way()
    pauses = Collections()
    gc.callbacks.append(pauses)

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
    if profile is not None and profile_dir:
        profile.disable()
        profile.dump_stats(Path(profile_dir, f"{data_dir.name}.prof"))
    gc.callbacks.remove(pauses)
    print(json.dumps({str(g): ps for g, ps in pauses.pauses.items()}), flush=True)


# --- The client process -------------------------------------------------------------------


def percentiles(samples: list[float]) -> tuple[float, float]:
    if not samples:
        return float("nan"), float("nan")
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
    """Always draws from the stock: the bots' thinking runs in the client, so it is kept short."""

    def choose_draw(self, view: views.DealView) -> actions.DrawSource:
        return actions.DrawSource.STOCK


class TimedTable:
    """2-seat matches played one after another by bot clients, with a spectator; Plays are timed.

    The driver of ``--network-seats``: the clients' own code, heavier than the scripted seats
    of ``seat_driver`` (a view carried from event to event, a bot deciding each move).

    The seats are ``NetworkSeat``s: their moves go through the seat's link and its
    ``TableTransport`` (``GrpcTable``). ``seat_stream``: the bots move on their seat's stream
    (TableService.Seat), as the clients do; False: as unary calls beside a SubscribeEvents
    stream (the simple way).
    """

    def __init__(
        self,
        channel: grpc.aio.Channel,
        think: float,
        phase: Phase | None = None,
        seat_stream: bool = True,
    ) -> None:
        self.channel = channel
        self.think = think
        self.phase = phase or Phase(at=0.0)  # no phase: every play is timed
        self.seat_stream = seat_stream
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        self.stub = table_pb2_grpc.TableServiceStub(channel)
        self.samples: list[float] = []  # milliseconds, plays sent once the phase is ready
        self.setup: list[float] = []  # milliseconds, CreateTable -> first Play accepted
        self.plays = 0  # plays accepted once the phase is ready
        self.matches = 0  # matches begun
        self.first_play = asyncio.Event()

    async def play(self, stop: asyncio.Event, once: bool = False) -> None:
        while not stop.is_set():
            await self.play_match(stop, once=once)
            if once:
                return

    async def play_match(
        self, stop: asyncio.Event, ruleset: ruleset_pb2.Ruleset | None = None, once: bool = False
    ) -> None:
        plays: dict[int, float] = {}  # seq of the Played event -> when its Play was sent
        spectator_at: dict[int, float] = {}
        began = time.perf_counter()
        self.matches += 1
        first = asyncio.Event()

        def timed(
            play: Callable[[table_pb2.PlayRequest], Awaitable[table_pb2.PlayResponse]],
        ) -> object:
            async def call(request: table_pb2.PlayRequest) -> table_pb2.PlayResponse:
                start = time.perf_counter()
                response = await play(request)
                if not first.is_set():
                    first.set()
                    if not self.first_play.is_set():
                        self.setup.append((time.perf_counter() - began) * 1000)
                        self.first_play.set()
                if start >= self.phase.at:
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
        ending = asyncio.create_task(first.wait() if once else stop.wait())
        await asyncio.wait([ending, *tasks[:2]], return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            task.cancel()
        ending.cancel()
        await asyncio.gather(*tasks, ending, return_exceptions=True)
        arrivals: dict[int, list[float]] = {}
        for seat in seats:
            for received_at, data in zip(seat.log.received_at, seat.log.messages, strict=True):
                seq = table_pb2.SubscribeEventsResponse.FromString(data).event.seq
                arrivals.setdefault(seq, []).append(received_at)
        self.plays += len(plays)
        for seq, sent in plays.items():
            seen = arrivals.get(seq, [])
            if len(seen) == len(seats) and seq in spectator_at:
                self.samples.append((max(*seen, spectator_at[seq]) - sent) * 1000)


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` so far (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def loop_thread_seconds(pid: int) -> float:
    """The CPU time of process ``pid``'s main thread (the event loop's) so far: the rest of
    ``cpu_seconds`` is its other threads' (the journal's writers, gRPC's own)."""
    fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Outcome:
    """One scenario's figures for one server (the host or a floor), as the client measured them."""

    samples: list[float]  # ms, Play -> every subscriber, once set up
    plays: int  # plays accepted once set up
    seconds: float  # how long the play phase ran
    setup_ms: list[float]  # wall time of each table, CreateTable -> first play
    setup_server_cpu: float  # seconds, the server's CPU over the set-up phase
    setup_client_cpu: float
    play_server_cpu: float  # seconds, over the play phase
    play_client_cpu: float
    matches: int = 0  # matches begun (the host; more than the tables: new ones in play)
    play_server_loop_cpu: float = 0.0  # seconds, the server's main thread over the play phase


async def scenario(
    kind: str,
    port: int,
    server_pid: int,
    tables: int,
    seconds: float,
    think: float,
    once: bool,
    network_seats: bool = False,
) -> Outcome:
    """``tables`` tables set up at once (``once``: one after another, each only to its first
    play), then played for ``seconds``; CPU of the server and of this process in each phase."""
    async with grpc.aio.insecure_channel(
        f"127.0.0.1:{port}", options=wire.CHANNEL_OPTIONS
    ) as channel:
        phase, stop = Phase(), asyncio.Event()
        server0, own0 = cpu_seconds(server_pid), cpu_seconds(os.getpid())
        if kind == "host":
            driver = TimedTable if network_seats else ScriptedTable
            hosts = [driver(channel, think, phase) for _ in range(tables)]
            if once:
                for table in hosts:
                    await table.play(stop, once=True)
                runs: list[asyncio.Task[None]] = []
            else:
                runs = [asyncio.create_task(t.play(stop)) for t in hosts]

            def set_up() -> int:
                return sum(t.first_play.is_set() for t in hosts)
        else:
            times = floor.FloorTimes()
            transport = kind.removeprefix("floor-")
            if once:
                for _ in range(tables):
                    await floor.floor_table(channel, transport, 0, phase.ready, stop, times, True)
                runs = []
            else:
                runs = [
                    asyncio.create_task(
                        floor.floor_table(channel, transport, think, phase.ready, stop, times)
                    )
                    for _ in range(tables)
                ]

            def set_up() -> int:
                return len(times.setup)

        deadline = time.perf_counter() + SETUP_SECONDS
        while set_up() < tables and time.perf_counter() < deadline:
            failed = [r for r in runs if r.done() and r.exception() is not None]
            if failed:
                raise failed[0].exception()  # type: ignore[misc]
            await asyncio.sleep(0.005)
        phase.at = time.perf_counter()
        phase.ready.set()
        server1, own1 = cpu_seconds(server_pid), cpu_seconds(os.getpid())
        loop1 = loop_thread_seconds(server_pid)
        if runs:
            await asyncio.sleep(seconds)
        stop.set()
        played = time.perf_counter() - phase.at
        server2, own2 = cpu_seconds(server_pid), cpu_seconds(os.getpid())
        loop2 = loop_thread_seconds(server_pid)
        results = await asyncio.gather(*runs, return_exceptions=True)
        # A table that failed (a limit, a refused call) must show, not leave its figure short.
        for failure in [r for r in results if isinstance(r, BaseException)]:
            raise failure
        if kind == "host":
            samples = [ms for t in hosts for ms in t.samples]
            plays = sum(t.plays for t in hosts)
            setup = [ms for t in hosts for ms in t.setup]
            matches = sum(t.matches for t in hosts)
        else:
            samples, plays, setup, matches = times.samples, times.plays, times.setup, tables
        return Outcome(
            samples,
            plays,
            played,
            setup,
            server1 - server0,
            own1 - own0,
            server2 - server1,
            own2 - own1,
            matches,
            loop2 - loop1,
        )


# Each scenario: tables, seconds of play, thinking, one table after another to its first play.
SCENARIOS: dict[str, tuple[int, float, float, bool]] = {
    "one": (1, ONE_TABLE_SECONDS, 0.0, False),
    "many": (MANY_TABLES, MANY_TABLES_SECONDS, THINK, False),
    "flat": (MANY_TABLES, FLAT_OUT_SECONDS, 0.0, False),
    "setup": (SETUP_TABLES, 0.0, 0.0, True),
}
KINDS = ("host", "floor-unary", "floor-stream")
# The flag that plays the host's tables with ``NetworkSeat``s (the clients' code) instead of
# the scripted seats of ``seat_driver``.
NETWORK_SEATS = "--network-seats"


def client(kind: str, port: int, server_pid: int, name: str, driver: str) -> None:
    """The client process of one scenario: its outcome as one JSON line on stdout."""
    gc.freeze()  # the bots' set-up is not what the figures are of
    network_seats = driver == NETWORK_SEATS
    outcome = asyncio.run(scenario(kind, port, server_pid, *SCENARIOS[name], network_seats))
    print(json.dumps(asdict(outcome)), flush=True)


def run_client(kind: str, port: int, server_pid: int, name: str, driver: str) -> Outcome:
    """One scenario played by a client process of its own (its CPU apart from the server's)."""
    answer = subprocess.run(
        [sys.executable, __file__, "--client", kind, str(port), str(server_pid), name, driver],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
        check=False,
    )
    if answer.returncode != 0:
        raise RuntimeError(f"the {kind} client of {name} failed:\n{answer.stderr}")
    return Outcome(**json.loads(answer.stdout.strip().splitlines()[-1]))


def report(outcomes: dict[tuple[str, str], Outcome], echo: list[float]) -> None:
    """Every host figure beside the floor's of the same run, and their ratio."""

    def ratio(host: float, floor_figure: float) -> str:
        return f"{host / floor_figure:.2f}x" if floor_figure > 0 else "n/a"

    echo_p50, echo_p99 = percentiles(echo)
    print(
        f"bare gRPC unary echo round trip: p50 {echo_p50:.3f} ms, p99 {echo_p99:.3f} ms "
        f"({len(echo)} calls)"
    )
    labels = {
        "one": "1 table, Play -> every subscriber",
        "many": f"{MANY_TABLES} tables thinking ~{THINK} s, Play -> every subscriber",
        "flat": f"{MANY_TABLES} tables with no thinking, Play -> every subscriber",
    }
    for name, label in labels.items():
        if ("host", name) not in outcomes:
            continue
        host = outcomes[("host", name)]
        h50, h99 = percentiles(host.samples)
        print(f"{label}: host p50 {h50:.3f} ms, p99 {h99:.3f} ms ({len(host.samples)} plays)")
        for kind in KINDS[1:]:
            f50, f99 = percentiles(outcomes[(kind, name)].samples)
            print(
                f"    {kind}: p50 {f50:.3f} ms, p99 {f99:.3f} ms; the host is "
                f"{ratio(h50, f50)} its p50, {ratio(h99, f99)} its p99"
            )
    for name in ("one", "flat"):
        if ("host", name) not in outcomes:
            continue
        host = outcomes[("host", name)]
        per_play = 1000 / max(1, host.plays)
        print(
            f"CPU a play costs, {labels[name].split(',')[0]}, set-up excluded: host "
            f"{host.play_server_cpu * per_play:.2f} ms (its loop's thread "
            f"{host.play_server_loop_cpu * per_play:.2f} ms), its client "
            f"{host.play_client_cpu * per_play:.2f} ms ({host.plays} plays in "
            f"{host.seconds:.1f} s = {host.plays / host.seconds:.0f} plays/s; "
            f"{host.matches} matches begun)"
        )
        for kind in KINDS[1:]:
            out = outcomes[(kind, name)]
            per = 1000 / max(1, out.plays)
            print(
                f"    {kind}: server {out.play_server_cpu * per:.2f} ms (loop "
                f"{out.play_server_loop_cpu * per:.2f} ms), client "
                f"{out.play_client_cpu * per:.2f} ms ({out.plays / out.seconds:.0f} plays/s); "
                f"the host is {ratio(host.play_server_cpu * per_play, out.play_server_cpu * per)} "
                "its server's CPU a play"
            )
    if ("host", "setup") not in outcomes:
        return
    host = outcomes[("host", "setup")]
    per_table = 1000 / max(1, len(host.setup_ms))
    setup_p50, _ = percentiles(host.setup_ms)
    print(
        f"set-up of a table, CreateTable -> its first play ({SETUP_TABLES} tables one after "
        f"another): host CPU {host.setup_server_cpu * per_table:.2f} ms, its client "
        f"{host.setup_client_cpu * per_table:.2f} ms, wall p50 {setup_p50:.1f} ms"
    )
    for kind in KINDS[1:]:
        out = outcomes[(kind, "setup")]
        per = 1000 / max(1, len(out.setup_ms))
        p50, _ = percentiles(out.setup_ms)
        print(
            f"    {kind}: server CPU {out.setup_server_cpu * per:.2f} ms, client "
            f"{out.setup_client_cpu * per:.2f} ms, wall p50 {p50:.1f} ms; the host is "
            f"{ratio(host.setup_server_cpu * per_table, out.setup_server_cpu * per)} its CPU"
        )


def spawn(command: list[str]) -> tuple[subprocess.Popen[str], list[int]]:
    """A server process and the ports it prints on its first line."""
    server = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert server.stdout is not None
    return server, list(map(int, server.stdout.readline().split()))


def stop_server(server: subprocess.Popen[str]) -> str:
    """Close the server's stdin (it stops); what it printed after its ports."""
    if server.stdin is not None:
        server.stdin.close()
    try:
        rest = server.stdout.read() if server.stdout is not None else ""
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        return ""
    return rest


def report_pauses(printed: str) -> None:
    """The host's collections over the whole run: how long the collector held up its loop."""
    try:
        pauses = json.loads(printed.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return
    for generation, ps in sorted(pauses.items()):
        if ps:
            ms = sorted(p * 1000 for p in ps)
            print(
                f"host's collections of generation {generation}: {len(ms)}, median "
                f"{statistics.median(ms):.2f} ms, slowest {ms[-1]:.1f} ms"
            )


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        asyncio.run(serve(Path(sys.argv[2])))
        return 0
    if len(sys.argv) == 7 and sys.argv[1] == "--client":
        client(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6])
        return 0
    args = sys.argv[1:]
    driver = NETWORK_SEATS if NETWORK_SEATS in args else "scripted"
    only = [a for a in args if a != NETWORK_SEATS] or list(SCENARIOS)
    with tempfile.TemporaryDirectory(
        prefix="scala40-bench-", dir=os.environ.get("BENCH_DIR")
    ) as data_dir:
        print(
            f"host benchmark (host, floors and each client in processes of their own, "
            f"journals in {data_dir}, {os.cpu_count()} cores, load average "
            f"{os.getloadavg()[0]:.1f})"
        )
        echo: list[float] = []
        outcomes = {}
        pauses = []
        # A fresh server for each scenario: the tables a scenario leaves behind (their seats
        # handed to the host's bots once their clients are gone) would play on in the next.
        for name in only:
            for kind in KINDS:
                where = Path(data_dir, f"{kind}-{name}")
                if kind == "host":
                    command = [sys.executable, __file__, "--serve", str(where)]
                else:
                    where.mkdir()
                    command = [sys.executable, floor.__file__, "--serve", str(where)]
                server, ports = spawn(command)
                try:
                    if not echo and kind == "host":
                        echo = asyncio.run(echo_round_trips(ports[1]))
                    outcomes[(kind, name)] = run_client(kind, ports[0], server.pid, name, driver)
                finally:
                    printed = stop_server(server)
                if kind == "host":
                    pauses.append(printed)
        report(outcomes, echo)
        for printed in pauses:
            report_pauses(printed)
        print(f"load average at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
