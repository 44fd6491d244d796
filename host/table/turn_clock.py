"""The turn clock of a table: how long the seat to move has left, from the start of its turn.

A turn starts at the end of the previous one (or at the deal's start) and ends
with its discard. The clock only watches the table after each job; when it is
due the table's task has the host play that turn (``Table.play_timed_out_turn``).
It runs on the loop's monotonic clock and is told to clients only as a duration.
After a restart the turn being played starts its clock afresh.
"""

from __future__ import annotations

import asyncio

from host.table.table import Table
from scala40_net import deal, match

TurnKey = tuple[int, int, int]  # (deal, seat to move, turns played so far)


class TurnClock:
    """Started by each new turn, stopped when no turn is being played."""

    def __init__(self) -> None:
        self._turn: TurnKey | None = None
        self._due: float | None = None
        self._started: float | None = None

    def watch(self, table: Table) -> None:
        """After a job: a new turn starts the clock, no turn stops it."""
        key = _turn_of(table)
        if key is None or not table.state.turn_seconds:
            self._turn = self._due = self._started = None
        elif key != self._turn:
            self._turn = key
            self._started = _now()
            self._due = self._started + table.state.turn_seconds

    def restart(self, table: Table) -> None:
        """The running turn starts its clock again (more time was given)."""
        self._turn = None
        self.watch(table)

    def more_time(self, table: Table, grace_seconds: float) -> None:
        """The running turn's clock starts again, but the turn never lasts longer than its
        clock plus the grace period (the liveness rule, whatever anyone decides)."""
        if self._due is None or self._started is None:
            return
        latest = self._started + table.state.turn_seconds + grace_seconds
        self._due = min(_now() + table.state.turn_seconds, latest)

    def stop(self) -> None:
        """The running turn's clock has run out and nobody plays it for the seat (a private
        table's host cannot): it stays stopped until the next turn."""
        self._due = None

    @property
    def seat(self) -> int | None:
        return self._turn[1] if self._turn is not None else None

    def remaining(self) -> float | None:
        """Seconds left for the seat to move; None when no clock runs."""
        if self._due is None:
            return None
        return max(0.0, self._due - _now())


def _turn_of(table: Table) -> TurnKey | None:
    state, m = table.state.deal_state, table.state.match
    if m is None or m.phase is not match.MatchPhase.IN_DEAL or state is None:
        return None
    if state.phase not in (deal.Phase.DRAW, deal.Phase.PLAY):
        return None
    return (table.state.deal_no, state.turn, sum(state.turns_played))


def _now() -> float:
    return asyncio.get_running_loop().time()
