"""A seat of a private table played over gRPC by a test: ``PrivateSeat`` answering the protocol.

It follows the seat's event stream, sends every message its part of the deal needs (its
key, its shuffle, the cut, the shares of every other hand, of the first discard and of each
draw, its reveal) through ``TableService.SendPrivate``, and plays each turn as plainly as a
turn can be played: a draw from the stock, then the card drawn discarded, opened to everyone
by its share. Every byte it is sent is kept, for the privacy audits.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import grpc
from conftest import until
from google.protobuf.message import Message

from scala40_net.pb import deal_pb2, lobby_pb2, ruleset_pb2, table_pb2, table_pb2_grpc
from scala40_net.private.chain import Fault, FaultFound
from scala40_net.private.group import random_scalar
from scala40_net.private.messages import (
    EVERYONE,
    Ed25519Signer,
    Envelope,
    Kind,
    ShuffleBody,
    seal,
)
from scala40_net.private.protocol import DealSetup, Phase, PrivateSeat, digest_of, shuffle_step
from scala40_net.private.shuffle import shuffle_deck
from scala40_net.seat.link import STREAM_MOVES, GrpcTable
from scala40_net.seat.refusal import HostRefusal

Place = tuple[int, int]

#: Where a seat checks the shuffle before its own while it makes its own, as the client's seat
#: does (``PrivateSeat.shuffle_after``).
CHECKS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="participant-check")

#: A request the host refused, as a call raises it or as the seat's stream answers it.
Refused = (grpc.aio.AioRpcError, HostRefusal)


def refused_code(error: grpc.aio.AioRpcError | HostRefusal) -> grpc.StatusCode:
    return error.code if isinstance(error, HostRefusal) else error.code()


def refused_details(error: grpc.aio.AioRpcError | HostRefusal) -> str:
    return error.message if isinstance(error, HostRefusal) else error.details() or ""


def quick_rules(decks: int = 2, stall_rebuilds: int = 1) -> ruleset_pb2.Ruleset:
    """Rules under which a deal of draws and discards ends soon: void once the stock runs
    out with nothing laid since (R10.2, ``stall_rebuilds``)."""
    options = ruleset_pb2.RulesetOptions(stall_rebuilds=stall_rebuilds, decks=decks)
    if decks == 1:
        options.max_players = 2
    return ruleset_pb2.Ruleset(options=options)


@dataclass
class Participant:
    """One seat: its token, its signing key, its part of the current deal, what it received."""

    table: table_pb2_grpc.TableServiceStub
    table_id: str
    seat: int
    token: str
    signer: Ed25519Signer = field(default_factory=Ed25519Signer)
    play_turns: bool = True
    received: list[bytes] = field(default_factory=list)  # every stream message's bytes
    views: list[bytes] = field(default_factory=list)  # GetViewResponse bytes
    signed: list[int] = field(default_factory=list)  # deals whose record is signed
    deal: PrivateSeat | None = None
    deal_no: int = 0
    #: The places of this seat's hand, and the cards read from them.
    places: list[Place] = field(default_factory=list)
    cards: dict[Place, int] = field(default_factory=dict)
    refusals: list[str] = field(default_factory=list)
    last_seq: int = 0
    dealt_shares_sent: bool = False
    sent_shuffles: set[tuple[int, int]] = field(default_factory=set)
    cut_sent: bool = False
    turn: int | None = None
    started: bool = False
    drawn: Place | None = None
    pile: list[int] = field(default_factory=list)
    rebuild_due: tuple[int, ...] | None = None
    #: The deal's end is held for the reveals (``private_reveal_due``): no more shuffles, as
    #: a client makes none then (a rebuilt stock left unshuffled, R10.1).
    over: bool = False
    seats: tuple[int, ...] = ()
    stock: int = 0
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    #: Set after each event of the stream is acted on: what waits on this seat's progress
    #: waits on it rather than polling (bench/bench_private_host.py: a poll costs CPU the
    #: seats' work is measured in).
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    #: Messages sent to the host, in order (what this seat signed), and those it acknowledged.
    sent: list[bytes] = field(default_factory=list)
    acked: list[bytes] = field(default_factory=list)
    resumed: int = 0
    #: Each acknowledged message's place in the deal's transcript.
    placed: dict[bytes, int] = field(default_factory=dict)
    draws_seen: int = 0
    #: Each draw from the stock, from its call to its card read (bench/bench_private_host.py).
    draw_times: list[float] = field(default_factory=list)
    draw_sent: float | None = None
    #: In the first deal, send a shuffle whose deck is changed after its proof (a cheat the
    #: seats refuse and the host's check finds, voiding the deal) in place of its own.
    tamper: bool = False
    #: Faults this seat's checker found in relayed messages (it takes nothing of them).
    faults: list[Fault] = field(default_factory=list)
    #: After a rebuild, discard a card drawn from the new stock by the id that stands for its
    #: position (a discard's own id), unopened, before discarding it honestly: a cheat the
    #: host refuses. Its refusals, and the rebuilt stock's stand-ins (its discards, by id).
    #: Made on the first draw from a rebuilt stock only: once a card of it is opened, the
    #: host's stand-ins of that round swap (``HostPrivateDeal.open_place``) and the id of a
    #: position is no longer the discard of its place in ``rebuilt_from``.
    cheat_after_rebuild: bool = False
    #: Whether it sends its share of a card drawn from the stock to the drawer (False: the
    #: drawer can never read it).
    share_draws: bool = True
    cheat_refusals: list[str] = field(default_factory=list)
    rebuilt_from: tuple[int, ...] = ()
    #: Draws from the stock since it was last rebuilt (R10.1).
    rebuilt_draws: int = 0
    #: The seat's own stream (``TableService.Seat``) for its events and its requests, each
    #: answered there, as the screen and ``scala40-bot`` follow a table (None: SubscribeEvents,
    #: and a call a request).
    link: GrpcTable | None = None
    #: How many of its requests went on its seat's stream (the others went as calls).
    on_stream: int = 0

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.token}"),)

    def context(self) -> table_pb2.MoveContext:
        return table_pb2.MoveContext(request_id=str(uuid.uuid4()), last_seen_seq=self.last_seq)

    async def call(self, method: str, request: Message) -> Message:
        """One request to the table: on the seat's stream (``link``), else its call."""
        if self.link is not None:
            streamed = self.link.streamed
            if streamed is not None and streamed.open and method in STREAM_MOVES:
                self.on_stream += 1
            return await self.link.request(method, request)
        answer: Message = await getattr(self.table, method)(request, metadata=self.metadata)
        return answer

    async def send(self, envelope: bytes, again: bool = False) -> None:
        if not again:
            self.sent.append(envelope)
        request = table_pb2.SendPrivateRequest(context=self.context(), envelope=envelope)
        answer = await self.call("SendPrivate", request)
        assert isinstance(answer, table_pb2.SendPrivateResponse)
        self.acked.append(envelope)
        self.placed[envelope] = answer.transcript_seq

    async def run(self, after_seq: int = 0) -> None:
        """Follow the stream until ``stop`` is set (or it ends). It is read on a task of its
        own while its events are acted on here: on the seat's stream, the answer to a request
        sent while acting on an event comes after that event."""
        if self.link is not None:
            stream = self.link.subscribe(after_seq)
        else:
            request = table_pb2.SubscribeEventsRequest(after_seq=after_seq)
            stream = self.table.SubscribeEvents(request, metadata=self.metadata)
        events: asyncio.Queue[table_pb2.SubscribeEventsResponse | None] = asyncio.Queue()

        async def read() -> None:
            try:
                async for response in stream:
                    events.put_nowait(response)
            finally:
                events.put_nowait(None)

        reader = asyncio.create_task(read())
        try:
            while (response := await events.get()) is not None:
                self.received.append(response.SerializeToString())
                try:
                    await self.on_event(response.event)
                except Refused as refused:
                    if refused_code(refused) not in (
                        grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION,
                        grpc.StatusCode.UNAUTHENTICATED,
                    ):
                        raise
                    # A message or move of a deal that ended meanwhile (or of a seat given
                    # up): kept for the test to judge, and the stream followed on.
                    self.refusals.append(refused_details(refused))
                self.changed.set()
                if self.stop.is_set():
                    break
            else:
                await reader  # the stream's end: its failure, if it failed
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                raise
        finally:
            reader.cancel()
            stream.cancel()
            self.changed.set()  # nothing more comes: whoever waits looks again

    async def on_event(self, event: table_pb2.TableEvent) -> None:
        self.last_seq = max(self.last_seq, event.seq)
        which = event.WhichOneof("event")
        if which == "snapshot":
            await self.on_snapshot(event.snapshot)
        elif which == "private_message":
            message = event.private_message
            if message.envelope and self.deal is not None and message.deal_no == self.deal_no:
                data = bytes(message.envelope)
                turn = None if self.over else self.shuffle_before_mine(data)
                try:
                    if turn is not None:
                        self.sent_shuffles.add(turn)
                        await self.send(self.deal.shuffle_after(data, CHECKS))
                    else:
                        self.deal.receive(data)
                except FaultFound as found:
                    # Nothing of it taken in: this seat goes no further in the deal, as a
                    # seat's client does (scala40_net.seat.private), and waits for its end.
                    self.faults.append(found.fault)
                    return
            await self.act()
        elif which == "deal":
            await self.on_deal(deal_pb2.DealEvent.FromString(event.deal.public_event), event)
        elif which == "private_reveal_due" and self.deal is not None:
            self.over = True
            await self.send(self.deal.reveal_message())
        elif which == "deal_signed":
            self.signed.append(event.deal_signed.deal_no)

    def shuffle_before_mine(self, data: bytes) -> tuple[int, int] | None:
        """The (round, index) of this seat's shuffle when ``data`` is the one just before it
        (None for any other message, or for a seat that cheats first)."""
        assert self.deal is not None
        env = Envelope.parse(data)
        if env.kind != Kind.SHUFFLE or self.tamper:
            return None
        body = env.body()
        assert isinstance(body, ShuffleBody)
        order, turn = self.deal.setup.shuffle_order, (body.round, body.index + 1)
        if body.index + 1 >= len(order) or order[body.index + 1] != self.seat:
            return None
        return None if turn in self.sent_shuffles else turn

    async def on_snapshot(self, view: table_pb2.TableView) -> None:
        """A snapshot (a first subscription, or one after the host came back): the deal in
        play rebuilt from the transcript the host kept, this seat's per-deal key kept here,
        and this seat's own messages the host lost sent again, in their order."""
        if not view.deal_events or self.deal is None:
            return
        first = deal_pb2.DealEvent.FromString(view.deal_events[0])
        if first.WhichOneof("event") != "announced" or first.deal_no != self.deal_no:
            return
        old = self.deal
        transcript = [bytes(m) for m in view.private_transcript]
        self.deal = PrivateSeat.resumed(
            old.setup, self.seat, self.signer, dict(old.checker.keys), old.secret, transcript
        )
        self.resumed += 1
        held = {hashlib.sha256(m).digest() for m in transcript}
        for data in self.sent:
            env = Envelope.parse(data)
            if env.deal_no != self.deal_no or env.author != self.seat or env.digest in held:
                continue
            self.deal.ledger.apply(env, own=True)
            self.deal.checker.record_own(env)
            await self.send(data, again=True)
        publics = [deal_pb2.DealEvent.FromString(e) for e in view.deal_events]
        kinds = [p.WhichOneof("event") for p in publics]
        self.started = "started" in kinds
        for private in view.my_private_events:
            if private.HasField("hand_dealt"):
                self.places = [(p.round, p.position) for p in private.hand_dealt.positions]
        self.turn = view.turn_seat if view.HasField("turn_seat") else None
        self.stock, self.pile = view.stock_count, list(view.discard_pile)
        ledger, setup = self.deal.ledger, self.deal.setup
        self.sent_shuffles = set()
        self.cut_sent = ledger.cut is not None
        self.dealt_shares_sent = any(
            self.seat in ledger.shares.get((0, p), {})
            for other, positions in setup.positions.hands.items()
            if other != self.seat
            for p in positions
        )
        self.drawn = None
        last_drawn = next((p.drawn for p in reversed(publics) if p.WhichOneof("event") == "drawn"),
                          None)
        if view.phase == table_pb2.TURN_PHASE_PLAY and last_drawn is not None and (
            last_drawn.source == deal_pb2.DRAW_SOURCE_STOCK
        ):
            place = (last_drawn.position.round, last_drawn.position.position)
            if last_drawn.seat == self.seat:
                self.drawn = place
            elif self.seat not in ledger.shares.get(place, {}):
                await self.send(self.deal.shares_message(place[0], [place[1]], last_drawn.seat))
        self.over = view.phase == table_pb2.TURN_PHASE_PRIVATE_REVEAL
        if self.over and self.seat not in ledger.secrets:
            await self.send(self.deal.reveal_message())
        await self.act()

    async def on_deal(self, public: deal_pb2.DealEvent, event: table_pb2.TableEvent) -> None:
        which = public.WhichOneof("event")
        if self.seat < 0:
            return  # a spectator only keeps what it is sent
        if which == "announced":
            a = public.announced
            assert a.HasField("private_setup"), "a private table's deal names its keys"
            keys = {k.seat: bytes(k.key) for k in a.private_setup.signing_keys}
            setup = DealSetup(self.table_id, public.deal_no, tuple(a.seats_in_play),
                              a.dealer_seat, a.deck_size)
            self.deal = PrivateSeat(setup, self.seat, self.signer, keys)
            self.deal_no = public.deal_no
            self.seats = tuple(a.seats_in_play)
            self.places, self.cards = [], {}
            self.dealt_shares_sent, self.cut_sent, self.started = False, False, False
            self.sent_shuffles = set()
            self.rebuild_due, self.over = None, False
            await self.send(self.deal.key_message())
            await self.act()
        elif which == "started":
            private = event.deal.private_event
            assert not private.hand_dealt.cards, "the host sent cards of a private hand"
            self.places = [(p.round, p.position) for p in private.hand_dealt.positions]
            self.pile = [public.started.first_discard]
            self.turn, self.started = public.started.first_seat, True
            self.stock = public.started.stock_count
            await self.act()
        elif which == "drawn":
            drawn = public.drawn
            if drawn.source == deal_pb2.DRAW_SOURCE_STOCK:
                self.stock -= 1
                self.draws_seen += 1
                place = (drawn.position.round, drawn.position.position)
                self.rebuilt_draws += place[0] >= 1
                if drawn.seat == self.seat and self.drawn is None and self.turn == self.seat:
                    self.drawn = place  # the draw's answer was lost; its event says it
                    await self.act()
                elif drawn.seat != self.seat and self.share_draws:
                    assert self.deal is not None
                    await self.send(self.deal.shares_message(place[0], [place[1]], drawn.seat))
            else:
                self.pile.pop()
        elif which == "discard_returned":  # a taken discard put back (R3.2)
            self.pile.append(public.discard_returned.card)
        elif which == "played":
            played = public.played
            if played.HasField("discard"):
                self.pile.append(played.discard)
            following = sorted(self.seats)
            self.turn = following[(following.index(played.seat) + 1) % len(following)]
            await self.act()
        elif which == "stock_rebuilt":
            self.rebuild_due = tuple(self.pile[:-1])
            self.rebuilt_from = tuple(sorted(self.rebuild_due))
            self.rebuilt_draws = 0
            self.stock = public.stock_rebuilt.stock_count
            self.pile = self.pile[-1:]
            await self.act()

    async def act(self) -> None:
        """Whatever this seat's part of the deal asks now, sent at once."""
        seat = self.deal
        if seat is None or self.over:
            return
        ledger, setup = seat.ledger, seat.setup
        first = setup.shuffle_order[0] == self.seat
        if self.rebuild_due is not None and ledger.phase == Phase.PLAYING and first:
            cards, self.rebuild_due = self.rebuild_due, None
            self.sent_shuffles.add((ledger.round + 1, 0))
            await self.send(seat.shuffle_message(rebuild=cards))
            return
        if ledger.phase == Phase.SHUFFLING:
            self.rebuild_due = None
            turn = (ledger.round, ledger.shuffles)
            if seat.my_turn_to_shuffle() and turn not in self.sent_shuffles:
                self.sent_shuffles.add(turn)
                if self.tamper and self.deal_no == 1:
                    self.tamper = False
                    # The host relays it (and finds it false after): nothing honest follows.
                    await self.send(self.swapped_shuffle(seat), again=True)
                    return
                await self.send(seat.shuffle_message())
            return
        if ledger.phase == Phase.CUTTING:
            if setup.cutter == self.seat and not self.cut_sent:
                self.cut_sent = True
                await self.send(seat.cut_message(1 + secrets.randbelow(setup.deck_size - 1)))
            return
        if ledger.phase != Phase.PLAYING:
            return
        if not self.dealt_shares_sent and ledger.round == 0 and not self.started:
            self.dealt_shares_sent = True
            for other, positions in setup.positions.hands.items():
                if other != self.seat:
                    await self.send(seat.shares_message(0, positions, other))
            await self.send(seat.shares_message(0, [setup.positions.first_discard], EVERYONE))
            return
        await self.take_turn()

    def swapped_shuffle(self, seat: PrivateSeat) -> bytes:
        """This seat's shuffle with two cards of its deck swapped after the proof, signed."""
        ledger = seat.ledger
        round_, index = ledger.round, ledger.shuffles
        deck = ledger.decks[round_]
        ctx = seat.setup.context(self.seat, shuffle_step(round_, index))
        out, proof = shuffle_deck(ctx, ledger.joint_key, deck, random_scalar)
        out = (out[1], out[0], *out[2:])
        seq, prev = seat.checker.next_place(self.seat)
        body = ShuffleBody(round_, index, (), digest_of(deck), tuple(out), proof)
        env = seal(self.signer, seat.setup.table_id, seat.setup.deal_no, self.seat, seq, prev,
                   seat.checker.heads(excluding=self.seat), body)
        return bytes(env)

    async def take_turn(self) -> None:
        if not (self.play_turns and self.started and self.turn == self.seat):
            return
        seat = self.deal
        assert seat is not None
        if self.drawn is None:
            if seat.ledger.phase != Phase.PLAYING or self.stock == 0:
                return  # a rebuilt stock being shuffled, or the deal's end coming
            self.draw_sent = time.perf_counter()
            try:
                stock = deal_pb2.DRAW_SOURCE_STOCK
                drawn = await self.call(
                    "Draw", table_pb2.DrawRequest(context=self.context(), source=stock)
                )
            except Refused as error:
                self.refusals.append(refused_details(error))
                return
            assert isinstance(drawn, table_pb2.DrawResponse)
            assert drawn.card == 0, "the host named a card drawn from a private stock"
            self.drawn = (drawn.position.round, drawn.position.position)
            if len(self.views) < 2:
                await self.view()  # what the host shows this seat mid-deal, for the audit
        place = self.drawn
        try:
            card = seat.read_card(*place)
        except KeyError:
            return  # the other seats' shares are on their way
        self.drawn = None
        if self.draw_sent is not None:
            self.draw_times.append(time.perf_counter() - self.draw_sent)
            self.draw_sent = None
        self.cards[place] = card
        first_from_rebuilt = place[0] >= 1 and self.rebuilt_draws == 1
        if self.cheat_after_rebuild and first_from_rebuilt and not self.cheat_refusals:
            stand_in = self.rebuilt_from[place[1]]
            try:
                await self.call(
                    "Play", table_pb2.PlayRequest(context=self.context(), discard=stand_in)
                )
                self.cheat_refusals.append("taken")
            except Refused as error:
                self.cheat_refusals.append(f"{refused_code(error).name} {refused_details(error)}")
        await self.send(seat.shares_message(place[0], [place[1]], EVERYONE))
        request = table_pb2.PlayRequest(context=self.context(), discard=card)
        request.positions.add(round=place[0], position=place[1])
        self.turn = None  # the next turn is the `played` event's to say
        await self.call("Play", request)

    def hand_cards(self) -> dict[Place, int]:
        """The cards this seat reads of its dealt hand (once every share is in)."""
        assert self.deal is not None
        return {p: self.deal.read_card(*p) for p in self.places}

    def public_events(self) -> list[deal_pb2.DealEvent]:
        """Every public deal event this seat's stream carried, in order."""
        events = (table_pb2.SubscribeEventsResponse.FromString(m).event for m in self.received)
        return [deal_pb2.DealEvent.FromString(e.deal.public_event) for e in events
                if e.HasField("deal")]  # fmt: skip

    async def view(self) -> table_pb2.GetViewResponse:
        response = await self.call("GetView", table_pb2.GetViewRequest())
        assert isinstance(response, table_pb2.GetViewResponse)
        self.views.append(response.SerializeToString())
        return response


