"""A bot that plays one seat over gRPC, exactly as a client in another process would.

It follows its seat's event stream, takes part in the fair-deal exchange with
its own seed (``SeatExchange``), asks GetView when a move may be its own and
decides with a ``Bot``. Tests and the benchmark play whole matches with it;
it keeps every byte the host sent it, so tests can check what a seat saw.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

import grpc

from host.bots import Bot, SimpleBot, new_request_id
from scala40_net import actions, wire
from scala40_net.fairdeal.exchange import SeatExchange
from scala40_net.pb import deal_pb2, table_pb2, table_pb2_grpc

log = logging.getLogger(__name__)

# Events after which the seat to move may have changed, or its phase.
TURN_EVENTS = {"started", "drawn", "played", "discard_returned", "stock_rebuilt"}


@dataclass
class SeatLog:
    """What a seat received: every stream message's bytes, and its own fair-deal secrets."""

    messages: list[bytes] = field(default_factory=list)
    events: list[table_pb2.TableEvent] = field(default_factory=list)
    seeds: dict[int, tuple[bytes, int]] = field(default_factory=dict)  # deal_no -> (seed, cut)
    signed: list[table_pb2.DealSigned] = field(default_factory=list)
    views: list[bytes] = field(default_factory=list)  # every GetViewResponse, as received
    received_at: list[float] = field(default_factory=list)  # perf_counter() at each message
    refusals: list[str] = field(default_factory=list)


