"""Discovery benchmark: what the host's LAN advertisement costs it while it serves.

Run with ``make bench`` or ``.venv/bin/python bench/bench_discovery.py [--tables N]``.
Figures are printed, never asserted. The advertiser counts the open tables
once a second (``Registry.open_count``) and sends its TXT record again only
when the count changed, so its cost is that count: timed 2000 times at the
host's cap of 500 tables (created, never started), beside the baseline of
ListTables' own work over the same tables (``TableTask.summary`` of each).
Target: the count's p99 under 1 ms, a thousandth of the second between two.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from host.edge.lobby import MAX_TABLES
from host.edge.server import Host
from host.table.state import TableSettings
from scala40_net import wire
from scala40_net.pb import lobby_pb2

RUNS = 2000


def timed(work: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median and p99 of ``work``, in microseconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    times.sort()
    return statistics.median(times) * 1e6, times[int(len(times) * 0.99)] * 1e6


async def bench(tables: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as data:
        host = Host("127.0.0.1:0", Path(data), TableSettings())
        await host.start()
        try:
            ruleset = wire.ruleset_from_pb(lobby_pb2.CreateTableRequest().ruleset, 4)
            for i in range(tables):
                request = lobby_pb2.CreateTableRequest(name=f"t{i}", seats=4)
                await host.registry.create_table(request, ruleset)
            registry = host.registry
            count = timed(registry.open_count, runs)
            listing = timed(lambda: [t.summary() for t in registry.tables.values()], runs // 10)
        finally:
            await host.stop(grace=0)
    print(f"cores: {os.cpu_count()}; {tables} open tables, {runs} counts")
    print(
        f"open tables count: median {count[0]:.0f} us, p99 {count[1]:.0f} us "
        f"(target p99 < 1000 us, once a second); baseline ListTables' summaries: "
        f"median {listing[0]:.0f} us, p99 {listing[1]:.0f} us"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=MAX_TABLES)
    parser.add_argument("--runs", type=int, default=RUNS)
    args = parser.parse_args()
    asyncio.run(bench(args.tables, args.runs))


if __name__ == "__main__":
    main()
