"""Collector pauses: whether the rare slow hard-bot decisions are the garbage collector's.

Run with ``.venv/bin/python bench/bench_gc.py [--deals N] [--mode M ...]``. Each
mode plays the same heads-up deals of the hard bot against the medium one (the
engine only, one process, a fresh process per mode so no cache is warm), times
every hard decision with ``time.perf_counter`` and every collection with
``gc.callbacks`` (its generation and its duration), and prints: the decisions'
median, p99 and slowest; each generation's collections, median and slowest
pause; and how much of every decision over ``SLOW_MS`` was spent collecting.
Modes: ``default`` (Python's collector as it is), ``frozen`` (what
``scala40_net.collector.keep_out_of_the_way`` does: what exists at start
frozen, then the survivors of each collection of the older two generations,
all thawed after ``THAW_EVERY`` of them and walked by the next full one).
Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scala40_net import collector  # noqa: E402
from scala40_net.bots import make_bot  # noqa: E402
from scala40_net.bots.arena import play_deal  # noqa: E402
from scala40_net.rules import preset  # noqa: E402

SLOW_MS = 50.0
MODES = ("default", "frozen")


class Collections:
    """Each collection's pause by generation, and the time spent collecting (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.total = 0.0  # seconds spent collecting, so far
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            pause = time.perf_counter() - self._started
            self.pauses[info["generation"]].append(pause)
            self.total += pause


def play_timed(deals: int, mode: str) -> dict[str, object]:
    """``play`` with each hard decision's own collecting time, read around ``decide``."""
    from scala40_net.bots import arena

    seen = Collections()
    if mode == "frozen":
        collector.keep_out_of_the_way()
    gc.callbacks.append(seen)
    decisions: list[tuple[float, float, int]] = []  # ms, of it collecting ms, full collections
    decide = arena.decide

    def timed_decide(state, bot, timings=None):  # type: ignore[no-untyped-def]
        collected, full = seen.total, len(seen.pauses[2])
        started = time.perf_counter()
        action = decide(state, bot, None)
        if bot.level == "hard":
            decisions.append(
                (
                    (time.perf_counter() - started) * 1000,
                    (seen.total - collected) * 1000,
                    len(seen.pauses[2]) - full,
                )
            )
        return action

    arena.decide = timed_decide  # type: ignore[assignment]
    started = time.perf_counter()
    for k in range(deals):
        bots = {0: make_bot("hard", random.Random(2 * k)), 1: make_bot("medium", random.Random(k))}
        play_deal(bots, preset("classic", 2), dealer=k % 2, label=f"gc-{k}")
    gc.callbacks.remove(seen)
    return {
        "seconds": time.perf_counter() - started,
        "decisions": decisions,
        "pauses": {str(g): [p * 1000 for p in ps] for g, ps in seen.pauses.items()},
    }


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


def report(mode: str, outcome: dict[str, object]) -> None:
    decisions = outcome["decisions"]
    assert isinstance(decisions, list)
    times = [d[0] for d in decisions]
    slow = [d for d in decisions if d[0] >= SLOW_MS]
    print(
        f"{mode}: {len(times)} hard decisions in {outcome['seconds']:.1f} s: median "
        f"{statistics.median(times):.2f} ms, p99 {percentile(times, 0.99):.2f} ms, slowest "
        f"{max(times):.1f} ms"
    )
    pauses = outcome["pauses"]
    assert isinstance(pauses, dict)
    for generation, ps in sorted(pauses.items()):
        if ps:
            print(
                f"    generation {generation}: {len(ps)} collections, median "
                f"{statistics.median(ps):.2f} ms, slowest {max(ps):.1f} ms"
            )
    collecting = sum(d[1] for d in slow)
    print(
        f"    decisions of {SLOW_MS:.0f} ms or more: {len(slow)}, {sum(d[0] for d in slow):.0f} ms "
        f"in all, of it collecting {collecting:.0f} ms; with a full collection in them: "
        f"{sum(1 for d in slow if d[2])}"
    )
    for ms, of_it, full in sorted(slow, reverse=True)[:5]:
        print(f"        {ms:.1f} ms, of it collecting {of_it:.1f} ms ({full} full)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--mode", action="append", choices=MODES)
    parser.add_argument("--one", choices=MODES, help=argparse.SUPPRESS)  # a mode's own process
    args = parser.parse_args()
    if args.one:
        print(json.dumps(play_timed(args.deals, args.one)))
        return 0
    print(f"collector pauses, {args.deals} heads-up deals of hard against medium per mode")
    for mode in args.mode or MODES:
        answer = subprocess.run(
            [sys.executable, __file__, "--deals", str(args.deals), "--one", mode],
            capture_output=True,
            text=True,
            check=True,
            timeout=1200,
        )
        report(mode, json.loads(answer.stdout))
    return 0


if __name__ == "__main__":
    sys.exit(main())
