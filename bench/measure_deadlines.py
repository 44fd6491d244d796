"""How long an opponent takes to go out, by its state: the table of ``bots/deadline.py``.

Hard bots play whole deals against each other at tables of ``--seats``
(fixed seeds, so a run replays exactly). After each play of each seat, every
other seat's state is noted (opened or not, its hand's size or its turns
played: ``deadline.bucket``) with how many rounds later it went out, or
that the deal ended otherwise first. The chance it has not gone out after
1 … 6 rounds is the Kaplan-Meier estimate over those notes, printed as the
``SURVIVAL`` literal.

    .venv/bin/python bench/measure_deadlines.py --seats 4 --deals 1600
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict

from scala40_net.bots import Bot, make_bot
from scala40_net.bots.arena import play_deal
from scala40_net.bots.deadline import bucket
from scala40_net.deal import DealState, Phase
from scala40_net.rules import preset

ROUNDS = 6
Note = tuple[tuple[bool, int], int, bool]  # the bucket, rounds followed, whether it went out


def one_deal(seats: int, k: int, label: str) -> list[Note]:
    """The notes of deal ``k``: after each play that did not end it, one per other seat."""
    order = list(range(seats))
    bots: dict[int, Bot] = {s: make_bot("hard", random.Random(k * 10 + s)) for s in order}
    plays: dict[int, int] = defaultdict(int)
    noted: list[tuple[int, int, tuple[bool, int], int]] = []  # seat, its play, bucket, other
    last_play: list[tuple[int, int, tuple[bool, int], int]] = []

    def note(state: DealState) -> None:
        # A play changes no other seat's hand, so the state before it tells their buckets.
        nonlocal last_play
        if state.phase is not Phase.PLAY:
            last_play = []
            return
        seat = state.turn
        plays[seat] += 1
        last_play = [(seat, plays[seat], bucket(state, o), o) for o in order if o != seat]
        noted.extend(last_play)

    final = play_deal(
        bots, preset("classic", seats), k % seats, f"{label}-{seats}-{k}", on_turn=note
    )
    assert final.result is not None
    # Notes of the play that ended the deal are not kept: nothing came after it.
    kept = noted[: len(noted) - len(last_play)]
    closer = final.result.closer
    return [(b, plays[s] - i + 1, other == closer) for s, i, b, other in kept]


def kaplan_meier(notes: list[Note]) -> dict[tuple[bool, int], tuple[int, list[float]]]:
    by_bucket: dict[tuple[bool, int], list[tuple[int, bool]]] = defaultdict(list)
    for b, rounds, out in notes:
        by_bucket[b].append((rounds, out))
    table = {}
    for b, items in sorted(by_bucket.items()):
        alive, row = 1.0, []
        for p in range(1, ROUNDS + 1):
            at_risk = sum(1 for r, _ in items if r >= p)
            gone = sum(1 for r, went in items if r == p and went)
            if at_risk:
                alive *= 1 - gone / at_risk
            row.append(alive)
        table[b] = (len(items), row)
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--deals", type=int, default=1600)
    parser.add_argument("--seeds", default="deadlines", help="label the decks are derived from")
    options = parser.parse_args()
    notes = [n for k in range(options.deals) for n in one_deal(options.seats, k, options.seeds)]
    print(f"# {options.deals} deals of hard bots at {options.seats} seats, seeds {options.seeds!r}")
    print("SURVIVAL: dict[tuple[bool, int], tuple[float, ...]] = {")
    for b, (count, row) in kaplan_meier(notes).items():
        values = ", ".join(f"{v:.3f}" for v in row)
        print(f"    {b}: ({values}),  # {count} notes")
    print("}")


if __name__ == "__main__":
    main()
