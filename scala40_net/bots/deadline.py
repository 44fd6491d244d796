"""How long a deal lasts before another seat goes out: the expert's clock at larger tables.

The expert's races (``race``) let the seat play on alone; at a larger table
somebody else often goes out first, and what the seat pays then (R9.4,
R9.5) is the deal. How soon an opponent goes out depends most on whether it
has opened and, once opened, how many cards it holds; the chances below were
measured over hard bots' self-play at 4-player tables
(``bench/measure_deadlines.py`` prints them), one opponent at a time, and the
opponents are taken as independent of each other.
"""

from __future__ import annotations

from scala40_net.deal import DealState

# `bench/measure_deadlines.py --seats 4 --deals 1600` (seeds 'deadlines').
# (opened, bucket) -> the chance the opponent has not gone out in the rounds after
# the seat's next 1, 2, ... 6 plays. The bucket is the hand's size once opened (8:
# eight or more), and before it the opponent's turns played, by threes (2: six or more).
SURVIVAL: dict[tuple[bool, int], tuple[float, ...]] = {
    (False, 0): (0.996, 0.978, 0.944, 0.893, 0.823, 0.750),  # 27035 notes
    (False, 1): (0.984, 0.954, 0.909, 0.842, 0.764, 0.683),  # 9920 notes
    (False, 2): (0.956, 0.899, 0.826, 0.730, 0.637, 0.478),  # 1580 notes
    (True, 1): (0.672, 0.473, 0.339, 0.239, 0.165, 0.094),  # 6402 notes
    (True, 2): (0.921, 0.802, 0.671, 0.565, 0.454, 0.367),  # 6686 notes
    (True, 3): (0.842, 0.718, 0.611, 0.498, 0.401, 0.338),  # 8239 notes
    (True, 4): (0.952, 0.841, 0.714, 0.597, 0.498, 0.397),  # 8324 notes
    (True, 5): (0.988, 0.938, 0.858, 0.757, 0.676, 0.606),  # 4695 notes
    (True, 6): (0.990, 0.940, 0.850, 0.749, 0.658, 0.577),  # 6243 notes
    (True, 7): (0.997, 0.964, 0.894, 0.800, 0.698, 0.603),  # 6103 notes
    (True, 8): (0.997, 0.969, 0.900, 0.825, 0.732, 0.612),  # 1137 notes
}


def bucket(state: DealState, other: int) -> tuple[bool, int]:
    """The row of ``SURVIVAL`` for seat ``other`` as the deal stands."""
    if state.has_opened(other):
        return True, max(1, min(len(state.hand(other)), 8))
    return False, min(state.turns_played[state.seats.index(other)] // 3, 2)


def survival(state: DealState, seat: int, rounds: int) -> tuple[float, ...]:
    """The chance that no other seat has gone out in the rounds after each of ``seat``'s
    next ``rounds`` plays (beyond the table's six, its last round's rate goes on)."""
    alive = [1.0] * rounds
    for other in state.seats:
        if other == seat:
            continue
        row = SURVIVAL[bucket(state, other)]
        for p in range(rounds):
            alive[p] *= _at(row, p)
    return tuple(alive)


def _at(row: tuple[float, ...], p: int) -> float:
    if p < len(row):
        return row[p]
    rate = row[-1] / row[-2] if row[-2] > 0 else 0.0
    return row[-1] * rate ** (p - len(row) + 1)
