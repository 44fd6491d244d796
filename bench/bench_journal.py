"""One table journal's write path: ``TableJournal.append_job`` timed alone, the watch included.

Run with ``.venv/bin/python bench/bench_journal.py [--jobs N] [--runs R]``. Each run makes
a fresh journal in a temporary folder (on the same disk as the data dir would be:
``--dir``), writes N jobs of one chat-sized entry with one event in-process, as the
table's writer thread does (``synchronous=FULL``, the watch's looks before and after
each job), and times each call with ``time.perf_counter``. It prints, over every job of
every run: the median, p90, p99 and slowest, and the time of the looks alone (the
journal file and its write-ahead log read as the watch reads them). Figures are
printed, never asserted.
"""

from __future__ import annotations

import argparse
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


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=None, help="where the journals are made")
    args = parser.parse_args()
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
