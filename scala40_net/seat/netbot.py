"""A bot that plays over the network: ``scala40-bot HOST[:PORT] --table ID [--level …] [--name …]``.

It proves its joins with a player key of its own (``--key-file``, else one per
name made under its data dir), as a player's screen does: its matches are rated
for that key, and started again it is given its seat back.

It joins a table like a person (LobbyService.JoinTable), or takes up a seat
already joined with its token, and plays it through the seat's link of this
package over gRPC, as a player's screen does: it follows the table's event
stream (``seat.stream``), moves through ``seat.link``, and takes part in
every fair deal with its own seed (``seat.fairdeal``, FAIR_DEAL.md). It tells
its bot every deal event as its seat sees it (``wire.DealEventReader``), keeps
its view of the deal from those events (``views.after_event``: it reads the
view, TableService.GetView turned into the engine's view by ``wire``, only at
a deal's start, after a reconnect and when the host says its view was stale),
and moves until the match ends — exactly as a client in another process would.
``play_to_end`` carries on across a dropped connection or a host restart:
it reconnects with its seat token (with backoff), resumes its stream after
the last event it saw, and sends its commitment and reveal again with the
same request ids, so the host counts them once and never leaves it out; a host
silent for longer than its patience is given up (``HostLost``), and any other
answer that ends its stream ends the bot. Given a ``SeatLog`` it keeps every
byte the host sent it, so a test can check what a seat saw; the host's tests
and benchmark play their matches with it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import random
import sys
import urllib.parse
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# grpc is typed only where types-grpcio is installed.
import grpc  # type: ignore[import-untyped,unused-ignore]
import platformdirs

from scala40_net import collector, invite, names, views, wire
from scala40_net.actions import DrawSource, Play
from scala40_net.bots import LEVELS, make_bot
from scala40_net.bots.base import Bot
from scala40_net.deal import Phase
from scala40_net.events import DealStarted, Event
from scala40_net.fairdeal.exchange import ExchangeError
from scala40_net.fairdeal.identity import IdentityError
from scala40_net.fairdeal.record import DealRecord
from scala40_net.fairdeal.replay import replay_deal
from scala40_net.fairdeal.verify import VerificationFailed, verify_record
from scala40_net.net import tls
from scala40_net.pb import (
    deal_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    players_pb2_grpc,
    table_pb2,
    table_pb2_grpc,
)
from scala40_net.players import PlayerKey
from scala40_net.private.chain import Fault
from scala40_net.private.messages import Ed25519Signer, Signer
from scala40_net.private.record import verify_private_record
from scala40_net.seat.fairdeal import FairDealSteps
from scala40_net.seat.link import CALL_TIMEOUT, GrpcTable, SeatLink, bearer, resend
from scala40_net.seat.private import deal_folder
from scala40_net.seat.private_link import PrivateDeals, is_private, signing_key_at
from scala40_net.seat.proof import add_proof
from scala40_net.seat.refusal import HostRefusal
from scala40_net.seat.stream import RECONNECT_CODES, HostLost, ResumableStream
from scala40_net.views import DealView

log = logging.getLogger(__name__)

DEFAULT_PORT = wire.DEFAULT_PORT

__all__ = ["CALL_TIMEOUT", "RECONNECT_CODES", "HostLost", "NetworkSeat", "SeatLog", "main"]

# How long scala40-bot waits for a host that stopped answering (a restart takes seconds;
# meanwhile the host's turn clock plays the seat), counted from the moment the connection
# dropped; a connection that comes back, however briefly, starts the count again.
PATIENCE = 600.0

# How long scala40-bot stays after a match for another (--rematch-wait): the time a host
# keeps a finished match before it archives it (archive_after).
REMATCH_WAIT = 300.0

# How often a seat decides again when its view was stale.
MOVE_TRIES = 3

# Deal events after which the seat to move may have changed, or its phase.
TURN_EVENTS = {"started", "drawn", "played", "discard_returned", "stock_rebuilt"}


DATA_DIR_VARIABLE = "SCALA40_BOT_DATA_DIR"


def data_dir() -> Path:
    """scala40-bot's own data directory: ``SCALA40_BOT_DATA_DIR`` if set, else the
    platform's (not the screen's: a bot is a player of its own)."""
    override = os.environ.get(DATA_DIR_VARIABLE)
    return Path(override) if override else Path(platformdirs.user_data_dir("scala40-bot"))


def default_key_file(directory: Path, name: str) -> Path:
    """Where the key of the bot called ``name`` is kept: one key per name (as names are
    compared), so that two bots of one machine at one table are two players, and a bot
    started again under its name is the same player, with its seat and its rating."""
    return directory / "keys" / (urllib.parse.quote(names.fold(name), safe="") + ".pem")


def parse_address(text: str) -> str:
    """``host``, ``host:port`` or ``[v6]:port`` as a gRPC target (default port 4040)."""
    return invite.parse(text).address


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
    #: At a private table: every fault this seat's checks found in a relayed message.
    faults: list[Fault] = field(default_factory=list)


class NetworkSeat:
    """One bot seat at a remote table: the fair deal, the turns, the answer to a rientro."""

    def __init__(
        self,
        channel: grpc.aio.Channel,
        table_id: str,
        bot: Bot,
        *,
        log: SeatLog | None = None,
        fair: bool = True,
        think: float = 0.0,
        trace: Callable[[str], None] | None = None,
        pin: tls.PinnedHost | None = None,
    ) -> None:
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        self.players = players_pb2_grpc.PlayersServiceStub(channel)
        # Its token once the seat is taken; the pin tells another host from one that is down.
        self.table = GrpcTable(channel, "", pin=pin)
        self.link = SeatLink(self.table, lambda: self.last_seq)
        self.stream = ResumableStream(self.table, lambda: self.last_seq)
        self.table_id = table_id
        self.bot = bot
        self.log = log
        self.fair = fair  # False: a seat that never commits (to test the deadlines)
        self.think = think  # seconds to wait before each draw, as a person would
        # Told "event SEQ KIND" for each stream message and "reconnect CODE" for each drop:
        # what a test reads to see that a seat resumed with no gap (scala40-bot --record-dir).
        self.trace = trace
        self.seat = -1
        self.last_seq = 0
        # This seat's part of each deal's fair deal; a commitment or reveal not yet answered
        # is sent again, with its request id, after a reconnect.
        self.steps = FairDealSteps(self.link)
        self.reader = wire.DealEventReader()
        self.seats_in_play: list[int] = []
        self.winners: tuple[int, ...] | None = None  # set when the match is over
        # Told of each deal's end: its signature, then the scores after it.
        self.on_deal_over: (
            Callable[[table_pb2.DealSigned, table_pb2.MatchUpdate], Awaitable[None]] | None
        ) = None
        self._signed: table_pb2.DealSigned | None = None
        # This seat's view of the deal and the seq of the event it is at, carried from event
        # to event of this stream (``views.after_event``); None: ask the host for it.
        self._known: tuple[DealView, int] | None = None
        # The offer this seat last answered, by how many times it had bought back in then
        # (R11.3): every update until the host has the answer still lists the offer.
        self._answered_offer: int | None = None
        # After a match, how long ``play_to_end`` stays for another (0: it leaves at once).
        # A bot never asks for one: it agrees once someone else has (TableService.Rematch).
        self.rematch_wait = 0.0
        self.matches = 0  # the matches this seat has seen end
        self._rematch_timer: asyncio.TimerHandle | None = None
        # At a private table (docs/PRIVATE_TABLES.md): where the seat keeps its signing key,
        # per-deal keys and messages (None: in memory only, lost with the process), its
        # signing key, and its part in each private deal once it has a seat.
        self.private_dir: Path | None = None
        self.signer: Signer | None = None
        self.private: PrivateDeals | None = None
        self._private_deals: set[int] = set()  # deal numbers dealt by private messages
        # This seat's move waits for a card of its hand to be read (the other seats' shares
        # come on the stream, which goes on meanwhile): made once it is.
        self._move_when_read = False
        # A draw refused while a rebuilt stock is still being shuffled (SHUFFLE_PENDING,
        # R10.1): made again once every seat's shuffle of it has come.
        self._move_when_shuffled = False

    @property
    def tables(self) -> table_pb2_grpc.TableServiceStub:
        """The TableService stub the seat's link calls (replaced on a new channel)."""
        return self.table.stub

    @tables.setter
    def tables(self, stub: table_pb2_grpc.TableServiceStub) -> None:
        self.table.stub = stub

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        """What each call of this seat carries: its seat token."""
        return self.table.metadata

    def take_seat(self, seat: int, token: str) -> None:
        """Play a seat already taken: its number and its seat token (the token is the seat)."""
        self.seat = seat
        self.reader = wire.DealEventReader(seat)
        self.table.metadata = bearer(token)
        if self.private is not None:
            self.private.close()
        self.private = PrivateDeals(
            self.table_id,
            seat,
            self._signing_key(),
            self.table.send_private,
            self.private_dir,
            on_fault=self._fault,
        )

    def _fault(self, fault: Fault) -> None:
        """A relayed private message this seat's checks refused, naming who is to blame."""
        if self.log is not None:
            self.log.faults.append(fault)
        log.warning("seat %d: private deal: %s is to blame (%s): %s", self.seat,
                    fault.culprit, fault.kind, fault.detail)  # fmt: skip

    def _signing_key(self) -> Signer:
        """The key this seat signs a private table's messages with: kept in ``private_dir``
        (a restarted bot signs on with it), else made for this run."""
        if self.signer is None:
            if self.private_dir is not None:
                self.signer = signing_key_at(self.private_dir / "signing.key")
            else:
                self.signer = Ed25519Signer()
        return self.signer

    async def join(
        self,
        name: str,
        password: str | None = None,
        key: PlayerKey | None = None,
        host_fingerprint: str = "",
    ) -> int:
        """Join as ``name``; with ``key``, the join is proved with it (a fresh challenge of
        the host whose fingerprint is ``host_fingerprint``), so the key's seat at the table,
        if it has one, is given back."""
        request = lobby_pb2.JoinTableRequest(table_id=self.table_id, player_name=name)
        # Read only by a private table: the key that signs this seat's protocol messages.
        request.private_signing_key = self._signing_key().public_key()
        if password:
            request.password = password
        if key is not None:
            await add_proof(self.players, request, key, host_fingerprint, timeout=CALL_TIMEOUT)
        answer = await self.lobby.JoinTable(request, timeout=CALL_TIMEOUT)
        self.take_seat(answer.seat, answer.seat_token)
        return int(answer.seat)

    async def play_match(self) -> tuple[int, ...]:
        """Follow the table until the match is over; returns the winning seats.

        Run it again after a disconnect to resume after the last event seen (a dropped
        stream raises its ``HostRefusal``); () when the host ended the stream first.
        """
        self._known = None  # a view is carried only across the events of one stream
        on_open = self._resume if self.last_seq else None
        done = await self.stream.once(self._take, on_open)
        return (self.winners or ()) if done else ()

    async def _resume(self) -> None:
        """Back after a disconnect: a fair-deal message may not have reached the host, and it
        may be this seat's move with no new event to say so."""
        await self._send_unanswered()
        await self._move()

    async def _take(self, message: table_pb2.SubscribeEventsResponse, received_at: float) -> bool:
        """One message of the stream, kept and acted on; True once the match is over."""
        event = message.event
        if self.log is not None:
            self.log.received_at.append(received_at)
            self.log.messages.append(message.SerializeToString())
            self.log.events.append(event)
        if self.trace is not None:
            self.trace(f"event {event.seq} {event.WhichOneof('event')}")
        self.last_seq = max(self.last_seq, event.seq)
        await self._on_event(event)
        return self.winners is not None and self.rematch_wait <= 0

    async def _on_event(self, event: table_pb2.TableEvent) -> None:
        kind = event.WhichOneof("event")
        if kind == "private_message":
            if self.private is not None:
                await self.private.on_private_message(event.private_message)
                if self._move_when_read and self.private.read_hand() is not None:
                    self._move_when_read = False
                    await self._move()
                elif self._move_when_shuffled and self.private.shuffled():
                    self._move_when_shuffled = False
                    await self._move()
        elif kind == "private_reveal_due":
            if self.private is not None:
                await self.private.on_reveal_due(event.private_reveal_due)
        elif kind == "deal":
            public = deal_pb2.DealEvent.FromString(event.deal.public_event)
            private = event.deal.private_event if event.deal.HasField("private_event") else None
            if is_private(public):
                self._private_deals.add(public.deal_no)
            dealt_privately = public.deal_no in self._private_deals
            if dealt_privately and self.private is not None:
                await self.private.on_deal_event(public)
                private = self._with_hand(public, private)
            happened = self._observe(public, private)
            self._follow(happened, event.seq)
            if dealt_privately:
                self._known = None  # the hand is the participant's: the view is asked for
            else:
                await self._fair_deal(public)
            if public.WhichOneof("event") in TURN_EVENTS and self._may_be_my_move(public):
                await self._move(self._known)
        elif kind == "snapshot":
            # The deal so far, from its start: the bot's memory is rebuilt from it. The
            # fair-deal steps in it are past: only this run's exchange may still act on them.
            self.reader = wire.DealEventReader(self.seat)
            if self.private is not None:
                await self.private.on_view(event.snapshot)
            for raw in event.snapshot.deal_events:
                public = deal_pb2.DealEvent.FromString(raw)
                if is_private(public):
                    self._private_deals.add(public.deal_no)
                self._observe(public, self._with_hand(public, None))
                if public.deal_no not in self._private_deals:
                    await self._fair_deal(public, replaying=True)
            await self._commit_late(event.snapshot)
            scores = [view.score for view in event.snapshot.seats if view.HasField("score")]
            await self._answer_rientro(event.snapshot.rientro_offers, scores)
            if event.snapshot.HasField("between_deals"):
                await self._ready(event.snapshot.between_deals)
            # The snapshot is the seat's view: no deal in play (None), no move until an event.
            seen = wire.deal_view_from_pb(event.snapshot)
            if seen is not None:
                self._known = seen, event.seq
                if event.snapshot.deal_no in self._private_deals:
                    self._known = None  # its hand is the participant's: asked for at the move
                await self._move(self._known)
        elif kind == "deal_signed":
            if self.log is not None:
                self.log.signed.append(event.deal_signed)
            self._signed = event.deal_signed
        elif kind == "match_update":
            update = event.match_update
            if self._signed is not None and self.on_deal_over is not None:
                await self.on_deal_over(self._signed, update)
            self._signed = None
            if update.match_over:
                self.winners = tuple(update.winners)
                self.matches += 1
                self._wait_for_rematch()
            else:
                await self._answer_rientro(update.rientro_offers, update.scores)
                if update.HasField("between_deals"):
                    await self._ready(update.between_deals)

        elif kind == "rematch":
            await self._agree(event.rematch)
        elif kind == "match_started" and self.winners is not None:
            # Another match at this table (a rematch): played like the first.
            self.winners, self._answered_offer = None, None
            if self._rematch_timer is not None:
                self._rematch_timer.cancel()
                self._rematch_timer = None

    def _wait_for_rematch(self) -> None:
        """The match is over: stay ``rematch_wait`` seconds for another, then leave."""
        if self.rematch_wait > 0 and self._rematch_timer is None:
            loop = asyncio.get_running_loop()
            self._rematch_timer = loop.call_later(self.rematch_wait, self.stream.close)

    async def _agree(self, update: table_pb2.RematchUpdate) -> None:
        """Someone asked for another match (or the first player changed its rules, which
        asks everyone again): a bot that stays for one agrees."""
        if self.rematch_wait <= 0 or self.winners is None:
            return
        if self.seat in update.waiting_for_seats and update.agreed_seats:
            request = table_pb2.RematchRequest(context=self.link.context())

            async def agree() -> None:
                await resend(lambda: self.table.rematch(request))

            await self._quietly(agree())

    async def _ready(self, pause: table_pb2.BetweenDeals) -> None:
        """A bot has nothing to read at the end of a deal: it is ready at once."""
        if self.seat in pause.waiting_for_seats and self.seat not in pause.ready_seats:
            await self._quietly(self.link.ready())

    async def _answer_rientro(
        self, offers: Iterable[table_pb2.RientroOffer], scores: Iterable[table_pb2.SeatScore]
    ) -> None:
        """R11.3: buy back in or retire, when the offer is to this seat, once.

        An offer stands until the host has the answer, so an update sent in the meantime
        (another busted seat's answer, say) lists it again: answered twice, it would be
        refused. An offer is told apart from the next one by the seat's buy-backs so far.
        """
        offer = next((o for o in offers if o.seat == self.seat), None)
        if offer is None:
            return
        bought = next((s.rientri for s in scores if s.seat == self.seat), 0)
        if self._answered_offer == bought:
            return
        self._answered_offer = bought
        await self._quietly(self.link.answer_rientro(self.bot.buys_back(offer.fee)))

    def _observe(
        self, public: deal_pb2.DealEvent, private: deal_pb2.PrivateDealEvent | None
    ) -> Event | None:
        """Tell the bot what happened, as the engine event its seat sees (hard's memory)."""
        happened = self.reader.read(public, private)
        if happened is not None:
            self.bot.observe(happened)
        return happened

    def _with_hand(
        self, public: deal_pb2.DealEvent, private: deal_pb2.PrivateDealEvent | None
    ) -> deal_pb2.PrivateDealEvent | None:
        """At a private deal's start the host names the hand's positions, not its cards: the
        bot is told the cards its participant read, in the order dealt."""
        mine = self.private.current if self.private is not None else None
        if public.WhichOneof("event") != "started" or mine is None:
            return private
        if public.deal_no != mine.setup.deal_no:
            return private
        cards = [mine.held.get((0, p)) for p in mine.setup.positions.hands.get(self.seat, [])]
        if any(card is None for card in cards):
            return private
        told = deal_pb2.PrivateDealEvent()
        told.hand_dealt.cards.extend(card for card in cards if card is not None)
        return told

    def _follow(self, happened: Event | None, seq: int) -> None:
        """Carry the seat's view across a deal event (the fair-deal steps change nothing of
        it); a new deal, or an event the view cannot take, leaves none: the host is asked."""
        if self._known is None or happened is None or seq <= self._known[1]:
            return  # (an event at or before the view's seq is in it already: a GetView's)
        if isinstance(happened, DealStarted):
            self._known = None
            return
        try:
            self._known = views.after_event(self._known[0], happened), seq
        except ValueError:  # not this view's deal: ask
            self._known = None

    async def _fair_deal(self, event: deal_pb2.DealEvent, replaying: bool = False) -> None:
        kind = event.WhichOneof("event")
        deal_no = event.deal_no
        try:
            if kind == "announced":
                self.seats_in_play = sorted(event.announced.seats_in_play)
                if self.steps.take_up(self.seat, event) is not None and not replaying:
                    await self._commit(deal_no)
                return
            known = self.steps.exchanges.get(deal_no)
            if known is None or known.commitment is None or replaying:
                return
            if kind == "commitments":
                reveal = self.steps.reveal_for(event)  # RevealRefused when the host cheats
                self._answered(await self.steps.send_reveal(deal_no, reveal))
            elif kind == "reveals":
                self.steps.on_reveals(event)  # HostMisbehaved when the host cheats
            elif kind == "host_seed_revealed":
                self.steps.on_host_seed(event)
                self.steps.forget_before(deal_no + 1)
        except ExchangeError as error:
            # A host that broke the protocol: the seat's own checks refused it, and the
            # deal's record will show it.
            log.warning("fair deal %d: %s", deal_no, error)

    async def _commit(self, deal_no: int) -> None:
        """Fair deal step 2: this seat's commitment to a fresh seed and cut."""
        if not self.fair:
            return
        mine = self.steps.exchanges[deal_no]
        mine.commit()
        if self.log is not None:
            self.log.seeds[deal_no] = (mine.seed, mine.cut)
        if not self._answered(await self.steps.send_commitment(deal_no)):
            # Refused (a run before this one committed, or the step closed): this seat is
            # out of the deal's mix, and its exchange must not judge the host by a seed the
            # host never had.
            self.steps.exchanges.pop(deal_no, None)

    async def _commit_late(self, view: table_pb2.TableView) -> None:
        """A stream that opened after the deal's announcement saw it only inside the
        snapshot: while the commitments are still open, this seat commits now."""
        mine = self.steps.exchanges.get(view.deal_no)
        if view.phase == table_pb2.TURN_PHASE_COMMIT and mine and mine.commitment is None:
            await self._commit(view.deal_no)

    def _answered(self, refusal: HostRefusal | None) -> bool:
        """Whether a fair-deal step went through, or is to be sent again after the
        reconnect; a refusal of the host's is noted."""
        if refusal is None or refusal.code in RECONNECT_CODES:
            return True
        self._refused(refusal)
        return False

    async def _send_unanswered(self) -> None:
        """After a reconnect: the fair-deal steps the host may not have, sent again with
        their request ids while their step is still open."""
        if self.steps.unanswered:
            answer = await self.link.view()
            for refusal in await self.steps.send_unanswered(answer.view):
                self._answered(refusal)

    def _may_be_my_move(self, event: deal_pb2.DealEvent) -> bool:
        """Whether to ask for the view: another seat's draw, or a play not just before this
        seat's turn (play passes clockwise, R2.4), never makes it this seat's move."""
        which = event.WhichOneof("event")
        if which == "drawn":
            return bool(event.drawn.seat == self.seat)
        if which == "discard_returned":
            return bool(event.discard_returned.seat == self.seat)
        if which == "played" and self.seat in self.seats_in_play:
            order = self.seats_in_play
            following = order[(order.index(event.played.seat) + 1) % len(order)]
            return following == self.seat
        return True

    async def _quietly(self, call: Awaitable[None]) -> None:
        """One call for this seat; a refusal is noted, not fatal: the next event brings a
        fresh view."""
        try:
            await call
        except HostRefusal as refusal:
            self._refused(refusal)

    def _refused(self, refusal: HostRefusal) -> None:
        line = refusal.line
        if self.log is not None:
            self.log.refusals.append(line)
        log.info("seat %d: refused: %s", self.seat, line)

    async def play_to_end(
        self, stopping: asyncio.Event | None = None, patience: float | None = None
    ) -> tuple[int, ...]:
        """``play_match`` again and again, across dropped connections and host restarts,
        until the match is over (or ``stopping`` is set); returns the winning seats.

        ``patience``: the seconds the seat tries to reconnect, from the moment the connection
        dropped, before it gives up (``HostLost``); a stream that connects or sends anything
        in between ends that outage. None tries for ever.
        """

        def stopped() -> bool:
            return stopping is not None and stopping.is_set()

        async def take(message: table_pb2.SubscribeEventsResponse, received_at: float) -> bool:
            return await self._take(message, received_at) or stopped()

        async def resume() -> None:
            self._known = None  # a view is carried only across the events of one stream
            if self.last_seq:
                await self._resume()

        def dropped(refusal: HostRefusal | None, lost_for: float | None) -> None:
            if refusal is None:
                return  # the host ended the stream: open it again
            code = refusal.code.name
            if lost_for is None:
                giving_up = (
                    f" (given up after {patience:g} s without an answer)" if patience else ""
                )
                log.warning("seat %d: the connection to the host dropped (%s); reconnecting%s",
                            self.seat, code, giving_up)  # fmt: skip
            if self.trace is not None:
                self.trace(f"reconnect {code}")
            if stopped():
                self.stream.close()

        if self.winners is None and not stopped():
            self.stream.patience = patience
            try:
                await self.stream.follow(take, on_open=resume, on_drop=dropped)
            except HostRefusal as refusal:
                # Waiting for a rematch nobody asked for, the table was archived: the seat's
                # match is over all the same.
                if self.winners is None or refusal.code is not grpc.StatusCode.NOT_FOUND:
                    raise
        return self.winners or ()

    async def _move(self, known: tuple[DealView, int] | None = None) -> None:
        """This seat's draw or play, if it is its move: on ``known`` (a view and the seq it
        is at), else on a view asked for now; refused as a stale view, read the view again
        and decide again."""
        for _ in range(MOVE_TRIES):
            if await self._move_once(known):
                return
            known = None

    async def _move_once(self, known: tuple[DealView, int] | None) -> bool:
        """One decision; False when the host said the view was stale."""
        if known is None:
            answer = await self.link.view()
            if self.log is not None:
                self.log.views.append(answer.SerializeToString())
            view, seen = wire.deal_view_from_pb(answer.view), answer.seq
            if view is not None and answer.view.deal_no in self._private_deals:
                view = await self._private_hand(view, answer.view)
                if view is None:
                    self._move_when_read = True
                    return True
            self._known = None if view is None else (view, seen)
        else:
            view, seen = known
        if view is None or view.turn != self.seat or view.hand is None:
            return True
        if view.phase not in (Phase.DRAW, Phase.PLAY):  # a stock to rebuild, a deal over
            return True
        if view.phase is Phase.DRAW:
            if self.think:
                await asyncio.sleep(self.think)
            try:
                source = self.bot.choose_draw(view)
            except Exception:  # a bot's own bug never stalls its table: the stock, then
                log.exception("seat %d: the bot failed to choose a draw", self.seat)
                source = DrawSource.STOCK
            request = self.link.draw_request(wire.draw_source_to_pb(source), seen)
            return await self._send_move(self.table.draw, request) != "stale"
        # The bot's play; if the host refuses it, a bare discard; failing that the taken
        # discard goes back (R3.2). A bot never leaves its table waiting.
        try:
            chosen = self.bot.choose_play(view)
        except Exception:  # as above: a bare discard follows
            log.exception("seat %d: the bot failed to choose a play", self.seat)
            chosen = None
        for play in plays_to_try(chosen, view.hand):
            operations, discard = wire.play_to_pb(play)
            playing = self.link.play_request(operations, discard, seen)
            if view.deal_no in self._private_deals and self.private is not None:
                # The hand's cards this play lays or discards, opened to everyone first.
                positions = await self.private.open_for_play(play.cards_from_hand())
                playing.positions.extend(positions)
            outcome = await self._send_move(self.table.play, playing)
            if outcome != "refused":
                return outcome != "stale"
        back = self.link.return_request(seen)
        return await self._send_move(self.table.return_discard, back) != "stale"

    async def _private_hand(self, view: DealView, table: table_pb2.TableView) -> DealView | None:
        """At a private table the host's view holds the hand's positions: the cards are the
        participant's, once the other seats' shares of them are in (None: not yet; the
        move is made when they are)."""
        if self.private is None:
            return view
        await self.private.on_view(table)
        hand = self.private.read_hand()
        return None if hand is None else dataclasses.replace(view, hand=tuple(hand))

    async def _send_move(self, method: Callable[[Any], Awaitable[Any]], request: Any) -> str:
        """``taken``, ``stale`` (decide again from a fresh view), ``refused`` (a rule: try
        another move) or ``failed`` (anything else: the next event brings a fresh view).

        A move the host could not save (``NOT_SAVED``) is sent again as it is, with its
        request id: the host applies it once (``link.resend``).
        """
        try:
            await resend(lambda: method(request), on_retry=self._refused)
            return "taken"
        except HostRefusal as refusal:
            self._refused(refusal)
            if refusal.reason == "SHUFFLE_PENDING":
                self._move_when_shuffled = True
                return "taken"  # nothing to decide again now: the last shuffle brings it
            if refusal.stale:
                return "stale"
            if refusal.broke_rule:
                return "refused"
            if refusal.code in RECONNECT_CODES:
                raise  # the connection is gone: play_to_end reconnects
            return "failed"