class RemoteSeat:
    """One seat played over a channel with its token."""

    def __init__(
        self,
        channel: grpc.aio.Channel,
        token: str,
        seat: int,
        bot: Bot | None = None,
        *,
        fair: bool = True,
        think: float = 0.0,
    ) -> None:
        self.stub = table_pb2_grpc.TableServiceStub(channel)
        self.metadata = (("authorization", f"Bearer {token}"),)
        self.seat = seat
        self.bot = bot or SimpleBot()
        self.fair = fair  # False: a seat that never commits (to test the timeouts)
        self.think = think  # seconds to wait before each draw, as a person would
        self.log = SeatLog()
        self.last_seq = 0
        self.exchanges: dict[int, SeatExchange] = {}
        self.match_over = asyncio.Event()
        self.seats_in_play: list[int] = []

    async def run(self) -> None:
        """Play until the match is over; run it again after a disconnect to resume.

        A reader task takes the stream's messages as they come (and notes when),
        so the stream keeps flowing while this seat waits on its own calls.
        """
        stream = self.stub.SubscribeEvents(
            table_pb2.SubscribeEventsRequest(after_seq=self.last_seq), metadata=self.metadata
        )
        inbox: asyncio.Queue[tuple[float, table_pb2.SubscribeEventsResponse] | None] = (
            asyncio.Queue()
        )

        async def read() -> None:
            try:
                async for message in stream:
                    inbox.put_nowait((time.perf_counter(), message))
            finally:
                inbox.put_nowait(None)

        reader = asyncio.create_task(read())
        try:
            if self.last_seq:
                # Back after a disconnect: it may be this seat's move with no new event to say so.
                await self._maybe_move()
            while (item := await inbox.get()) is not None:
                received_at, message = item
                self.log.received_at.append(received_at)
                self.log.messages.append(message.SerializeToString())
                event = message.event
                self.log.events.append(event)
                self.last_seq = event.seq
                await self._on_event(event)
                if self.match_over.is_set():
                    return
            await reader  # the stream ended: raise what ended it, if anything did
        finally:
            reader.cancel()
            stream.cancel()

    async def _on_event(self, event: table_pb2.TableEvent) -> None:
        which = event.WhichOneof("event")
        if which == "snapshot":
            for data in event.snapshot.deal_events:
                await self._on_deal_event(deal_pb2.DealEvent.FromString(data), replaying=True)
            await self._maybe_move()
        elif which == "deal":
            await self._on_deal_event(deal_pb2.DealEvent.FromString(event.deal.public_event))
        elif which == "deal_signed":
            self.log.signed.append(event.deal_signed)
        elif which == "match_update":
            if event.match_update.match_over:
                self.match_over.set()
            elif any(o.seat == self.seat for o in event.match_update.rientro_offers):
                answer = table_pb2.AnswerRientroRequest(
                    context=self._context(), buy_back=self.bot.buys_back(0)
                )
                await self._call(self.stub.AnswerRientro, answer)

    async def _on_deal_event(self, event: deal_pb2.DealEvent, replaying: bool = False) -> None:
        which = event.WhichOneof("event")
        deal_no = event.deal_no
        if which == "announced":
            self.seats_in_play = sorted(event.announced.seats_in_play)
            if self.seat not in event.announced.seats_in_play:
                return
            mine = self.exchanges[deal_no] = SeatExchange(self.seat)
            mine.on_announced(event)
            if self.fair and not replaying:
                commitment = mine.commit()
                self.log.seeds[deal_no] = (mine.seed, mine.cut)
                request = table_pb2.CommitSeedRequest(
                    context=self._context(), deal_no=deal_no, commitment=commitment
                )
                await self._call(self.stub.CommitSeed, request)
        elif which == "commitments":
            mine_or_none = self.exchanges.get(deal_no)
            if mine_or_none is None or mine_or_none.commitment is None or replaying:
                return
            mine_or_none.on_commitments(event)  # raises RevealRefused when the host cheats
            reveal = mine_or_none.reveal()
            revealing = table_pb2.RevealSeedRequest(
                context=self._context(), deal_no=deal_no, seed=reveal.seed, cut=reveal.cut
            )
            await self._call(self.stub.RevealSeed, revealing)
        elif which == "reveals":
            mine_or_none = self.exchanges.get(deal_no)
            if mine_or_none is not None and mine_or_none.commitment is not None and not replaying:
                mine_or_none.on_reveals(event)  # raises HostMisbehaved when the host cheats
        elif which == "host_seed_revealed":
            mine_or_none = self.exchanges.pop(deal_no, None)
            if mine_or_none is not None and mine_or_none.commitment is not None and not replaying:
                mine_or_none.on_host_seed(event)
        if which in TURN_EVENTS and not replaying and self._may_be_my_move(event):
            await self._maybe_move()

    def _may_be_my_move(self, event: deal_pb2.DealEvent) -> bool:
        """Whether to ask for the view: another seat's draw, or a play not just before this
        seat's turn (play passes clockwise, R2.4), never makes it this seat's move."""
        which = event.WhichOneof("event")
        if which == "drawn":
            return event.drawn.seat == self.seat
        if which == "discard_returned":
            return event.discard_returned.seat == self.seat
        if which == "played" and self.seat in self.seats_in_play:
            order = self.seats_in_play
            following = order[(order.index(event.played.seat) + 1) % len(order)]
            return following == self.seat
        return True

    def _context(self, last_seen_seq: int | None = None) -> table_pb2.MoveContext:
        seq = self.last_seq if last_seen_seq is None else last_seen_seq
        return table_pb2.MoveContext(request_id=new_request_id(), last_seen_seq=seq)

    async def _call(self, method: object, request: object) -> object | None:
        try:
            answer: object = await method(request, metadata=self.metadata)  # type: ignore[operator]
            return answer
        except grpc.aio.AioRpcError as error:
            # A refused move is not fatal: the next event brings a fresh view.
            self.log.refusals.append(f"{error.code().name}: {error.details()}")
            return None

    async def _maybe_move(self) -> None:
        response = await self.stub.GetView(table_pb2.GetViewRequest(), metadata=self.metadata)
        self.log.views.append(response.SerializeToString())
        view = wire.deal_view_from_pb(response.view)
        if view is None or view.turn != self.seat:
            return
        if view.phase.value == "draw":
            if self.think:
                await asyncio.sleep(self.think)
            source = self.bot.choose_draw(view)
            request = table_pb2.DrawRequest(
                context=self._context(response.seq), source=wire.draw_source_to_pb(source)
            )
            await self._call(self.stub.Draw, request)
            return
        assert view.hand is not None
        chosen = self.bot.choose_play(view)
        tries = [] if chosen is None else [chosen]
        tries += [actions.Play((), card) for card in reversed(view.hand)]
        for play in tries:
            request_play = table_pb2.PlayRequest(
                context=self._context(response.seq),
                operations=[wire.operation_to_pb(op) for op in play.operations],
            )
            if play.discard is not None:
                request_play.discard = play.discard
            try:
                await self.stub.Play(request_play, metadata=self.metadata)
                return
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                    raise
                self.log.refusals.append(f"{error.code().name}: {error.details()}")
        back = table_pb2.ReturnDiscardRequest(context=self._context(response.seq))
        await self._call(self.stub.ReturnDiscard, back)