async def private_table(
    lobby: object, table: table_pb2_grpc.TableServiceStub, seats: int,
    rules: ruleset_pb2.Ruleset, people: int | None = None, **config: object,
) -> tuple[str, list[Participant]]:
    """A private table of ``seats``, ``people`` of them (all, unset) joined, each with a
    signing key of its own."""
    from scala40_net.pb import lobby_pb2_grpc

    assert isinstance(lobby, lobby_pb2_grpc.LobbyServiceStub)
    created = await lobby.CreateTable(
        lobby_pb2.CreateTableRequest(
            name="private", seats=seats, ruleset=rules, private_cards=True, **config  # type: ignore[arg-type]
        )
    )
    seated = []
    for n in range(seats if people is None else people):
        signer = Ed25519Signer()
        joined = await lobby.JoinTable(
            lobby_pb2.JoinTableRequest(
                table_id=created.table_id, player_name=f"p{n}",
                private_signing_key=signer.public_key(),
            )
        )
        seated.append(Participant(table, created.table_id, joined.seat, joined.seat_token, signer))
    return created.table_id, seated


def play_all(people: Sequence[Participant]) -> list[asyncio.Task[None]]:
    return [asyncio.create_task(p.run()) for p in people]


async def start_playing(
    lobby: object, table_id: str, people: Sequence[Participant]
) -> list[asyncio.Task[None]]:
    """The seats follow the table, then the first starts the match; their tasks."""
    from scala40_net.pb import lobby_pb2_grpc

    assert isinstance(lobby, lobby_pb2_grpc.LobbyServiceStub)
    tasks = play_all(people)
    await until(lambda: all(p.received for p in people))
    await lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=people[0].metadata
    )
    return tasks


