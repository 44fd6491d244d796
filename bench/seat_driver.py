"""The bench's scripted seats: a table played on the seat's stream with what a legal turn needs.

A ``ScriptedSeat`` holds one ``TableService.Seat`` stream and keeps only what a
legal draw and discard need: its hand (``HandDealt``, then each
``StockCardDrawn``, less each discard), whose turn it is (the seats in play,
``DealStarted.first_seat``, then clockwise after each ``Played``) and the
stock's count, so that it waits for ``StockRebuilt`` (R10.1) rather than draw
into a deal the rebuild may have ended (R10.2, S13). It takes part in every
fair deal (FAIR_DEAL.md steps 2 and 4: a fresh seed, the cutter's cut, the
commitment of ``spec.seat_commitment``), says Ready between deals, always
draws from the stock (R3.1) and discards the card it has held longest (no
meld is on the table, so R8.2 never forbids one; R3.3 concerns only a card
taken from the pile). No view, planner or bot search runs here: a seat's CPU
a play is about what the floor's driver spends (``floor.floor_table``), so the
host's figures are not its client's.

Every move is written on the stream by its request iterator from a queue, so a
move is handed over without awaiting; its answer, matched by request id,
sends the next (a draw's answer: the play). Any refusal ends the seat with
``SeatRefused``: a benchmark whose client makes an illegal move measures
nothing.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import grpc

from scala40_net.fairdeal import spec
from scala40_net.fairdeal.exchange import new_seed, random_cut
from scala40_net.pb import (
    deal_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    ruleset_pb2,
    table_pb2,
    table_pb2_grpc,
)

STOCK = deal_pb2.DRAW_SOURCE_STOCK


class SeatRefused(Exception):
    """The host refused one of the scripted seat's moves (its google.rpc.Status)."""


@dataclass
class Phase:
    """Set once every table has made its first play: from then on plays are timed and counted."""

    ready: asyncio.Event = field(default_factory=asyncio.Event)
    at: float = float("inf")  # perf_counter when it was set


@dataclass
class Arrivals:
    """When each event (by seq) reached one subscriber, perf_counter seconds."""

    at: dict[int, float] = field(default_factory=dict)
    opened: asyncio.Event = field(default_factory=asyncio.Event)  # its first message came


