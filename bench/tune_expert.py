"""Duplicate heads-up deals between two bots, for tuning the expert's parameters by self-play.

Each deck is dealt twice by the same dealer, the two bots swapping seats, so
both play every hand and the luck of the deal cancels out of the comparison
(``bench_bots.py`` deals a new deck every deal). A bot is a level name, or
``expert:budget=400,candidates=4,horizon=5`` for an expert with other
parameters than its defaults. The deals run in parallel processes and are
derived from ``--seeds``, so a run replays exactly.

    .venv/bin/python bench/tune_expert.py expert hard --decks 150 --workers 2 --seeds d1
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from bench_bots import percentiles, wilson

from scala40_net.bots import LEVELS, Bot, make_bot
from scala40_net.bots.arena import Timings, play_deal
from scala40_net.bots.expert import ExpertBot
from scala40_net.rules import preset


def bot_of(spec: str, seed: int) -> Bot:
    level, _, options = spec.partition(":")
    if not options:
        return make_bot(level, random.Random(seed))
    if level != "expert":
        raise SystemExit(f"{spec!r}: only the expert takes parameters")
    values = {key: int(value) for key, _, value in (o.partition("=") for o in options.split(","))}
    return ExpertBot(random.Random(seed), **values)


def one_deal(args: tuple[str, str, int, int, str]) -> tuple[bool | None, dict[str, list[float]]]:
    """Deck ``k`` with ``first`` in seat ``swap`` (0 or 1): whether ``first`` went out first
    (None: a void deal), and the decision times by level."""
    first, second, k, swap, seeds = args
    specs = (first, second) if swap == 0 else (second, first)
    bots = {seat: bot_of(spec, k * 4 + seat + 2 * swap) for seat, spec in enumerate(specs)}
    timings = Timings()
    final = play_deal(
        bots, preset("classic", 2), dealer=k % 2, label=f"{seeds}-{k}", timings=timings
    )
    assert final.result is not None
    if final.result.closer is None:
        return None, timings.by_level
    return final.result.closer == swap, timings.by_level


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", help=f"a level ({', '.join(LEVELS)}) or expert:KEY=N,...")
    parser.add_argument("second")
    parser.add_argument("--decks", type=int, default=150, help="decks, each dealt twice")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seeds", default="tune", help="label the decks are derived from")
    options = parser.parse_args()
    jobs = [
        (options.first, options.second, k, swap, options.seeds)
        for k in range(options.decks)
        for swap in (0, 1)
    ]
    started = time.perf_counter()
    with ProcessPoolExecutor(options.workers) as pool:
        results = list(pool.map(one_deal, jobs, chunksize=4))
    wins = sum(won is True for won, _ in results)
    decided = sum(won is not None for won, _ in results)
    low, high = wilson(wins, decided)
    times: dict[str, list[float]] = {}
    for _, by_level in results:
        for level, samples in by_level.items():
            times.setdefault(level, []).extend(samples)
    print(
        f"{options.first} vs {options.second} ({os.cpu_count()} cores, {options.workers} "
        f"workers, seeds {options.seeds!r}): {options.first} wins {wins}/{decided} decided "
        f"deals = {wins / max(decided, 1):.1%} (95% Wilson {low:.1%}-{high:.1%}); "
        f"{len(results) - decided} void; {time.perf_counter() - started:.0f} s"
    )
    for level, samples in sorted(times.items()):
        median, p99 = percentiles(samples)
        print(
            f"  {level} decision: median {median:.2f} ms, p99 {p99:.2f} ms "
            f"(mean {statistics.fmean(samples) * 1e3:.2f} ms)"
        )


if __name__ == "__main__":
    main()
