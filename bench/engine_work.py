"""A fixed piece of engine work, to be counted in instructions rather than timed.

On a shared machine wall-clock figures move with the load; the instructions a
fixed workload takes do not. Count them with valgrind, and subtract the count
of ``none`` (the imports alone)::

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        .venv/bin/python bench/engine_work.py opening 10000

``opening N``: ``best_opening`` on the first N of the 10,000 hands of
``bench_bots.py`` (seed 40), each once, as that benchmark times them;
``medium N``: N of its classic 4-player deals of medium bots; ``hard N``: N
heads-up deals of hard against medium (its strength pairing's seeds). Run it
with ``PYTHONPATH`` at another checkout to count the code before a change.
"""

from __future__ import annotations

import argparse
import random

from scala40_net.bots import make_bot
from scala40_net.bots.arena import play_deal
from scala40_net.rules import preset
from scala40_net.search import best_opening


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", choices=["none", "opening", "medium", "hard"])
    parser.add_argument("count", type=int, nargs="?", default=0)
    options = parser.parse_args()
    if options.work == "opening":
        rng = random.Random(40)
        deck = list(range(108))
        hands = [rng.sample(deck, 14) for _ in range(10_000)]
        for hand in hands[: options.count]:
            best_opening(hand)
    elif options.work == "medium":
        rules = preset("classic", 4)
        for k in range(options.count):
            bots = {s: make_bot("medium", random.Random(k * 4 + s)) for s in range(4)}
            play_deal(bots, rules, dealer=k % 4, label=f"bench-4p-{k}")
    elif options.work == "hard":
        for k in range(options.count):
            levels = ("hard", "medium") if k % 4 < 2 else ("medium", "hard")
            bots = {s: make_bot(level, random.Random(k * 2 + s)) for s, level in enumerate(levels)}
            play_deal(bots, preset("classic", 2), dealer=k % 2, label=f"strength-{k}")


if __name__ == "__main__":
    main()