def plays_to_try(chosen: Play | None, hand: Iterable[int]) -> list[Play]:
    """The bot's play, then a bare discard of each card of the hand (the last drawn first),
    each once: a play refused for a rule is never sent again, even when the bot's own
    choice was one of those discards (a client that sends a refused play again, unchanged,
    fails the conformance check's "rule refusal")."""
    tries = [] if chosen is None else [chosen]
    for card in reversed(list(hand)):
        discard = Play((), card)
        if discard not in tries:
            tries.append(discard)
    return tries


async def connect(
    address: str, fingerprint: str | None = None, insecure: bool = False
) -> tuple[grpc.aio.Channel, str | None]:
    """A channel to the host named by ``address`` (HOST[:PORT] or an invite) and the
    fingerprint pinned: the invite's or ``fingerprint``, else the one first seen (trusted on
    first use, for this run). ``insecure``: a host started with --insecure, no TLS."""
    place = invite.parse(address)
    if insecure:
        return grpc.aio.insecure_channel(place.address, options=wire.CHANNEL_OPTIONS), None
    expected = place.fingerprint or (
        invite.normal_fingerprint(fingerprint) if fingerprint else None
    )
    channel, found = await tls.pinned_channel(
        place.host, place.port, expected, wire.CHANNEL_OPTIONS
    )
    return channel, found.fingerprint


