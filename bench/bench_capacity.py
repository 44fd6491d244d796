"""Host capacity benchmark: memory per idle table and per archived match, and the host's start.

Run with ``make bench`` or ``.venv/bin/python bench/bench_capacity.py``. Each
host runs in its own process; its memory is its resident set (VmRSS of
/proc/<pid>/status). Per idle table: the RSS growth over 500 tables created
and never started, once their journals rest, divided by their number. Per
archived match: the RSS of a host started on a data dir with 500 archived
matches (copies of one finished match's journal) and 20 live tables, less the
RSS of a host started on the same dir without the archive, divided by 500.
The start is timed inside the host process (``Host.start``: every live
journal played back, the server listening) and from the process's spawn to
its first answer, each beside the same for an empty data dir. Figures are
printed, never asserted. Targets: at most 100 KB per idle table and per
archived match; a start under 1 s.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_host import Phase, TimedTable  # noqa: E402

from host.edge.limits import Limits  # noqa: E402
from host.edge.server import Host  # noqa: E402
from host.journal.sqlite import ARCHIVE_FOLDER, SUFFIX, TABLES_FOLDER  # noqa: E402
from host.table.state import TableSettings  # noqa: E402
from scala40_net import wire  # noqa: E402
from scala40_net.pb import lobby_pb2, lobby_pb2_grpc, ruleset_pb2  # noqa: E402

IDLE_TABLES = 500
ARCHIVED = 500
LIVE_TABLES = 20
STARTS = 3  # each start is timed this many times; the median is printed
JOURNAL_REST = 0.5  # seconds: TableSettings.journal_rest of the bench's hosts


# --- The server process -------------------------------------------------------------------


async def serve(data_dir: Path) -> None:
    # The idle tables' journals rest soon after they are made (a table being set up keeps its
    # connection until it has waited this long: host.journal.registry).
    settings = TableSettings(
        commit_timeout=5, reveal_timeout=5, archive_after=0.2, journal_rest=JOURNAL_REST
    )
    # Without TLS (like bench_host.py), and limits a single client making 500 tables passes.
    limits = Limits(
        requests_per_second=1e9,
        seat_requests_per_second=1e9,
        tables_per_minute=10**9,
        streams_per_connection=10**9,
        streams_per_address=10**9,
    )
    host = Host("127.0.0.1:0", data_dir, settings, insecure=True, limits=limits)
    started = time.perf_counter()
    await host.start()
    print(host.port, time.perf_counter() - started, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await host.stop(grace=0)


class HostProcess:
    """A host in its own process on ``data_dir``; its port, start time and memory."""

    def __init__(self, data_dir: Path) -> None:
        spawned = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(data_dir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert self.process.stdout is not None
        port, start = self.process.stdout.readline().split()
        self.port = int(port)
        self.start_seconds = float(start)  # Host.start, inside the process
        asyncio.run(self._first_answer())
        self.spawn_seconds = time.perf_counter() - spawned  # spawn to the first answer

    async def _first_answer(self) -> None:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{self.port}") as channel:
            await lobby_pb2_grpc.LobbyServiceStub(channel).ListTables(lobby_pb2.ListTablesRequest())

    def rss_kb(self) -> int:
        status = Path(f"/proc/{self.process.pid}/status").read_text(encoding="ascii")
        line = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
        return int(line.split()[1])

    def stop(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


# --- Making the data dirs -----------------------------------------------------------------


async def idle_tables(port: int, count: int) -> None:
    async with grpc.aio.insecure_channel(
        f"127.0.0.1:{port}", options=wire.CHANNEL_OPTIONS
    ) as channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        for k in range(count):
            await lobby.CreateTable(lobby_pb2.CreateTableRequest(name=f"idle {k}", seats=2))


async def finished_match(port: int) -> None:
    """A 2-seat match between a network bot and a host bot, over after its first deal
    (bust_at 1: whoever pays anything is out)."""
    async with grpc.aio.insecure_channel(
        f"127.0.0.1:{port}", options=wire.CHANNEL_OPTIONS
    ) as channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        table = TimedTable(channel, 0.0, Phase())
        ruleset = ruleset_pb2.Ruleset(options=ruleset_pb2.RulesetOptions(bust_at=1))
        stop = asyncio.Event()
        await asyncio.wait_for(table.play_match(stop, ruleset=ruleset), timeout=120)
        del lobby


async def live_tables(port: int, count: int, seconds: float) -> None:
    """``count`` matches left in the middle: played ``seconds``, then the players stop."""
    async with grpc.aio.insecure_channel(
        f"127.0.0.1:{port}", options=wire.CHANNEL_OPTIONS
    ) as channel:
        stop = asyncio.Event()
        tables = [TimedTable(channel, 0.05, Phase()) for _ in range(count)]
        runs = [asyncio.create_task(t.play_match(stop)) for t in tables]
        await asyncio.sleep(seconds)
        stop.set()
        await asyncio.gather(*runs, return_exceptions=True)


def copy_journal(source: Path, folder: Path) -> None:
    target = folder / f"{secrets.token_hex(6)}{SUFFIX}"
    for suffix in ("", "-wal", "-shm"):
        companion = Path(f"{source}{suffix}")
        if companion.exists():
            shutil.copy(companion, Path(f"{target}{suffix}"))


def timed_starts(data_dir: Path) -> tuple[float, float, int]:
    """Median Host.start and spawn-to-answer seconds over STARTS starts, and the last RSS."""
    inside, outside, rss = [], [], 0
    for _ in range(STARTS):
        host = HostProcess(data_dir)
        inside.append(host.start_seconds)
        outside.append(host.spawn_seconds)
        rss = host.rss_kb()
        host.stop()
    return statistics.median(inside), statistics.median(outside), rss


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        asyncio.run(serve(Path(sys.argv[2])))
        return 0
    cores = os.cpu_count()
    with tempfile.TemporaryDirectory(prefix="scala40-bench-", dir=os.environ.get("BENCH_DIR")) as d:
        work = Path(d)
        print(
            f"host capacity benchmark (hosts in their own processes, data in {work}, {cores} cores)"
        )
        # Idle tables, and one finished match to copy.
        first = work / "first"
        host = HostProcess(first)
        try:
            asyncio.run(finished_match(host.port))
            archive = first / ARCHIVE_FOLDER
            deadline = time.monotonic() + 30
            while not list(archive.glob(f"*{SUFFIX}")) and time.monotonic() < deadline:
                time.sleep(0.1)
            asyncio.run(idle_tables(host.port, 1))  # the first table's code paths, warmed
            time.sleep(JOURNAL_REST * 3)  # its journal at rest, as an idle table's is
            before = host.rss_kb()
            asyncio.run(idle_tables(host.port, IDLE_TABLES - 1))
            time.sleep(JOURNAL_REST * 3)
            after = host.rss_kb()
        finally:
            host.stop()
        per_idle = (after - before) / (IDLE_TABLES - 1)
        print(
            f"host memory per idle table: {per_idle:.1f} KB (RSS {before} KB with 1 table, "
            f"{after} KB with {IDLE_TABLES}; target <= 100 KB)"
        )
        archived = next((first / ARCHIVE_FOLDER).glob(f"*{SUFFIX}"))

        # 20 live tables in the middle of their matches, then 500 archived matches beside them.
        second = work / "second"
        host = HostProcess(second)
        try:
            asyncio.run(live_tables(host.port, LIVE_TABLES, 3.0))
        finally:
            host.stop()
        live = len(list((second / TABLES_FOLDER).glob(f"*{SUFFIX}")))
        empty_inside, empty_outside, _ = timed_starts(work / "empty")
        live_inside, live_outside, live_rss = timed_starts(second)
        for _ in range(ARCHIVED):
            copy_journal(archived, second / ARCHIVE_FOLDER)
        full_inside, full_outside, full_rss = timed_starts(second)
        per_archived = (full_rss - live_rss) / ARCHIVED
        print(
            f"host memory per archived match: {per_archived:.1f} KB (RSS {live_rss} KB with "
            f"{live} live tables, {full_rss} KB with {ARCHIVED} archived matches beside them; "
            "target <= 100 KB)"
        )
        print(
            f"host start, empty data dir: Host.start {empty_inside * 1000:.0f} ms, "
            f"spawn to first answer {empty_outside * 1000:.0f} ms (the baseline)"
        )
        print(
            f"host start, {live} live tables: Host.start {live_inside * 1000:.0f} ms, "
            f"spawn to first answer {live_outside * 1000:.0f} ms"
        )
        print(
            f"host start, {ARCHIVED} archived matches and {live} live tables: Host.start "
            f"{full_inside * 1000:.0f} ms, spawn to first answer {full_outside * 1000:.0f} ms "
            f"= {full_outside / empty_outside:.1f}x the empty start (target < 1 s); "
            f"medians of {STARTS} starts"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
