"""The seat's stream against unary moves: 1 table, Play -> its event at every subscriber, and CPU.

Run with ``.venv/bin/python bench/bench_seat_stream.py``. The host runs in its own process
(``bench_host.py --serve``: the same host, settings and limits as the host benchmark); this
process plays one 2-seat table at a time with two bot clients that do not think and one
spectator, as ``bench_host`` does, alternately moving as unary calls beside a
SubscribeEvents stream (the simple way) and on their seat's stream (TableService.Seat),
``ROUNDS`` times each. For each way it prints p50/p99 of Play -> the event at both seats
and the spectator, and the host's and this process's CPU time per play. Figures are
printed, never asserted; the run takes about ``2 * ROUNDS * SECONDS`` seconds.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_host import TimedTable, cpu_seconds, percentiles  # noqa: E402

from scala40_net import wire  # noqa: E402

SECONDS = float(os.environ.get("SEAT_STREAM_SECONDS", "8"))
ROUNDS = int(os.environ.get("SEAT_STREAM_ROUNDS", "2"))
WAYS = {False: "unary moves + SubscribeEvents", True: "the seat's stream (Seat)"}


async def one_table(
    port: int, seat_stream: bool, host_pid: int
) -> tuple[list[float], float, float]:
    """One table for ``SECONDS``: its Play latencies (ms), and the host's and this process's
    CPU seconds over that time."""
    async with grpc.aio.insecure_channel(
        f"127.0.0.1:{port}", options=wire.CHANNEL_OPTIONS
    ) as channel:
        table = TimedTable(channel, 0.0, seat_stream=seat_stream)
        stop = asyncio.Event()
        host_cpu, own_cpu = cpu_seconds(host_pid), cpu_seconds(os.getpid())
        run = asyncio.create_task(table.play(stop))
        await asyncio.sleep(SECONDS)
        stop.set()
        await run
        host_cpu, own_cpu = cpu_seconds(host_pid) - host_cpu, cpu_seconds(os.getpid()) - own_cpu
        return table.samples, host_cpu, own_cpu


async def measure(port: int, host_pid: int) -> None:
    await one_table(port, True, host_pid)  # warm up: imports, the first table's journal
    found: dict[bool, tuple[list[float], float, float]] = {way: ([], 0.0, 0.0) for way in WAYS}
    for _ in range(ROUNDS):
        for way in WAYS:
            samples, host_cpu, own_cpu = await one_table(port, way, host_pid)
            kept = found[way]
            found[way] = (kept[0] + samples, kept[1] + host_cpu, kept[2] + own_cpu)
    for way, name in WAYS.items():
        samples, host_cpu, own_cpu = found[way]
        p50, p99 = percentiles(samples)
        plays = max(1, len(samples))
        print(
            f"1 table, Play -> event at every subscriber, {name}: p50 {p50:.3f} ms, "
            f"p99 {p99:.3f} ms ({len(samples)} plays); CPU a play (set-up included): host "
            f"{host_cpu / plays * 1000:.2f} ms, the bots and the spectator "
            f"{own_cpu / plays * 1000:.2f} ms"
        )
    unary, stream = (percentiles(found[way][0])[0] for way in WAYS)
    print(f"p50 on the seat's stream / p50 with unary moves: {stream / unary:.2f}")


def main() -> int:
    with tempfile.TemporaryDirectory(
        prefix="scala40-bench-", dir=os.environ.get("BENCH_DIR")
    ) as data_dir:
        server = subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "bench_host.py"), "--serve", data_dir],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        try:
            assert server.stdout is not None and server.stdin is not None
            host_port, _ = map(int, server.stdout.readline().split())
            print(
                f"seat's stream benchmark (host in its own process, {os.cpu_count()} cores, "
                f"{ROUNDS} rounds of {SECONDS:g} s each way)"
            )
            asyncio.run(measure(host_port, server.pid))
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
