"""The conformance check's host bots: they draw and discard, never lay, so the stock runs out.

Each host bot seat of the conformance table is the host's own ``InHostSeat``
with ``DrawingBot`` (the stock, then a bare discard); the cutter of the first
deal is that seat inside ``SilentInFirstDeal``, which sends no commitment for
deal 1, so the deal goes on without it and its cut is derived (FAIR_DEAL.md).
"""

from __future__ import annotations

import asyncio

from host.table.bots import InHostSeat, run_bot_seat
from host.table.task import BotRunner, TableTask
from scala40_net import actions, views
from scala40_net.pb import table_pb2

FIRST_COMMIT = table_pb2.TURN_PHASE_COMMIT


class DrawingBot:
    """Draws from the stock and discards the card it drew: nothing is ever laid."""

    def choose_draw(self, view: views.DealView) -> actions.DrawSource:
        return actions.DrawSource.STOCK

    def choose_play(self, view: views.DealView) -> actions.Play | None:
        assert view.hand is not None
        return actions.Play((), view.hand[-1])

    def buys_back(self, fee: int) -> bool:
        return False


class SilentInFirstDeal:
    """A host bot seat that lets the commitment step of deal 1 pass without a word."""

    def __init__(self, seat: InHostSeat) -> None:
        self._seat = seat

    async def step(self) -> None:
        current = self._seat.task.table.current
        if current is not None and (current.deal_no, current.step) == (1, FIRST_COMMIT):
            return
        await self._seat.step()


def seat_runner(silent_seat: int) -> BotRunner:
    """The host's ``BotRunner`` for the conformance table."""

    def run(task: TableTask, seat: int) -> asyncio.Task[None]:
        driver = InHostSeat(task, seat, DrawingBot())
        if seat == silent_seat:
            return asyncio.create_task(run_bot_seat(task, seat, driver=SilentInFirstDeal(driver)))
        return asyncio.create_task(run_bot_seat(task, seat, driver=driver))

    return run
