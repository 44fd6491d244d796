"""One table journal's write path: ``TableJournal.append_job`` timed alone, the watch included.

Run with ``.venv/bin/python bench/bench_journal.py [--jobs N] [--runs R]``. Each run makes
a fresh journal in a temporary folder (on the same disk as the data dir would be:
``--dir``), writes N jobs of one chat-sized entry with one event in-process
(``append_job``: one transaction with ``synchronous=FULL``, the watch's looks before and
after each job; the writer's way without the commit log), and times each call with
``time.perf_counter``. It prints, over every job of every run: the median, p90, p99 and
slowest, and the time of the looks alone (the journal file and its write-ahead log read
as the watch reads them). Figures are printed, never asserted.

Then the tables' jobs ready at once (``--tables``, 100): that many fresh journals in one
store, and ``--rounds`` rounds in which each table hands in one job from the event loop, as
the tables' tasks do when a move comes for each at the same moment. Each round is timed
from the first job handed in to the last one durable; per job: that time over the tables,
the process's CPU time (every thread's) over the jobs, and the fsyncs the store's writer
made for it. Two ways, in turn in the same run (``--ways``
repeats the pair): ``fsync a job`` (``JournalStore(group_commit=False)``: the writer
threads, each job committed in its table's file with ``synchronous=FULL``, which SQLite
makes durable with one fsync of the write-ahead log a commit: one a job) and ``commit log``
(the host's way: one fdatasync of the log a batch, counted by the writer, plus the table
files' fsyncs at checkpoints). Run it under ``strace -f -c -e trace=fsync,fdatasync`` to
count them from the kernel's side.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from host.journal.sqlite import Entry, JournaledEvent, JournalStore  # noqa: E402


def job(n: int) -> list[Entry]:
    return [Entry("chat", 0, None, b"line %d" % n, b"", [JournaledEvent(n, b"event %d" % n)])]


def timed_run(folder: Path, jobs: int) -> tuple[list[float], list[float]]:
    """Milliseconds of each append_job, and of each pair of looks, for one fresh journal."""
    store = JournalStore(folder)
    try:
        journal = store.open(store.path("bench1"))
        journal.create(b"config")
        writes, looks = [], []
        for n in range(1, jobs + 1):
            start = time.perf_counter()
            journal.append_job(job(n))
            writes.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            journal._looks()  # what the watch reads, twice a job
            looks.append((time.perf_counter() - start) * 1000)
        return writes, looks
    finally:
        store.close()


async def tables_at_once(folder: Path, tables: int, rounds: int, group_commit: bool) -> str:
    """One way's rounds of ``tables`` jobs handed in at once: a line of figures."""
    store = JournalStore(folder, group_commit=group_commit)
    try:
        journals = [store.open(store.path(f"bench{n:03d}"), b"config") for n in range(tables)]
        writers = store.writers
        syncs_before = writers.log_syncs + writers.table_syncs
        per_job, waits = [], []
        loop = asyncio.get_running_loop()
        cpu = time.process_time()
        for seq in range(1, rounds + 1):
            start = loop.time()
            futures = [journal.write_job(job(seq)) for journal in journals]

            def durable(_: object, since: float = start) -> None:
                waits.append((loop.time() - since) * 1000)

            for future in futures:
                future.add_done_callback(durable)
            await asyncio.gather(*futures)
            per_job.append((loop.time() - start) * 1000 / tables)
        jobs = tables * rounds
        cpu_ms = (time.process_time() - cpu) * 1000 / jobs
        if group_commit:
            fsyncs = writers.log_syncs + writers.table_syncs - syncs_before
            counted = f"{fsyncs / jobs:.3f} fsyncs a job ({writers.log_syncs} of the log"
            counted += f", {writers.table_syncs} of table files)"
        else:
            counted = "1 fsync a job (synchronous=FULL: one of the write-ahead log a commit)"
    finally:
        store.close()
    way = "commit log" if group_commit else "fsync a job"
    return (
        f"tables at once: {tables}, {way:>11}: {statistics.median(per_job):.3f} ms a job"
        f" (round / tables, median of {rounds}), each job durable after median"
        f" {statistics.median(waits):.1f} ms, p99 {quantile(waits, 0.99):.1f} ms;"
        f" CPU {cpu_ms:.3f} ms a job (this process, every thread); {counted}"
    )


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=None, help="where the journals are made")
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--ways", type=int, default=2, help="times each way is run, in turn")
    parser.add_argument("--only-tables", action="store_true", help="skip the one-journal phase")
    parser.add_argument("--way", choices=("both", "fsync", "log"), default="both")
    args = parser.parse_args()
    if not args.only_tables:
        one_journal(args)
    for _ in range(args.ways):
        for group_commit in {"both": (False, True), "fsync": (False,), "log": (True,)}[args.way]:
            with tempfile.TemporaryDirectory(dir=args.dir) as folder:
                line = asyncio.run(
                    tables_at_once(Path(folder), args.tables, args.rounds, group_commit)
                )
            print(line, flush=True)


def one_journal(args: argparse.Namespace) -> None:
    writes: list[float] = []
    looks: list[float] = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(dir=args.dir) as folder:
            w, lk = timed_run(Path(folder), args.jobs)
            writes += w
            looks += lk
    print(
        f"append_job, {args.runs} x {args.jobs} jobs: median {statistics.median(writes):.3f} ms,"
        f" p90 {quantile(writes, 0.9):.3f}, p99 {quantile(writes, 0.99):.3f},"
        f" slowest {max(writes):.3f}"
    )
    print(
        f"the watch's look (both files): median {statistics.median(looks) * 1000:.1f} us,"
        f" p99 {quantile(looks, 0.99) * 1000:.1f} us"
    )


if __name__ == "__main__":
    main()