def mid_shuffle(people: Sequence[Participant]) -> bool:
    """Whether a seat holds the deck shuffled once but not by every seat yet."""
    return any(
        p.deal is not None and p.deal.ledger.phase == Phase.SHUFFLING
        and p.deal.ledger.shuffles >= 1
        for p in people
    )  # fmt: skip


async def stop_all(people: Sequence[Participant], tasks: Sequence[asyncio.Task[None]]) -> None:
    """The seats stop, and their tasks are ended."""
    for p in people:
        p.stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def where(people: Sequence[Participant]) -> str:
    """Where each seat stands in its deal, for a test that timed out waiting on them."""
    said = []
    for p in people:
        ledger = p.deal.ledger if p.deal is not None else None
        state = "no deal" if ledger is None else (
            f"deal {p.deal_no} {ledger.phase} round {ledger.round} shuffles {ledger.shuffles}")
        kinds = [e.WhichOneof("event") for e in p.public_events()][-5:]
        said.append(f"seat {p.seat}: {state}; started {p.started} turn {p.turn} drawn {p.drawn} "
                    f"stock {p.stock} seq {p.last_seq} resumed {p.resumed}; last {kinds}; "
                    f"refusals {p.refusals[-2:]} faults {p.faults[-1:]}")  # fmt: skip
    return " | ".join(said)
