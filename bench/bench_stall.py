"""Stall benchmark: the exact R10.2 check, timed on the positions where it runs (a rebuild due).

Run with ``make bench`` or ``.venv/bin/python bench/bench_stall.py``. Random legal
deals (the simulation's move generator) are played until their stock runs out;
each such position (table, every hand and the pile) is checked again and again.
Target: under 1 ms median, so a rebuild costs the table nothing it would notice.
"""

from __future__ import annotations

import random
import statistics
import time

from scala40_net.actions import Draw, DrawSource, RebuildStock
from scala40_net.deal import DealState, Phase, apply, start_deal
from scala40_net.melds import Meld
from scala40_net.movegen import first_legal_play
from scala40_net.rules import PRESETS, preset
from scala40_net.stall import OffTable, is_stalled

POSITIONS = 300
RUNS = 20


def rebuild_positions(
    count: int, rng: random.Random
) -> list[tuple[tuple[Meld, ...], list[int], int | None]]:
    """``count`` positions at the moment a rebuild is due: the table and every card off it."""
    found: list[tuple[tuple[Meld, ...], list[int], int | None]] = []
    k = 0
    while len(found) < count:
        players = 2 + k % 5
        rules = preset(PRESETS[k % len(PRESETS)], players)
        k += 1
        deck = list(range(rules.deck_size))
        rng.shuffle(deck)
        seats = tuple(range(players))
        state, _ = start_deal(rules, seats, seats[0], deck)
        found += _play_to_rebuilds(state, rng)
    return found[:count]


def _play_to_rebuilds(
    state: DealState, rng: random.Random
) -> list[tuple[tuple[Meld, ...], list[int], int | None]]:
    out: list[tuple[tuple[Meld, ...], list[int], int | None]] = []
    for _ in range(3000):
        if state.is_over:
            break
        if state.phase is Phase.REBUILD:
            off = [c for hand in state.hands for c in hand] + list(state.discard_pile)
            out.append((state.table, off, state.ruleset.max_run))
            order = list(state.discard_pile[:-1])
            rng.shuffle(order)
            state, _ = apply(state, None, RebuildStock(tuple(order)))
            continue
        seat = state.turn
        state, _ = apply(state, seat, Draw(DrawSource.STOCK))
        play = first_legal_play(state, seat)
        assert play is not None, "after a stock draw some play is always legal"
        state, _ = apply(state, seat, play)
    return out


def main() -> None:
    rng = random.Random(10)
    positions = rebuild_positions(POSITIONS, rng)
    samples: list[float] = []
    stalled = 0
    for table, off, max_run in positions:
        start = time.perf_counter_ns()
        for _ in range(RUNS):
            result = is_stalled(table, off, max_run)
        samples.append((time.perf_counter_ns() - start) / RUNS / 1e3)
        stalled += result
    tables = statistics.mean(len(t) for t, _, _ in positions)
    print(
        f"exact stall check (R10.2) at {len(positions)} rebuilds of random deals "
        f"({tables:.1f} melds on the table on average): {spread(samples)} ({stalled} stalled)"
    )
    # The dearest case: no new meld among the cards, so every table meld is asked in turn.
    every: list[float] = []
    for table, off, max_run in positions:
        start = time.perf_counter_ns()
        for _ in range(RUNS):
            cards = OffTable(off)
            for meld in table:
                cards.joins(meld, max_run)
        every.append((time.perf_counter_ns() - start) / RUNS / 1e3)
    print(f"  the same with every table meld asked: {spread(every)}")


def spread(samples: list[float]) -> str:
    ordered = sorted(samples)
    median = statistics.median(ordered)
    p99 = ordered[int(len(ordered) * 0.99)]
    return f"median {median:.1f} µs, p99 {p99:.1f} µs, max {ordered[-1]:.1f} µs"


if __name__ == "__main__":
    main()