async def run(
    address: str,
    table_id: str,
    level: str = "medium",
    name: str | None = None,
    password: str | None = None,
    seed: int | None = None,
    say: Callable[[str], None] = print,
    fingerprint: str | None = None,
    insecure: bool = False,
    seat_token_file: Path | None = None,
    record_dir: Path | None = None,
    patience: float | None = PATIENCE,
    key: PlayerKey | None = None,
    rematch_wait: float = 0.0,
    think: float = 0.0,
) -> tuple[int, ...]:
    """Join ``table_id`` at ``address`` as a bot of ``level`` (or play the seat whose
    ``SEAT TOKEN`` line is in ``seat_token_file``) and play the match to its end, across host
    restarts; ``say`` gets one line per deal (the scores, the record checked). With
    ``record_dir``: every deal's record and this seat's secrets for it, and a log of the
    stream, are kept there (``Keeper``). A host that does not answer for ``patience``
    seconds is given up (``HostLost``). With ``key`` the join is proved with that player
    key: the match is rated for it, and the key's seat at the table is given back. After each
    match the bot stays ``rematch_wait`` seconds for another, agreeing once someone else has;
    it returns the last match's winners."""
    taken = _read_seat_token(seat_token_file) if seat_token_file is not None else None
    keeper = Keeper(record_dir) if record_dir is not None else None
    channel, pinned = await connect(address, fingerprint, insecure)
    place = invite.parse(address)
    try:
        seat = NetworkSeat(
            channel,
            table_id,
            make_bot(level, random.Random(seed)),
            log=SeatLog(),
            trace=keeper.trace if keeper is not None else None,
            pin=None if pinned is None else tls.PinnedHost(place.host, place.port, pinned),
        )
        # A private table's keys: one folder per table and bot name, as its player key.
        seat.private_dir = deal_folder(data_dir(), table_id) / urllib.parse.quote(
            names.fold(name or default_name(level)), safe=""
        )
        host = await seat.lobby.GetHostInfo(lobby_pb2.GetHostInfoRequest(), timeout=CALL_TIMEOUT)
        if pinned is not None and host.host_fingerprint != pinned:
            raise tls.PinError("the host signs deals with another identity than its TLS one")
        if taken is not None:
            seat.take_seat(*taken)
        else:
            await seat.join(name or default_name(level), password, key, host.host_fingerprint)
        mine = f", player key {key.fingerprint}" if key is not None else ""
        say(f"seat {seat.seat} at table {table_id}, host {host.host_fingerprint}{mine}")

        async def deal_over(signed: table_pb2.DealSigned, update: table_pb2.MatchUpdate) -> None:
            totals = ", ".join(f"seat {s.seat} {s.total}" for s in update.scores)
            checked = await _checked(seat, signed, host, keeper=keeper)
            if keeper is not None and keeper.problem:
                checked, keeper.problem = f"{checked}; {keeper.problem}", ""
            say(f"deal {signed.deal_no} over: {totals}; {checked}")

        seat.on_deal_over = deal_over
        seat.rematch_wait = rematch_wait
        seat.think = think
        return await seat.play_to_end(patience=patience)
    finally:
        await channel.close()
        if keeper is not None:
            keeper.close()


