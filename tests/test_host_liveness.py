"""The liveness rule, whatever anyone decides: no table waits on one seat longer than its clock
plus the grace period (hypothesis, on the table's own clocks run on a loop whose time the test
moves)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st
from test_host_table_memory import config, new_task

from host.journal.memory import MemoryJournal
from host.table.absences import MORE_TIME_PER_DEAL, Absences
from host.table.fanout import Fanout
from host.table.table import Table
from host.table.turn_clock import TurnClock
from scala40_net.match import MatchPhase, start_match
from scala40_net.pb import lobby_pb2
from scala40_net.scenario import position

TURN, GRACE = 30, 20
# Each step: how long passes, then whether the decider asks for more time.
STEPS = st.lists(st.tuples(st.floats(0, 3 * GRACE), st.booleans()), max_size=30)


class MovedTimeLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock says what the test sets."""

    now = 1_000.0

    def time(self) -> float:
        return self.now


def on_moved_time(check: Callable[[MovedTimeLoop], None]) -> None:
    loop = MovedTimeLoop()

    async def run() -> None:
        check(loop)

    try:
        loop.run_until_complete(run())
    finally:
        loop.close()


def a_turn_being_played() -> Table:
    """A table of two people, seat 0 to draw in deal 1, its clock TURN and grace GRACE."""
    table = config(2)
    table.turn_seconds, table.grace_seconds = TURN, GRACE
    task = new_task(MemoryJournal(), table, bots=False)
    state = task.table.state
    ruleset = state.ruleset
    deal = position(ruleset, hands={0: "2C 3D", 1: "4C 5D"}, turn=0, dealer=1)
    started = start_match(ruleset, (0, 1), 1)
    state.match = replace(started, deal=deal, phase=MatchPhase.IN_DEAL, deal_no=1)
    state.phase = lobby_pb2.TABLE_PHASE_PLAYING
    state.deal_no = 1
    for n, name in enumerate(("Ann", "Bea")):
        state.seats[n].name, state.seats[n].taken = name, True
    return task.table


@settings(deadline=None, max_examples=60)
@given(STEPS)
def test_a_turn_ends_by_its_clock_plus_the_grace_period_whatever_is_decided(
    steps: list[tuple[float, bool]],
) -> None:
    def check(loop: MovedTimeLoop) -> None:
        table = a_turn_being_played()
        clock = TurnClock()
        clock.watch(table)
        started = loop.now
        for wait, more in steps:
            loop.now += wait
            left = clock.remaining()
            assert left is not None
            if left == 0:
                break  # the clock ran out: the table's task plays the turn now
            assert loop.now + left <= started + TURN + GRACE
            if more:
                clock.more_time(table, GRACE)

    on_moved_time(check)


@settings(deadline=None, max_examples=60)
@given(STEPS)
def test_a_seat_without_a_stream_is_handed_over_by_two_grace_periods_whatever_is_decided(
    steps: list[tuple[float, bool]],
) -> None:
    def check(loop: MovedTimeLoop) -> None:
        table = a_turn_being_played()
        absences = Absences()
        absences.watch(table, Fanout())  # nobody has a stream: both grace periods start
        gone = loop.now
        granted = 0
        for wait, more in steps:
            loop.now += wait
            if loop.now >= gone + 2 * GRACE:
                assert 1 in absences.due(GRACE)
            if more:
                granted += absences.more_time(1, table.state.deal_no, GRACE)
        assert granted <= MORE_TIME_PER_DEAL
        loop.now = gone + 2 * GRACE
        assert 1 in absences.due(GRACE)

    on_moved_time(check)