class ScriptedSeat:
    """One seat of a table on its stream: the fair deal, a draw from the stock and a discard."""

    def __init__(
        self,
        stub: table_pb2_grpc.TableServiceStub,
        table_id: str,
        seat: int,
        token: str,
        think: float,
        phase: Phase,
        first_play: asyncio.Event,
    ) -> None:
        self.table_id = table_id
        self.seat = seat
        self.think = think  # seconds before each draw
        self.phase = phase
        self.arrivals = Arrivals()
        self.plays: dict[int, float] = {}  # seq of an accepted Play's event -> when it was sent
        self.first_play = first_play  # set at the table's first accepted Play
        self.metadata = (("authorization", f"Bearer {token}"),)
        self._outbox: asyncio.Queue[table_pb2.SeatRequest | None] = asyncio.Queue()
        self._outbox.put_nowait(table_pb2.SeatRequest(subscribe=table_pb2.SubscribeEventsRequest()))
        self._call = stub.Seat(self._requests(), metadata=self.metadata)
        self._moves = 0  # request ids: unique at the table (the seat's number in them)
        self._sent: dict[str, float] = {}  # request id of a Play not yet answered -> sent at
        self._last_seq = 0
        self._hand: list[int] = []
        self._seats: list[int] = []  # in play this deal, ascending (clockwise)
        self._stock = 0
        self._last_player = 0  # the seat of the deal's last Played
        self._seed, self._cut, self._deal_no = b"", 0, 0
        self.match_over = False

    async def _requests(self) -> AsyncIterator[table_pb2.SeatRequest]:
        while (request := await self._outbox.get()) is not None:
            yield request

    def close(self) -> None:
        self._outbox.put_nowait(None)
        self._call.cancel()

    def _context(self) -> table_pb2.MoveContext:
        self._moves += 1
        return table_pb2.MoveContext(
            request_id=f"{self.seat}.{self._moves}", last_seen_seq=self._last_seq
        )

    async def run(self) -> None:
        """Follow the stream until the match is over (or the seat is cancelled)."""
        at = self.arrivals.at
        async for message in self._call:
            if message.HasField("answer"):
                self._answered(message.answer)
                continue
            event = message.event
            at[event.seq] = time.perf_counter()
            self._last_seq = event.seq
            self.arrivals.opened.set()
            kind = event.WhichOneof("event")
            if kind == "deal":
                self._deal_event(event.deal)
            elif kind == "match_update":
                update = event.match_update
                if update.match_over:
                    self.match_over = True
                    return
                pause = update.between_deals
                if (
                    update.HasField("between_deals")
                    and self.seat in pause.waiting_for_seats
                    and self.seat not in pause.ready_seats
                ):
                    ready = table_pb2.ReadyRequest(context=self._context())
                    self._outbox.put_nowait(table_pb2.SeatRequest(ready=ready))

    def _deal_event(self, envelope: table_pb2.DealEventEnvelope) -> None:
        public = deal_pb2.DealEvent.FromString(envelope.public_event)
        kind = public.WhichOneof("event")
        if kind == "played":
            played = public.played
            self._last_player = played.seat
            if not played.went_out and self._stock > 0 and self._after(played.seat) == self.seat:
                self._turn()
        elif kind == "drawn":
            if public.drawn.source == STOCK:
                self._stock -= 1
                if public.drawn.seat == self.seat:
                    self._hand.append(envelope.private_event.stock_card_drawn.card)
        elif kind == "stock_rebuilt":
            self._stock = public.stock_rebuilt.stock_count
            # The turn's Played came first, with the stock at 0: the next seat moves now.
            if self._after(self._last_player) == self.seat:
                self._turn()
        elif kind == "started":
            self._hand = list(envelope.private_event.hand_dealt.cards)
            self._stock = public.started.stock_count
            if public.started.first_seat == self.seat:
                self._turn()
        elif kind == "announced":
            self._announced(public)
        elif kind == "commitments" and public.deal_no == self._deal_no and self._seed:
            request = table_pb2.RevealSeedRequest(
                context=self._context(), deal_no=self._deal_no, seed=self._seed, cut=self._cut
            )
            self._outbox.put_nowait(table_pb2.SeatRequest(reveal_seed=request))

    def _announced(self, public: deal_pb2.DealEvent) -> None:
        """Step 2 of the fair deal: a fresh seed, and the cutter's cut (R2.2)."""
        announced = public.announced
        self._seats = sorted(announced.seats_in_play)
        if self.seat not in self._seats:
            self._seed = b""
            return
        self._deal_no = public.deal_no
        self._seed = new_seed()
        is_cutter = announced.cutter_seat == self.seat
        self._cut = random_cut(announced.deck_size) if is_cutter else 0
        commitment = spec.seat_commitment(
            self.table_id, self._deal_no, self.seat, self._seed, self._cut
        )
        request = table_pb2.CommitSeedRequest(
            context=self._context(), deal_no=self._deal_no, commitment=commitment
        )
        self._outbox.put_nowait(table_pb2.SeatRequest(commit_seed=request))

    def _after(self, seat: int) -> int:
        """The seat in play after ``seat``, clockwise (R2.4)."""
        later = [s for s in self._seats if s > seat]
        return later[0] if later else self._seats[0]

    def _turn(self) -> None:
        """This seat's turn: its draw from the stock, after thinking when it does."""
        if self.think > 0:
            asyncio.get_running_loop().call_later(self.think, self._draw)
        else:
            self._draw()

    def _draw(self) -> None:
        request = table_pb2.DrawRequest(context=self._context(), source=STOCK)
        self._outbox.put_nowait(table_pb2.SeatRequest(draw=request))

    def _answered(self, answer: table_pb2.SeatAnswer) -> None:
        kind = answer.WhichOneof("answer")
        if kind == "refused":
            raise SeatRefused(
                f"seat {self.seat} of table {self.table_id}: request {answer.request_id} "
                f"refused: {answer.refused.message}"
            )
        if kind == "draw":
            # The answer comes after the draw's event: the card is in hand already.
            context = self._context()
            request = table_pb2.PlayRequest(context=context, discard=self._hand.pop(0))
            self._sent[context.request_id] = time.perf_counter()
            self._outbox.put_nowait(table_pb2.SeatRequest(play=request))
        elif kind == "play":
            sent = self._sent.pop(answer.request_id)
            self.first_play.set()
            if sent >= self.phase.at:
                self.plays[answer.play.seq] = sent