def default_name(level: str) -> str:
    return f"{level} bot"


def _read_seat_token(path: Path) -> tuple[int, str]:
    """``SEAT TOKEN`` from a file (a token on the command line would show in ``ps``)."""
    try:
        seat_text, token = path.read_text(encoding="utf-8").split()
        return int(seat_text), token
    except ValueError:
        raise OSError(f"{path} does not hold one line 'SEAT TOKEN'") from None


class Keeper:
    """What ``--record-dir`` keeps: ``deal-N.json`` (the signed record, for scala40-verify),
    ``deal-N.seat.json`` (this seat's number, seed and cut for it) and ``stream.log`` (a line
    per stream message, ``event SEQ KIND``, and per dropped connection, ``reconnect CODE``)."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self._stream = (directory / "stream.log").open("a", encoding="utf-8")
        self.problem = ""  # why the last deal's files could not be written, if they could not

    def trace(self, line: str) -> None:
        """A line of the stream's log; a disk that fails stops the log, never the play."""
        if self._stream.closed:
            return
        try:
            self._stream.write(line + "\n")
            self._stream.flush()  # read while the bot plays
        except OSError as error:
            log.warning("stream log %s given up: %s", self.directory / "stream.log", error)
            with contextlib.suppress(OSError):
                self._stream.close()

    def keep(self, deal_no: int, record: bytes, seat: int, mine: tuple[bytes, int] | None) -> None:
        """Write the deal's files; when they cannot be, ``problem`` says why (the bot plays
        on, and its line for the deal says it)."""
        secrets = {"seat": seat, "seed": mine[0].hex(), "cut": mine[1]} if mine else {"seat": seat}
        try:
            (self.directory / f"deal-{deal_no}.json").write_bytes(record)
            (self.directory / f"deal-{deal_no}.seat.json").write_text(
                json.dumps(secrets) + "\n", encoding="utf-8"
            )
        except OSError as error:
            self.problem = f"record not kept in {self.directory}: {error.strerror or error}"

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._stream.close()


