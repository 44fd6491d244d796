"""Flood benchmark: a client's latency beside a flood from another address, and what counting
connections per address costs the host.

Run with ``make bench`` or ``.venv/bin/python bench/bench_floods.py [RATE [PAUSE]]`` (the
requests a second one address may send, and the pause before a refusal for them: the host's
own unless given; ``500 0`` answers refusals at once, as before the pause). The host runs in its
own process with TLS and its real limits. This process times ListTables from 127.0.0.1 (one
call at a time) for a few seconds alone, then while a flooding process sends ListTables as
fast as it can over 16 connections from 127.0.0.2 (each relayed from loopback to that
address): median and p99 of each, the flood's requests served a second and refused. Then it
times one look at the connections (``ConnectionGuard.sweep``) with no connection and with
300 held, and prints what the looks cost a second. Figures are printed, never asserted.
Targets: the client's p99 beside the flood at most twice its p99 alone; the flood served at
most the per-address rate (500/s, bursts to 1,000); the looks under 1% of a core. The whole
run is bounded (about 40 s).
"""

from __future__ import annotations

import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from other_address import OtherAddress  # noqa: E402

from host.edge import connections, limits  # noqa: E402
from host.edge.errors import error_info  # noqa: E402
from host.edge.server import Host  # noqa: E402
from scala40_net import wire  # noqa: E402
from scala40_net.net import tls  # noqa: E402
from scala40_net.pb import lobby_pb2, lobby_pb2_grpc  # noqa: E402

SECONDS = 8.0  # each phase of the client's timing
FLOOD_CONNECTIONS = 16
IN_FLIGHT = 4  # calls the flood keeps going on each of its connections
HELD = 300  # connections held while one look is timed
LOOKS = 200
PACE = 0.02  # between the timed client's calls: a client, not a flood


