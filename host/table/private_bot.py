"""A host bot at a private table: a seat like any other, played inside the host.

It holds its own keys and plays its part of every deal with the seat-side code every client
uses (``scala40_net.seat.private_link.PrivateDeals``), fed the events its seat's stream
would carry and sending through the table's own jobs; it reads its hand from the other
seats' shares and decides on the seat's view (GetView), as ``scala40-bot`` does. The keys
are the host's (``host.table.bot_keys``), so the host can read this seat's hand: the lobby
and the screen say so (``SeatInfo.host_bot``). Its per-deal keys and messages are kept
owner-only beside the table's journal, so a host restarted mid-deal takes the deal up again.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

from host.table import bots
from host.table.bot_keys import bot_folder, host_bot_signer
from host.table.bots import Bot, InHostSeat, InHostTable, SeatDriver
from host.table.stand_in import stand_in_signer
from scala40_net import actions, deal, match, wire
from scala40_net.pb import table_pb2
from scala40_net.private.messages import Signer
from scala40_net.seat.link import SeatLink
from scala40_net.seat.netbot import plays_to_try
from scala40_net.seat.private_link import PrivateDeals
from scala40_net.seat.refusal import HostRefusal
from scala40_net.views import DealView

if TYPE_CHECKING:
    from host.table.table import Table
    from host.table.task import TableTask

log = logging.getLogger(__name__)


def new_driver(task: TableTask, seat: int) -> SeatDriver:
    """The driver of a host bot seat: at a private table a seat of its own keys, or of the
    keys its player handed to it (``host.table.stand_in``)."""
    bot = bots.seat_bot(task, seat)
    if not task.table.state.private_cards:
        return InHostSeat(task, seat, bot)
    folder = bot_folder(task.journal.path, seat)
    if not task.table.state.seats[seat].stand_in:
        return PrivateBotSeat(task, seat, bot, host_bot_signer(task.identity, task.table_id, seat))
    signer = stand_in_signer(folder)
    if signer is None:
        return LostStandIn(task, seat)
    return PrivateBotSeat(task, seat, bot, signer)


class LostStandIn:
    """A stand-in whose handed signing key is gone (a damaged or lost file): it cannot sign
    the seat's messages, so the seat is gone as a player past its grace is (R10.3)."""

    def __init__(self, task: TableTask, seat: int) -> None:
        self.task = task
        self.seat = seat

    async def step(self) -> None:
        await self.task.call(lambda table: table.stand_in_lost(self.seat))


class PrivateBotSeat:
    """Drives one host bot at a private table (``bots.SeatDriver``): ``heard`` is handed
    every event of its seat's stream, ``step`` acts on them."""

    def __init__(self, task: TableTask, seat: int, bot: Bot, signer: Signer) -> None:
        self.task = task
        self.seat = seat
        self.bot = bot
        self.table = InHostTable(task, seat)
        self.link = SeatLink(self.table, lambda: self.seen)
        self.seen = 0
        self._heard: list[table_pb2.TableEvent] = []
        self.deals = PrivateDeals(
            task.table_id,
            seat,
            signer,
            self.table.send_private,
            bot_folder(task.journal.path, seat),
        )

    def heard(self, events: Iterable[table_pb2.TableEvent]) -> None:
        self._heard.extend(events)

    async def step(self) -> None:
        heard, self._heard = self._heard, []
        for event in heard:
            self.seen = max(self.seen, event.seq)
            await self.deals.on_event(event)
        fee, to_move = await self.task.call(self._look)
        if fee is not None:
            await self.link.answer_rientro(self.bot.buys_back(fee))
            return
        if not to_move:
            return  # most wake-ups are another seat's message: no view is built for them
        answer = await self.table.view()
        view = wire.deal_view_from_pb(answer.view)
        if (
            view is None
            or view.turn != self.seat
            or view.phase not in (deal.Phase.DRAW, deal.Phase.PLAY)
        ):
            return
        # The hand as the host has it (its positions, the public cards it took), read with
        # the shares this seat holds, as every seat does before it moves.
        await self.deals.on_view(answer.view)
        hand = self.deals.read_hand()
        if hand is None:
            return  # a card of its hand unread: the other seats' shares wake it again
        view = dataclasses.replace(view, hand=tuple(hand))
        seen = answer.seq
        try:
            if view.phase is deal.Phase.DRAW:
                source = await asyncio.to_thread(self._choose_draw, view)
                await self.link.draw(wire.draw_source_to_pb(source), seen)
            else:
                await self._play(view, seen)
        except HostRefusal as refusal:
            if refusal.reason == "SHUFFLE_PENDING" or refusal.stale:
                return  # the last shuffle of the rebuilt stock, or the next event, wakes it
            raise

    def _look(self, table: Table) -> tuple[int | None, bool]:
        """In a job of the table: the fee of a buy-back on offer to this seat (R11.3), if
        one is, and whether the deal's turn is this seat's."""
        m = table.match
        if m is None:
            return None, False
        if m.phase is match.MatchPhase.RIENTRO:
            return (m.rientro_fee(self.seat) if self.seat in m.pending_rientro else None), False
        return None, m.phase is match.MatchPhase.IN_DEAL and m.deal is not None and (
            m.deal.turn == self.seat
        )

    def _choose_draw(self, view: DealView) -> actions.DrawSource:
        try:
            return self.bot.choose_draw(view)
        except Exception:  # a bot's bug never stalls its table: the stock
            log.exception("bot seat %d: choose_draw failed", self.seat)
            return actions.DrawSource.STOCK

    async def _play(self, view: DealView, seen: int) -> None:
        """The bot's play, else a bare discard, else the discard goes back (R3.2); the hand's
        cards each play lays or discards opened to everyone first (their positions named)."""
        assert view.hand is not None
        try:
            chosen = await asyncio.to_thread(self.bot.choose_play, view)
        except Exception:  # as in _choose_draw: a bare discard follows
            log.exception("bot seat %d: choose_play failed", self.seat)
            chosen = None
        for play in plays_to_try(chosen, view.hand):
            operations, discard = wire.play_to_pb(play)
            positions = await self.deals.open_for_play(play.cards_from_hand())
            try:
                await self.link.play(operations, discard, seen, positions)
                return
            except HostRefusal as refusal:
                if not refusal.broke_rule:
                    raise
        await self.link.return_discard(seen)

    def close(self) -> None:
        """Its deals' worker stops; the table's folder of bots goes once nothing is in it (a
        deal's files go at its end, ``seat.private.forget_deals``)."""
        self.deals.close()
        folder = self.deals.folder
        if folder is not None:
            with contextlib.suppress(OSError):  # a deal in play keeps its files
                folder.parent.rmdir()