async def _checked(
    seat: NetworkSeat,
    signed: table_pb2.DealSigned,
    host: lobby_pb2.GetHostInfoResponse,
    with_seed: bool = True,
    keeper: Keeper | None = None,
) -> str:
    """The deal's record fetched and verified with this seat's own seed (FAIR_DEAL.md);
    kept by ``keeper`` when given, whatever its check says."""
    mine: tuple[bytes, int] | None = None
    try:
        raw = await seat.link.deal_record(signed.deal_no)
        mine = seat.log.seeds.get(signed.deal_no) if seat.log is not None and with_seed else None
        if keeper is not None:
            keeper.keep(signed.deal_no, raw, seat.seat, mine)
        record = DealRecord.from_json(raw)
        if record.private_transcript:
            # A private deal: the host's signature, every seat's message audited, the replay.
            verify_private_record(record, host.host_fingerprint)
            return "record verified, private deal audited (every message, proof and share)"
        verify_record(
            record,
            host_fingerprint=host.host_fingerprint,
            replayer=replay_deal,
            seat=seat.seat if mine else None,
            my_seed=mine[0] if mine else None,
            my_cut=mine[1] if mine else None,
        )
    except VerificationFailed as failure:
        if mine and "not in the mix" in str(failure):
            return "this seat was left out of the deal's mix; " + await _checked(
                seat, signed, host, False
            )
        return f"RECORD FAILED ITS CHECK: {failure}"
    except HostRefusal as refusal:
        return f"record not checked ({refusal.code.name})"
    if mine:
        return "record verified"
    if seat.seat not in record.seats_in_play:
        return "record verified as a third party (this seat sat the deal out)"
    return "record verified as a third party (this seat sent no seed)"


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"a number of seconds above 0, not {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="scala40-bot", description="Play Scala 40 at a host's table as a bot."
    )
    parser.add_argument(
        "address",
        metavar="HOST[:PORT]|INVITE",
        help=f"the host (port {DEFAULT_PORT}), or its invite scala40://HOST:PORT/?fp=…",
    )
    parser.add_argument(
        "--fingerprint", help="the host's fingerprint to pin (an invite carries it already)"
    )
    parser.add_argument("--insecure", action="store_true", help="a host without TLS")
    parser.add_argument("--table", required=True, help="the table id to join")
    parser.add_argument("--level", choices=LEVELS, default="medium")
    parser.add_argument("--name", help="the name shown at the table")
    parser.add_argument("--password", help="the table's password, if it has one")
    parser.add_argument("--seed", type=int, help="seed of the bot's own choices (not the deal)")
    parser.add_argument(
        "--seat-token-file",
        type=Path,
        metavar="FILE",
        help="play a seat already joined: FILE holds one line 'SEAT TOKEN' (instead of joining)",
    )
    keys = parser.add_mutually_exclusive_group()
    keys.add_argument(
        "--key-file",
        type=Path,
        metavar="FILE",
        help="the bot's player key (made there, owner-only, on first start): it proves its "
        "joins, so its matches are rated and its seat is given back when it joins again "
        f"(default: a key per name in keys/ of ${DATA_DIR_VARIABLE}, else of the platform's "
        "data folder for scala40-bot)",
    )
    keys.add_argument(
        "--no-key", action="store_true", help="join without a player key (never rated)"
    )
    parser.add_argument(
        "--record-dir",
        type=Path,
        metavar="DIR",
        help="keep each deal's record (deal-N.json, for scala40-verify), this seat's seed for it "
        "(deal-N.seat.json) and a log of the event stream (stream.log) in DIR",
    )
    parser.add_argument(
        "--give-up-after",
        type=_seconds,
        default=PATIENCE,
        metavar="SECONDS",
        help="how long the bot tries to reconnect after its connection dropped before it "
        f"gives up (default {PATIENCE:g}); meanwhile the host's turn clock plays its seat",
    )
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="wait this long before each draw, as a person would (default 0)",
    )
    parser.add_argument(
        "--rematch-wait",
        type=float,
        default=REMATCH_WAIT,
        metavar="SECONDS",
        help="after a match, how long the bot stays for another: it agrees to a rematch once "
        "someone else at the table has, and never asks for one itself (default "
        f"{REMATCH_WAIT:g}, the time a host keeps a finished match; 0 leaves at once)",
    )
    options = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    try:
        key = None
        if not options.no_key and options.seat_token_file is None:
            key = PlayerKey.kept_at(
                options.key_file
                or default_key_file(data_dir(), options.name or default_name(options.level))
            )
        winners = asyncio.run(
            run(
                options.address,
                options.table,
                options.level,
                options.name,
                options.password,
                options.seed,
                fingerprint=options.fingerprint,
                insecure=options.insecure,
                seat_token_file=options.seat_token_file,
                record_dir=options.record_dir,
                patience=options.give_up_after,
                key=key,
                rematch_wait=max(options.rematch_wait, 0.0),
                think=max(options.think, 0.0),
            )
        )
    except grpc.aio.AioRpcError as error:
        print(f"scala40-bot: {error.details() or error.code().name}", file=sys.stderr)
        return 1
    except HostRefusal as refusal:
        log.warning("given up: %s", refusal.line)
        print(f"scala40-bot: {refusal.message or refusal.code.name}", file=sys.stderr)
        return 1
    except (tls.PinError, invite.InviteError, OSError, HostLost, IdentityError) as error:
        print(f"scala40-bot: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    print("match over: won by " + (", ".join(f"seat {s}" for s in winners) or "nobody"))
    return 0


def command() -> int:
    """``scala40-bot``: ``main``, with the collector kept out of the bot's way for its life."""
    collector.keep_out_of_the_way()
    return main()


if __name__ == "__main__":
    sys.exit(command())