async def serve(data_dir: Path, rate: float, pause: float) -> None:
    chosen = limits.Limits(requests_per_second=rate, slow_down_seconds=pause)
    host = Host("127.0.0.1:0", data_dir, advertise=False, limits=chosen)
    await host.start()
    print(host.port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await host.stop(grace=0)


async def channel_to(port: int, fingerprint: str | None = None) -> tuple[grpc.aio.Channel, str]:
    channel, found = await tls.pinned_channel("127.0.0.1", port, fingerprint, wire.CHANNEL_OPTIONS)
    return channel, found.fingerprint


async def flood(port: int, fingerprint: str, seconds: float) -> None:
    """ListTables as fast as it goes over the flood's connections from 127.0.0.2; prints what
    was served and refused a second."""
    served = refused = 0
    async with OtherAddress(port) as other:
        channels = [
            (await channel_to(other.port, fingerprint))[0] for _ in range(FLOOD_CONNECTIONS)
        ]
        stop = time.monotonic() + seconds

        async def hammer(channel: grpc.aio.Channel) -> None:
            nonlocal served, refused
            stub = lobby_pb2_grpc.LobbyServiceStub(channel)
            while time.monotonic() < stop:
                try:
                    await stub.ListTables(lobby_pb2.ListTablesRequest(), timeout=5)
                    served += 1
                except grpc.aio.AioRpcError as error:
                    info = error_info(error)
                    if info is None or info.reason != "TOO_MANY_REQUESTS":
                        raise
                    refused += 1

        print("flooding", flush=True)
        await asyncio.gather(*(hammer(c) for c in channels for _ in range(IN_FLIGHT)))
        for channel in channels:
            await channel.close()
    print(f"{served / seconds:.0f} {refused / seconds:.0f}", flush=True)


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` so far (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def client_latency(port: int, fingerprint: str, seconds: float) -> list[float]:
    channel, _ = await channel_to(port, fingerprint)
    async with channel:
        stub = lobby_pb2_grpc.LobbyServiceStub(channel)
        for _ in range(20):  # warm up
            await stub.ListTables(lobby_pb2.ListTablesRequest())
            await asyncio.sleep(PACE)
        samples = []
        stop = time.monotonic() + seconds
        while time.monotonic() < stop:
            began = time.perf_counter()
            await stub.ListTables(lobby_pb2.ListTablesRequest())
            samples.append((time.perf_counter() - began) * 1000)
            await asyncio.sleep(PACE)
        return samples


def look_cost(held: int) -> float:
    """Microseconds one look at the connections takes with ``held`` connections to the port."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(held + 8)
    port = listener.getsockname()[1]
    clients, accepted = [], []
    try:
        for _ in range(held):
            clients.append(socket.create_connection(("127.0.0.1", port)))
            accepted.append(listener.accept()[0])
        guard = connections.ConnectionGuard(
            port, held + 1, limits.CONNECTION_SWEEP_SECONDS, limits.CONNECTION_ALERT_SECONDS
        )
        began = time.perf_counter()
        for _ in range(LOOKS):
            guard.sweep()
        return (time.perf_counter() - began) / LOOKS * 1e6
    finally:
        for sock in clients + accepted + [listener]:
            sock.close()


async def measure(port: int, host_pid: int) -> None:
    channel, fingerprint = await channel_to(port)
    await channel.close()
    alone = await client_latency(port, fingerprint, SECONDS)
    flooder = subprocess.Popen(
        [sys.executable, __file__, "flood", str(port), fingerprint, str(SECONDS + 4)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert flooder.stdout is not None
        assert flooder.stdout.readline().strip() == "flooding"
        await asyncio.sleep(1)  # the flood at full speed
        began, host_cpu = time.monotonic(), cpu_seconds(host_pid)
        flood_cpu = cpu_seconds(flooder.pid)
        beside = await client_latency(port, fingerprint, SECONDS)
        spent = time.monotonic() - began
        host_cpu = (cpu_seconds(host_pid) - host_cpu) / spent * 100
        flood_cpu = (cpu_seconds(flooder.pid) - flood_cpu) / spent * 100
        served, refused = flooder.stdout.readline().split()
    finally:
        flooder.wait(timeout=60)
    for name, samples in (("alone", alone), ("beside the flood", beside)):
        p50, p99 = percentiles(samples)
        print(f"ListTables from 127.0.0.1, {name}: p50 {p50:.2f} ms, p99 {p99:.2f} ms")
    print(f"  p99 beside the flood / alone: {percentiles(beside)[1] / percentiles(alone)[1]:.1f}x")
    print(
        f"the flood from 127.0.0.2 ({FLOOD_CONNECTIONS} connections): {served} requests/s "
        f"served, {refused}/s refused; meanwhile the host process used {host_cpu:.0f}% of a core, "
        f"the flooding process (its relay included) {flood_cpu:.0f}%"
    )
    idle, busy = look_cost(0), look_cost(HELD)
    began = time.perf_counter()
    for _ in range(LOOKS):
        connections.tcp_sockets_in_use()
    quiet = (time.perf_counter() - began) / LOOKS * 1e6
    every, alert = 1 / limits.CONNECTION_SWEEP_SECONDS, 1 / limits.CONNECTION_ALERT_SECONDS
    print(
        f"one look at the connections: {idle:.0f} µs with none, {busy:.0f} µs with {HELD} "
        f"({connections.tcp_sockets_in_use()} TCP sockets on this machine); "
        f"{every:.0f} a second = {idle * every / 1e4:.2f}% of a core, "
        f"{alert:.0f} a second during a flood = {busy * alert / 1e4:.2f}%; "
        f"with fewer TCP sockets on the machine than an address's share, {quiet:.0f} µs "
        f"({quiet * every / 1e4:.3f}%)"
    )


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "serve":
        asyncio.run(serve(Path(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])))
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "flood":
        asyncio.run(flood(int(sys.argv[2]), sys.argv[3], float(sys.argv[4])))
        return 0
    # The host's rate per address and pause before a refusal for it, or others to compare
    # (bench_floods.py RATE PAUSE; a pause of 0: refused at once, as before the pause).
    rate = float(sys.argv[1]) if len(sys.argv) > 1 else limits.REQUESTS_PER_SECOND
    pause = float(sys.argv[2]) if len(sys.argv) > 2 else limits.SLOW_DOWN_SECONDS
    print(
        f"bench_floods: {os.cpu_count()} cores, {rate:.0f} requests/s an address, "
        f"refused after {pause:g} s"
    )
    with tempfile.TemporaryDirectory() as data_dir:
        host = subprocess.Popen(
            [sys.executable, __file__, "serve", data_dir, str(rate), str(pause)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert host.stdout is not None
            port = int(host.stdout.readline())
            asyncio.run(measure(port, host.pid))
        finally:
            assert host.stdin is not None
            host.stdin.close()
            host.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