class Spectator:
    """A spectator's SubscribeEvents stream: when each event reached it."""

    def __init__(self, stub: table_pb2_grpc.TableServiceStub, token: str) -> None:
        self.arrivals = Arrivals()
        self._call = stub.SubscribeEvents(
            table_pb2.SubscribeEventsRequest(),
            metadata=(("authorization", f"Bearer {token}"),),
        )

    async def run(self) -> None:
        at, opened = self.arrivals.at, self.arrivals.opened
        async for message in self._call:
            at[message.event.seq] = time.perf_counter()
            opened.set()

    def close(self) -> None:
        self._call.cancel()


class ScriptedTable:
    """2-seat matches of scripted seats and a spectator, one table after another; Plays timed.

    Each match is a new table (CreateTable, two joins, SpectateTable, StartMatch): its
    set-up is timed from CreateTable to its first accepted Play, and every Play sent
    once ``phase`` is ready is timed to the last of its three subscribers getting its
    event.
    """

    def __init__(
        self,
        channel: grpc.aio.Channel,
        think: float,
        phase: Phase,
        ruleset: ruleset_pb2.Ruleset | None = None,
    ) -> None:
        self.think = think
        self.phase = phase
        self.ruleset = ruleset  # None: the host's default rules
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        self.stub = table_pb2_grpc.TableServiceStub(channel)
        self.samples: list[float] = []  # milliseconds, plays sent once the phase is ready
        self.setup: list[float] = []  # milliseconds, CreateTable -> first Play accepted
        self.plays = 0  # plays accepted once the phase is ready
        self.matches = 0  # matches begun
        self.first_play = asyncio.Event()

    async def play(self, stop: asyncio.Event, once: bool = False) -> None:
        while not stop.is_set():
            await self.play_match(stop, once)
            if once:
                return

    async def play_match(self, stop: asyncio.Event, once: bool = False) -> None:
        began = time.perf_counter()
        self.matches += 1
        create = lobby_pb2.CreateTableRequest(name="bench", seats=2, ruleset=self.ruleset)
        table_id = (await self.lobby.CreateTable(create)).table_id
        seats = []
        first = asyncio.Event()
        for name in ("a", "b"):
            join = lobby_pb2.JoinTableRequest(table_id=table_id, player_name=name)
            joined = await self.lobby.JoinTable(join)
            think = self.think * random.uniform(0.5, 1.5)
            seats.append(
                ScriptedSeat(
                    self.stub, table_id, joined.seat, joined.seat_token, think, self.phase, first
                )
            )
        watch = await self.lobby.SpectateTable(lobby_pb2.SpectateTableRequest(table_id=table_id))
        spectator = Spectator(self.stub, watch.spectator_token)
        runs = [asyncio.create_task(s.run()) for s in seats]
        watching = asyncio.create_task(spectator.run())
        subscribers = [s.arrivals for s in seats] + [spectator.arrivals]
        try:
            opened = asyncio.gather(*(a.opened.wait() for a in subscribers))
            await _first(opened, [*runs, watching])
            start = lobby_pb2.StartMatchRequest(table_id=table_id)
            await self.lobby.StartMatch(start, metadata=seats[0].metadata)
            await _first(asyncio.ensure_future(first.wait()), [*runs, watching])
            self.setup.append((time.perf_counter() - began) * 1000)
            self.first_play.set()
            if not once:
                ending = asyncio.create_task(stop.wait())
                await asyncio.wait([ending, *runs], return_when=asyncio.FIRST_COMPLETED)
                ending.cancel()
                for run in runs:
                    if run.done() and run.exception() is not None:
                        raise run.exception()  # type: ignore[misc]
        finally:
            for seat in seats:
                seat.close()
            spectator.close()
            for task in [*runs, watching]:
                task.cancel()
            await asyncio.gather(*runs, watching, return_exceptions=True)
        for seat in seats:
            self.plays += len(seat.plays)
            for seq, sent in seat.plays.items():
                seen = [a.at[seq] for a in subscribers if seq in a.at]
                if len(seen) == len(subscribers):
                    self.samples.append((max(seen) - sent) * 1000)


async def _first(awaited: asyncio.Future[Any], runs: list[asyncio.Task[None]]) -> None:
    """Wait for ``awaited``; a stream that failed meanwhile raises its error instead."""
    done, _ = await asyncio.wait([awaited, *runs], return_when=asyncio.FIRST_COMPLETED)
    for run in runs:
        if run in done and run.exception() is not None:
            awaited.cancel()
            raise run.exception()  # type: ignore[misc]
    if awaited not in done:
        awaited.cancel()
        raise RuntimeError("a stream ended before the table was set up")
