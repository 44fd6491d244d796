"""A bot that plays over the network: ``scala40-bot HOST[:PORT] --table ID [--level …] [--name …]``.

It joins a table like a person (LobbyService.JoinTable), follows the table's
event stream, takes part in every fair deal with its own seed through the
library's ``SeatExchange`` (FAIR_DEAL.md), tells its bot every deal event as
its seat sees it (``wire.DealEventReader``), and after each event reads its
view (TableService.GetView, turned into the engine's view by ``wire``) and
moves when it is its turn, until the match ends.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import sys
import uuid

import grpc  # type: ignore[import-untyped]

from scala40_net import wire
from scala40_net.actions import Play
from scala40_net.bots import LEVELS, make_bot
from scala40_net.bots.base import Bot
from scala40_net.deal import Phase
from scala40_net.fairdeal.exchange import ExchangeError, SeatExchange
from scala40_net.pb import deal_pb2, lobby_pb2, lobby_pb2_grpc, table_pb2, table_pb2_grpc

log = logging.getLogger(__name__)

DEFAULT_PORT = wire.DEFAULT_PORT
CALL_TIMEOUT = 10.0


def parse_address(text: str) -> str:
    """``host``, ``host:port`` or ``[v6]:port`` as a gRPC target (default port 4040)."""
    if text.startswith("["):
        return text if "]:" in text else f"{text}:{DEFAULT_PORT}"
    if text.count(":") == 1:
        return text
    if ":" in text:
        return f"[{text}]:{DEFAULT_PORT}"
    return f"{text}:{DEFAULT_PORT}"


class NetworkSeat:
    """One bot seat at a remote table: the fair deal, the turns, the answer to a rientro."""

    def __init__(self, channel: grpc.aio.Channel, table_id: str, bot: Bot) -> None:
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(channel)  # type: ignore[no-untyped-call]
        self.tables = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]
        self.table_id = table_id
        self.bot = bot
        self.seat = -1
        self.metadata: tuple[tuple[str, str], ...] = ()
        self.last_seq = 0
        self.exchanges: dict[int, SeatExchange] = {}
        self.reader = wire.DealEventReader()

    def _context(self) -> table_pb2.MoveContext:
        return table_pb2.MoveContext(request_id=uuid.uuid4().hex, last_seen_seq=self.last_seq)

    async def join(self, name: str, password: str | None = None) -> int:
        request = lobby_pb2.JoinTableRequest(table_id=self.table_id, player_name=name)
        if password:
            request.password = password
        answer = await self.lobby.JoinTable(request, timeout=CALL_TIMEOUT)
        self.seat = answer.seat
        self.reader = wire.DealEventReader(self.seat)
        self.metadata = (("authorization", f"Bearer {answer.seat_token}"),)
        return self.seat

    async def play_match(self) -> tuple[int, ...]:
        """Follow the table until the match is over; returns the winning seats."""
        request = table_pb2.SubscribeEventsRequest(after_seq=self.last_seq)
        stream = self.tables.SubscribeEvents(request, metadata=self.metadata)
        async for response in stream:
            event = response.event
            self.last_seq = max(self.last_seq, event.seq)
            kind = event.WhichOneof("event")
            if kind == "deal":
                public = deal_pb2.DealEvent.FromString(event.deal.public_event)
                private = event.deal.private_event if event.deal.HasField("private_event") else None
                self._observe(public, private)
                await self._fair_deal(public)
            elif kind == "snapshot":
                # The deal so far, from its start: the bot's memory is rebuilt from it.
                self.reader = wire.DealEventReader(self.seat)
                for raw in event.snapshot.deal_events:
                    public = deal_pb2.DealEvent.FromString(raw)
                    self._observe(public, None)
                    await self._fair_deal(public)
            elif kind == "match_update":
                update = event.match_update
                if update.match_over:
                    stream.cancel()
                    return tuple(update.winners)
                if any(offer.seat == self.seat for offer in update.rientro_offers):
                    offer = next(o for o in update.rientro_offers if o.seat == self.seat)
                    answer = table_pb2.AnswerRientroRequest(
                        context=self._context(), buy_back=self.bot.buys_back(offer.fee)
                    )
                    await self.tables.AnswerRientro(
                        answer, metadata=self.metadata, timeout=CALL_TIMEOUT
                    )
            await self._move()
        return ()

    def _observe(
        self, public: deal_pb2.DealEvent, private: deal_pb2.PrivateDealEvent | None
    ) -> None:
        """Tell the bot what happened, as the engine event its seat sees (hard's memory)."""
        happened = self.reader.read(public, private)
        if happened is not None:
            self.bot.observe(happened)

    async def _fair_deal(self, event: deal_pb2.DealEvent) -> None:
        kind = event.WhichOneof("event")
        try:
            if kind == "announced":
                if (
                    self.seat in event.announced.seats_in_play
                    and event.deal_no not in self.exchanges
                ):
                    mine = self.exchanges[event.deal_no] = SeatExchange(self.seat)
                    mine.on_announced(event)
                    request = table_pb2.CommitSeedRequest(
                        context=self._context(), deal_no=event.deal_no, commitment=mine.commit()
                    )
                    await self.tables.CommitSeed(
                        request, metadata=self.metadata, timeout=CALL_TIMEOUT
                    )
                return
            known = self.exchanges.get(event.deal_no)
            if known is None:
                return
            mine = known
            if kind == "commitments":
                mine.on_commitments(event)
                reveal = mine.reveal()
                request_r = table_pb2.RevealSeedRequest(
                    context=self._context(), deal_no=event.deal_no, seed=reveal.seed, cut=reveal.cut
                )
                await self.tables.RevealSeed(
                    request_r, metadata=self.metadata, timeout=CALL_TIMEOUT
                )
            elif kind == "reveals":
                mine.on_reveals(event)
            elif kind == "host_seed_revealed":
                mine.on_host_seed(event)
                self.exchanges = {n: x for n, x in self.exchanges.items() if n >= event.deal_no}
        except ExchangeError as error:
            # A step seen twice after a reconnect, or a host that broke the protocol: the
            # seat's own checks refused it, and the deal's record will show it.
            log.warning("fair deal %d: %s", event.deal_no, error)

    async def _move(self) -> None:
        answer = await self.tables.GetView(
            table_pb2.GetViewRequest(), metadata=self.metadata, timeout=CALL_TIMEOUT
        )
        view = wire.deal_view_from_pb(answer.view)
        if view is None or view.turn != self.seat or view.hand is None:
            return
        if view.phase is Phase.DRAW:
            source = self.bot.choose_draw(view)
            request = table_pb2.DrawRequest(
                context=self._context(), source=wire.draw_source_to_pb(source)
            )
            await self._send(
                self.tables.Draw(request, metadata=self.metadata, timeout=CALL_TIMEOUT)
            )
            return
        play = self.bot.choose_play(view)
        if play is None:
            back = table_pb2.ReturnDiscardRequest(context=self._context())
            await self._send(
                self.tables.ReturnDiscard(back, metadata=self.metadata, timeout=CALL_TIMEOUT)
            )
            return
        await self._send_play(play)

    async def _send_play(self, play: Play) -> None:
        operations, discard = wire.play_to_pb(play)
        request = table_pb2.PlayRequest(context=self._context(), operations=operations)
        if discard is not None:
            request.discard = discard
        await self._send(self.tables.Play(request, metadata=self.metadata, timeout=CALL_TIMEOUT))

    async def _send(self, call: object) -> None:
        try:
            await call  # type: ignore[misc]
        except grpc.aio.AioRpcError as error:
            # A stale move (the table moved on since the view) is simply retried on the next
            # event; anything else is worth a line in the log.
            if error.code() is not grpc.StatusCode.FAILED_PRECONDITION:
                log.warning("move refused: %s %s", error.code(), error.details())


async def run(
    address: str,
    table_id: str,
    level: str = "medium",
    name: str | None = None,
    password: str | None = None,
    seed: int | None = None,
) -> tuple[int, ...]:
    """Join ``table_id`` at ``address`` as a bot of ``level`` and play the match to its end."""
    channel = grpc.aio.insecure_channel(parse_address(address), options=wire.CHANNEL_OPTIONS)
    try:
        seat = NetworkSeat(channel, table_id, make_bot(level, random.Random(seed)))
        await seat.join(name or f"{level} bot", password)
        return await seat.play_match()
    finally:
        await channel.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="scala40-bot", description="Play Scala 40 at a host's table as a bot."
    )
    parser.add_argument("address", metavar="HOST[:PORT]", help=f"the host (port {DEFAULT_PORT})")
    parser.add_argument("--table", required=True, help="the table id to join")
    parser.add_argument("--level", choices=LEVELS, default="medium")
    parser.add_argument("--name", help="the name shown at the table")
    parser.add_argument("--password", help="the table's password, if it has one")
    parser.add_argument("--seed", type=int, help="seed of the bot's own choices (not the deal)")
    options = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    try:
        winners = asyncio.run(
            run(
                options.address,
                options.table,
                options.level,
                options.name,
                options.password,
                options.seed,
            )
        )
    except grpc.aio.AioRpcError as error:
        print(f"scala40-bot: {error.details() or error.code().name}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    print("match over: winners " + ", ".join(f"seat {s}" for s in winners))
    return 0


if __name__ == "__main__":
    sys.exit(main())
