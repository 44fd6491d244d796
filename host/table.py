"""One table: the asyncio task that owns its seats, its match and deal state, and its events.

Every change to a table runs inside its own task, one at a time: RPC handlers
and bots hand it a function through ``call`` and wait for the answer. A
function checks, asks the engine, journals what was accepted and publishes
the events, without awaiting anything, so nothing else can interleave with
it. The fair-deal exchange (FAIR_DEAL.md) runs before every deal; its
deadlines wake the task even when nobody calls.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import grpc
from google.protobuf.message import Message

from host import auth
from host.errors import Refusal, malformed, not_found, permission_denied, precondition, rule_broken
from host.fanout import Fanout, Record, Subscriber
from host.journal import Entry, Journal, JournaledEvent

if TYPE_CHECKING:
    from host.recovery import Replay
from scala40_net import actions, deal, events, match, rules, views, wire
from scala40_net.errors import InvalidRuleset, RuleViolation
from scala40_net.fairdeal import spec
from scala40_net.fairdeal.exchange import DealSetup, ExchangeError, HostExchange, new_seed
from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.fairdeal.record import DealRecorder
from scala40_net.pb import deal_pb2, lobby_pb2, table_pb2

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_NAME = 24
MAX_CHAT = 500


# Events a job made, each with every seat's private part, before they get their seqs.
PendingEvents = list[tuple[table_pb2.TableEvent, dict[int, deal_pb2.PrivateDealEvent]]]


@dataclass(frozen=True)
class TableSettings:
    """Timing and sizes of a table; tests shorten the fair-deal deadlines."""

    commit_timeout: float = 30.0
    reveal_timeout: float = 30.0
    queue_size: int = 256
    keep_events: int = 100_000
    # A pause before each bot move, so people can follow; 0 in tests and benchmarks.
    bot_delay: float = 0.0


@dataclass
class SeatState:
    number: int
    name: str = ""
    taken: bool = False
    bot_level: int = 0  # lobby_pb2.BotLevel; 0 for a person

    @property
    def is_bot(self) -> bool:
        return self.taken and self.bot_level != 0


@dataclass
class DealInProgress:
    """One deal attempt: its fair-deal exchange, its recorder (the hash chain), its step."""

    exchange: HostExchange
    recorder: DealRecorder
    step: int = table_pb2.TURN_PHASE_COMMIT  # COMMIT, REVEAL, then UNSPECIFIED once dealt
    private_events: dict[int, list[deal_pb2.PrivateDealEvent]] = field(default_factory=dict)

    @property
    def deal_no(self) -> int:
        return self.exchange.setup.deal_no

    @property
    def dealer(self) -> int:
        return self.exchange.setup.dealer


class Table:
    """A table and its task. Create it with ``Table.create``; ``start`` runs its task."""

    def __init__(
        self,
        table_id: str,
        config: lobby_pb2.CreateTableRequest,
        ruleset: rules.Ruleset,
        journal: Journal,
        identity: HostIdentity,
        tokens: auth.TokenBook,
        settings: TableSettings,
    ) -> None:
        self.table_id = table_id
        self.config = config
        self.preset = wire.preset_name(config.ruleset.preset)
        self.ruleset = ruleset
        self.journal = journal
        self.identity = identity
        self.tokens = tokens
        self.settings = settings
        self.seats = [SeatState(n) for n in range(config.seats)]
        self.phase = lobby_pb2.TABLE_PHASE_WAITING
        self.fanout = Fanout(settings.keep_events, settings.queue_size)
        # The config is kept as the journal holds it: a password only as its digest (hex).
        self.password_digest = (
            bytes.fromhex(config.password) if config.HasField("password") else None
        )
        # Match and deal: set while playing. The engine's MatchState holds the deal too.
        self.match: match.MatchState | None = None
        self.deal_no = 0
        self.current: DealInProgress | None = None
        # Every ended deal's recorder, for GetDealRecord with the caller's private part.
        self.recorders: dict[int, DealRecorder] = {}
        self.last_game_seq = 0
        self._answers: dict[tuple[int | None, str], tuple[str, bytes]] = {}
        self._inbox: asyncio.Queue[tuple[Callable[[], Any], asyncio.Future[Any]] | None] = (
            asyncio.Queue()
        )
        self._deadline: float | None = None
        # Entries accepted by the running job, journaled and published when it ends.
        self._outbox: list[tuple[Entry | None, list[Record]]] = []
        self.seq = 0  # the last seq given to an event (published or about to be)
        self._task: asyncio.Task[None] | None = None
        self.bots: dict[int, asyncio.Task[None]] = {}
        self.on_bot_needed: Callable[[Table, int], asyncio.Task[None]] | None = None
        # Set while the journal is played back after a restart (host.recovery).
        self.replay: Replay | None = None

    # --- The task -------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"table {self.table_id}")

    async def stop(self) -> None:
        for task in self.bots.values():
            task.cancel()
        await asyncio.gather(*self.bots.values(), return_exceptions=True)
        self.bots.clear()
        if self._task is not None:
            await self._inbox.put(None)
            await self._task
        self.fanout.close()

    async def call(self, job: Callable[[], T]) -> T:
        """Run ``job`` inside the table's task and return its answer (or raise its refusal)."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        await self._inbox.put((job, future))
        return await future

    def call_soon(self, job: Callable[[], object]) -> None:
        """Queue ``job`` for the table's task without waiting (from a closing stream, say)."""
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        future.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._inbox.put_nowait((job, future))

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            timeout = None if self._deadline is None else max(0.0, self._deadline - loop.time())
            try:
                async with asyncio.timeout(timeout):
                    item = await self._inbox.get()
            except TimeoutError:
                self._deadline = None
                self._guard(self._deadline_passed)
                await self._flush()
                continue
            if item is None:
                return
            job, future = item
            try:
                result = job()
            except Refusal as refusal:
                await self._flush()  # a refused move may still have been journaled (a bad reveal)
                if not future.done():
                    future.set_exception(refusal)
            except Exception as error:  # a bug: answer INTERNAL, keep the table alive
                log.exception("table %s: job failed", self.table_id)
                await self._flush()
                if not future.done():
                    future.set_exception(error)
            else:
                # The answer goes out only once its events are durable and published.
                await self._flush()
                if not future.done():
                    future.set_result(result)

    def _guard(self, step: Callable[[], None]) -> None:
        try:
            step()
        except Exception:
            log.exception("table %s: step failed", self.table_id)

    async def _flush(self) -> None:
        """Journal every entry the last job accepted, each in its own transaction, then publish.

        The journal writes in its own thread, so a slow disk holds up this table
        only, never the other tables or the streams.
        """
        while self._outbox:
            entry, records = self._outbox.pop(0)
            if entry is not None:  # None: played back from the journal, already there
                await self.journal.write(self.table_id, entry)
            for record in records:
                self.fanout.publish(record)

    def remember_answer(
        self, seat: int | None, request_id: str, kind: str, response: bytes
    ) -> None:
        self._answers[(seat, request_id)] = (kind, response)

    def outbox_replayed(self, records: list[Record]) -> None:
        self._outbox.append((None, records))

    def deadline_passed_now(self) -> None:
        """The host's own step when a deadline passes (used to play the journal back)."""
        self._deadline = None
        self._deadline_passed()

    def resume_after_restart(self) -> None:
        """After playing the journal back: deadlines start afresh, bots take their seats again."""
        if self.current is not None and self.current.step != table_pb2.TURN_PHASE_UNSPECIFIED:
            timeout = (
                self.settings.commit_timeout
                if self.current.step == table_pb2.TURN_PHASE_COMMIT
                else self.settings.reveal_timeout
            )
            self._set_deadline(timeout)
        if self.match is not None and self.match.phase is match.MatchPhase.RIENTRO:
            self._set_deadline(self.settings.reveal_timeout)
        if self.phase == lobby_pb2.TABLE_PHASE_PLAYING:
            for seat in self.seats:
                if seat.is_bot:
                    self._start_bot(seat.number)

    def publish_replayed(self) -> None:
        """Publish what a played-back entry produced (it is in the journal already)."""
        for entry, records in self._outbox:
            assert entry is None
            for record in records:
                self.fanout.publish(record)
        self._outbox.clear()

    def _set_deadline(self, seconds: float) -> None:
        self._deadline = asyncio.get_running_loop().time() + seconds

    # --- Publishing -----------------------------------------------------------------------

    def _commit(
        self,
        kind: str,
        seat: int | None,
        request: Message | None,
        response: Message | None,
        events: PendingEvents,
        *,
        request_id: str | None = None,
        game: bool = True,
        host_seed: tuple[int, bytes] | None = None,
        deal_record: tuple[int, bytes] | None = None,
        tokens: tuple[tuple[bytes, int | None], ...] = (),
        forget_seat: int | None = None,
    ) -> list[int]:
        """Number one accepted action's events and queue it for the journal, then the streams.

        The job that called this ends before anything is sent: ``_flush`` writes
        the entry (one transaction) and only then publishes its events.
        """
        if self.replay is not None:
            return self.replay.commit(self, kind, seat, events, game=game)
        first = self.seq + 1
        records = []
        for offset, (public, private) in enumerate(events):
            public.seq = first + offset
            records.append(Record(public.seq, public, private))
        self.seq += len(records)
        response_bytes = response.SerializeToString() if response is not None else b""
        self._outbox.append(
            (
                Entry(
                    kind=kind,
                    seat=seat,
                    request_id=request_id or None,
                    request=request.SerializeToString() if request is not None else b"",
                    response=response_bytes,
                    events=[
                        JournaledEvent(
                            r.seq,
                            r.public.SerializeToString(),
                            {s: p.SerializeToString() for s, p in r.private.items()},
                        )
                        for r in records
                    ],
                    host_seed=host_seed,
                    deal_record=deal_record,
                    tokens=tokens,
                    forget_seat=forget_seat,
                ),
                records,
            )
        )
        if request_id:
            self._answers[(seat, request_id)] = (kind, response_bytes)
        if game and records:
            self.last_game_seq = records[-1].seq
        return [r.seq for r in records]

    def _deal_event(
        self,
        public: deal_pb2.DealEvent,
        private: dict[int, deal_pb2.PrivateDealEvent] | None = None,
    ) -> tuple[table_pb2.TableEvent, dict[int, deal_pb2.PrivateDealEvent]]:
        """Serialize a deal event once: those bytes go on the wire and into the hash chain."""
        assert self.current is not None
        data = public.SerializeToString()
        self.current.recorder.public(data)
        private = private or {}
        for seat, part in private.items():
            self.current.recorder.private(seat, part.SerializeToString())
            self.current.private_events.setdefault(seat, []).append(part)
        event = table_pb2.TableEvent(deal=table_pb2.DealEventEnvelope(public_event=data))
        return event, private

    def _seat_changed(
        self, seat: int
    ) -> tuple[table_pb2.TableEvent, dict[int, deal_pb2.PrivateDealEvent]]:
        return table_pb2.TableEvent(seat_changed=self.seat_info(seat)), {}

    # --- Lobby ----------------------------------------------------------------------------

    def seat_info(self, seat: int) -> lobby_pb2.SeatInfo:
        s = self.seats[seat]
        connected = s.is_bot or (s.taken and seat in self.fanout.connected_seats())
        return lobby_pb2.SeatInfo(
            seat=seat, taken=s.taken, name=s.name, bot=s.is_bot, connected=connected
        )

    def summary(self) -> lobby_pb2.TableSummary:
        return lobby_pb2.TableSummary(
            table_id=self.table_id,
            name=self.config.name,
            ruleset=wire.ruleset_options_to_pb(self.ruleset),
            preset=wire.PRESET_BY_NAME[self.preset],
            seats=[self.seat_info(n) for n in range(len(self.seats))],
            phase=self.phase,
            has_password=self.password_digest is not None,
        )

    def _check_password(self, password: str | None) -> None:
        if self.password_digest is None or self.replay is not None:
            return
        if password is None or not secrets.compare_digest(
            auth.token_digest(password), self.password_digest
        ):
            raise permission_denied(
                "BAD_PASSWORD", "this table needs its password, and that is not it"
            )

    def _free_seat(self, wanted: int | None) -> int:
        if wanted is not None:
            if wanted >= len(self.seats):
                raise not_found(
                    "NO_SUCH_SEAT", f"this table has seats 0..{len(self.seats) - 1}, not {wanted}"
                )
            if self.seats[wanted].taken:
                raise Refusal(
                    grpc.StatusCode.ALREADY_EXISTS, "SEAT_TAKEN", f"seat {wanted} is taken"
                )
            return wanted
        free = next((s.number for s in self.seats if not s.taken), None)
        if free is None:
            raise Refusal(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "TABLE_FULL",
                "every seat of this table is taken",
            )
        return free

    def join(self, request: lobby_pb2.JoinTableRequest) -> lobby_pb2.JoinTableResponse:
        name = request.player_name.strip()
        if not 1 <= len(name) <= MAX_NAME:
            raise malformed(f"a player name has 1 to {MAX_NAME} characters")
        self._check_password(request.password if request.HasField("password") else None)
        if self.phase != lobby_pb2.TABLE_PHASE_WAITING:
            raise precondition(
                "MATCH_STARTED", "the match has started: seats can no longer be taken"
            )
        seat = self._free_seat(request.seat if request.HasField("seat") else None)
        token = auth.new_token()
        digest = auth.token_digest(token)
        self.seats[seat] = SeatState(seat, name, True, 0)
        response = lobby_pb2.JoinTableResponse(seat=seat, seat_token=token)
        stored = lobby_pb2.JoinTableResponse(seat=seat)  # the journal never holds the token itself
        kept = lobby_pb2.JoinTableRequest()
        kept.CopyFrom(request)
        kept.ClearField("password")  # nor the table's password
        self._commit(
            "join",
            seat,
            kept,
            stored,
            [self._seat_changed(seat)],
            game=False,
            tokens=((digest, seat),),
        )
        self.tokens.add(digest, auth.Principal(self.table_id, seat))
        return response

    def spectate(self, request: lobby_pb2.SpectateTableRequest) -> lobby_pb2.SpectateTableResponse:
        self._check_password(request.password if request.HasField("password") else None)
        token = auth.new_token()
        digest = auth.token_digest(token)
        self._commit("spectate", None, None, None, [], tokens=((digest, None),))
        self.tokens.add(digest, auth.Principal(self.table_id, None))
        return lobby_pb2.SpectateTableResponse(spectator_token=token)

    def add_bot(self, caller: int, request: lobby_pb2.AddBotRequest) -> lobby_pb2.AddBotResponse:
        if self.phase != lobby_pb2.TABLE_PHASE_WAITING:
            raise precondition("MATCH_STARTED", "bots are seated before the match starts")
        if request.level not in lobby_pb2.BotLevel.values():
            raise malformed(f"bot level {request.level} is not a known level")
        seat = self._free_seat(request.seat if request.HasField("seat") else None)
        level = request.level or lobby_pb2.BOT_LEVEL_MEDIUM
        self.seats[seat] = SeatState(seat, f"Bot {seat}", True, level)
        self._commit(
            "add_bot",
            caller,
            request,
            lobby_pb2.AddBotResponse(seat=seat),
            [self._seat_changed(seat)],
            game=False,
        )
        return lobby_pb2.AddBotResponse(seat=seat)

    def leave(
        self, seat: int, request: lobby_pb2.LeaveTableRequest
    ) -> lobby_pb2.LeaveTableResponse:
        if self.phase == lobby_pb2.TABLE_PHASE_WAITING:
            self.seats[seat] = SeatState(seat)
        else:
            # During a match the seat keeps playing: a bot takes it over.
            self.seats[seat].bot_level = lobby_pb2.BOT_LEVEL_EASY
        self.tokens.remove_seat(self.table_id, seat)
        self._commit(
            "leave", seat, request, None, [self._seat_changed(seat)], game=False, forget_seat=seat
        )
        if self.phase == lobby_pb2.TABLE_PHASE_PLAYING:
            self._start_bot(seat)
        return lobby_pb2.LeaveTableResponse()

    def connection_changed(self, seat: int) -> None:
        """A seat's stream opened or closed: everyone sees who is there."""
        if self.seats[seat].taken:
            self._commit("connection", seat, None, None, [self._seat_changed(seat)], game=False)

    def chat(self, seat: int, request: table_pb2.SendChatRequest) -> table_pb2.SendChatResponse:
        text = request.text.strip()
        if not 1 <= len(text) <= MAX_CHAT:
            raise malformed(f"a chat line has 1 to {MAX_CHAT} characters")
        line = table_pb2.ChatMessage(seat=seat, name=self.seats[seat].name, text=text)
        self._commit(
            "chat", seat, request, None, [(table_pb2.TableEvent(chat=line), {})], game=False
        )
        return table_pb2.SendChatResponse()

    def start_match(
        self, seat: int, request: lobby_pb2.StartMatchRequest
    ) -> lobby_pb2.StartMatchResponse:
        if self.phase != lobby_pb2.TABLE_PHASE_WAITING:
            raise precondition("MATCH_STARTED", "the match has already started")
        players = [s.number for s in self.seats if s.taken]
        try:
            self.ruleset.check_players(len(players))
        except InvalidRuleset as error:
            raise precondition(
                "NOT_ENOUGH_PLAYERS",
                str(error).partition(": ")[2] or str(error),
                str(error).partition(":")[0],
            ) from None
        self.phase = lobby_pb2.TABLE_PHASE_PLAYING
        # R2.1: the first dealer is drawn at random by the host, announced before any commitment.
        if self.replay is not None:
            first_dealer = self.replay.first_dealer()
        else:
            first_dealer = secrets.choice(players)
        self.match = match.start_match(self.ruleset, players, first_dealer)
        started = table_pb2.MatchStarted(first_dealer_seat=first_dealer, seats=players)
        self._commit(
            "start", seat, request, None, [(table_pb2.TableEvent(match_started=started), {})]
        )
        for s in players:
            if self.seats[s].is_bot:
                self._start_bot(s)
        self._announce_deal()
        return lobby_pb2.StartMatchResponse()

    def _start_bot(self, seat: int) -> None:
        if self.on_bot_needed is not None and seat not in self.bots:
            self.bots[seat] = self.on_bot_needed(self, seat)

    # --- Moves: idempotency and staleness ------------------------------------------------

    def _repeat(self, seat: int, kind: str, context: table_pb2.MoveContext) -> bytes | None:
        """The answer already given to this request id, when this is a retry."""
        if not context.request_id:
            return None
        found = self._answers.get((seat, context.request_id))
        if found is None:
            return None
        if found[0] != kind:
            raise malformed(f"request id {context.request_id!r} was already used for a {found[0]}")
        return found[1]

    def _check_fresh(self, context: table_pb2.MoveContext) -> None:
        if context.last_seen_seq > self.seq:
            raise malformed(
                f"last_seen_seq {context.last_seen_seq} is after the table's last event {self.seq}"
            )
        if context.last_seen_seq < self.last_game_seq:
            raise precondition(
                "STALE_VIEW",
                f"the table changed after event {context.last_seen_seq} "
                f"(now at {self.last_game_seq}): "
                "catch up on the events and decide again",
            )

    @property
    def deal_state(self) -> deal.DealState | None:
        return None if self.match is None else self.match.deal

    def _turn_state(self, seat: int) -> deal.DealState:
        state = self.deal_state
        if self.match is None or self.match.phase is not match.MatchPhase.IN_DEAL or state is None:
            raise precondition("NO_DEAL", "no deal is being played now", "R3")
        if seat not in state.seats:
            raise precondition("NOT_IN_DEAL", f"seat {seat} does not play this deal", "R3")
        if state.turn != seat:
            raise precondition(
                "NOT_YOUR_TURN", f"it is seat {state.turn}'s turn, not seat {seat}'s", "R3"
            )
        return state

    def _apply(self, seat: int | None, action: match.MatchAction) -> list[events.Event]:
        """Ask the engine; on success the table's match state is the new one."""
        assert self.match is not None
        try:
            self.match, engine_events = match.apply_match(self.match, seat, action)
        except RuleViolation as violation:
            raise rule_broken(violation) from None
        return engine_events

    def draw(self, seat: int, request: table_pb2.DrawRequest) -> table_pb2.DrawResponse:
        repeated = self._repeat(seat, "draw", request.context)
        if repeated is not None:
            return table_pb2.DrawResponse.FromString(repeated)
        try:
            source = wire.draw_source_from_pb(request.source)
        except wire.WireError as error:
            raise malformed(str(error)) from None
        self._turn_state(seat)
        self._check_fresh(request.context)
        engine_events = self._apply(seat, actions.Draw(source))
        assert self.deal_state is not None
        response = table_pb2.DrawResponse(card=self.deal_state.hand(seat)[-1])
        self._publish_engine_events(
            "draw", seat, request, response, request.context.request_id, engine_events
        )
        return response

    def return_discard(
        self, seat: int, request: table_pb2.ReturnDiscardRequest
    ) -> table_pb2.ReturnDiscardResponse:
        repeated = self._repeat(seat, "return_discard", request.context)
        if repeated is not None:
            return table_pb2.ReturnDiscardResponse.FromString(repeated)
        self._turn_state(seat)
        self._check_fresh(request.context)
        engine_events = self._apply(seat, actions.ReturnDiscard())
        response = table_pb2.ReturnDiscardResponse()
        self._publish_engine_events(
            "return_discard", seat, request, response, request.context.request_id, engine_events
        )
        return response

    def play(self, seat: int, request: table_pb2.PlayRequest) -> table_pb2.PlayResponse:
        repeated = self._repeat(seat, "play", request.context)
        if repeated is not None:
            return table_pb2.PlayResponse.FromString(repeated)
        try:
            play = wire.play_from_pb(
                request.operations,
                request.discard if request.HasField("discard") else None,
                self.ruleset.decks,
            )
        except wire.WireError as error:
            raise malformed(str(error)) from None
        self._turn_state(seat)
        self._check_fresh(request.context)
        engine_events = self._apply(seat, play)
        response = table_pb2.PlayResponse()
        self._publish_engine_events(
            "play", seat, request, response, request.context.request_id, engine_events
        )
        return response

    def _deal_event_from_engine(
        self, event: events.Event
    ) -> tuple[table_pb2.TableEvent, dict[int, deal_pb2.PrivateDealEvent]]:
        """An engine deal event on the wire: public as a spectator sees it, private per seat.

        ``views.view_event`` is the one function that removes hidden cards.
        """
        state = self.deal_state
        assert state is not None
        public = wire.deal_event_to_pb(
            views.view_event(event, None), self.table_id, self.deal_no, state.opened
        )
        private = {}
        for seat in state.seats:
            part = wire.private_event_to_pb(
                views.view_event(event, seat), seat, self.table_id, self.deal_no
            )
            if part is not None:
                private[seat] = part
        return self._deal_event(public, private)

    def _publish_engine_events(
        self,
        kind: str,
        seat: int | None,
        request: Message | None,
        response: Message | None,
        request_id: str | None,
        engine_events: list[events.Event],
    ) -> None:
        """Journal and publish an accepted move, then take the table's own steps after it."""
        out = [self._deal_event_from_engine(e) for e in engine_events if wire.is_deal_event(e)]
        # A move's response names the seq of the move's own event, the first one it caused.
        if response is not None and hasattr(response, "seq"):
            response.seq = self.seq + 1  # type: ignore[attr-defined]
        self._commit(kind, seat, request, response, out, request_id=request_id)
        assert self.match is not None
        if self.match.phase is match.MatchPhase.IN_DEAL and self.deal_state is not None:
            if self.deal_state.phase is deal.Phase.REBUILD:
                self._rebuild_stock()
            return
        self._end_deal([e for e in engine_events if not wire.is_deal_event(e)])

    def _rebuild_stock(self) -> None:
        """R10.1: the table makes the new stock from the fair deal's stream (FAIR_DEAL.md)."""
        state = self.deal_state
        assert state is not None and self.current is not None
        order = self.current.exchange.rebuilt_stock(state.discard_pile)
        engine_events = self._apply(None, actions.RebuildStock(tuple(order)))
        self._publish_engine_events("rebuild", None, None, None, None, engine_events)

    # --- The fair-deal exchange -----------------------------------------------------------

    def _announce_deal(self) -> None:
        """Step 1: a new deal attempt and the host's commitment; its seed is journaled, secret."""
        assert self.match is not None
        self.deal_no += 1
        setup = DealSetup(
            table_id=self.table_id,
            deal_no=self.deal_no,
            dealer=self.match.dealer,
            seats_in_play=self.match.seats_in_play,
            deck_size=self.ruleset.deck_size,
            ruleset=wire.ruleset_to_pb(self.preset, self.ruleset),
        )
        host_seed = self.replay.host_seed(self.deal_no) if self.replay is not None else new_seed()
        self.current = DealInProgress(
            HostExchange(setup, host_seed), DealRecorder(self.table_id, self.deal_no)
        )
        announced = self.current.exchange.announce()
        self._commit(
            "announce",
            None,
            None,
            None,
            [self._deal_event(announced)],
            host_seed=(self.deal_no, host_seed),
        )
        self._set_deadline(self.settings.commit_timeout)

    def _exchange_for(self, seat: int, deal_no: int, step: int) -> DealInProgress:
        current = self.current
        if current is None or current.deal_no != deal_no:
            now = f"deal {current.deal_no} is" if current is not None else "no deal is"
            raise precondition(
                "WRONG_DEAL", f"deal {deal_no} is not in its fair-deal exchange ({now})"
            )
        if seat not in current.exchange.setup.seats_in_play:
            raise precondition("NOT_IN_DEAL", f"seat {seat} does not play deal {deal_no}")
        if current.step != step:
            wanted = "commitments" if step == table_pb2.TURN_PHASE_COMMIT else "reveals"
            raise precondition("WRONG_STEP", f"deal {deal_no} is not taking {wanted} now")
        return current

    def commit_seed(
        self, seat: int, request: table_pb2.CommitSeedRequest
    ) -> table_pb2.CommitSeedResponse:
        if len(request.commitment) != spec.DIGEST_BYTES:
            raise malformed(
                f"a commitment is {spec.DIGEST_BYTES} bytes, not {len(request.commitment)}"
            )
        repeated = self._repeat(seat, "commit", request.context)
        if repeated is not None:
            return table_pb2.CommitSeedResponse()
        current = self._exchange_for(seat, request.deal_no, table_pb2.TURN_PHASE_COMMIT)
        if seat not in current.exchange.awaiting_commitments:
            raise Refusal(
                grpc.StatusCode.ALREADY_EXISTS,
                "ALREADY_COMMITTED",
                f"seat {seat} has already committed for deal {current.deal_no}",
            )
        try:
            current.exchange.receive_commitment(seat, request.commitment)
        except ExchangeError as error:
            raise precondition("FAIR_DEAL_OUT_OF_ORDER", str(error)) from None
        response = table_pb2.CommitSeedResponse()
        self._commit(
            "commit", seat, request, response, [], request_id=request.context.request_id, game=False
        )
        if not current.exchange.awaiting_commitments:
            self._publish_commitments()
        return response

    def _publish_commitments(self) -> None:
        """Step 3: every commitment received; the seats without one are left out."""
        current = self.current
        assert current is not None
        published = current.exchange.publish_commitments()
        current.step = table_pb2.TURN_PHASE_REVEAL
        self._commit("commitments", None, None, None, [self._deal_event(published)])
        if current.exchange.awaiting_reveals:
            self._set_deadline(self.settings.reveal_timeout)
        else:
            self._publish_reveals()

    def reveal_seed(
        self, seat: int, request: table_pb2.RevealSeedRequest
    ) -> table_pb2.RevealSeedResponse:
        if len(request.seed) != spec.SEED_BYTES:
            raise malformed(f"a seed is {spec.SEED_BYTES} bytes, not {len(request.seed)}")
        repeated = self._repeat(seat, "reveal", request.context)
        if repeated is not None:
            return table_pb2.RevealSeedResponse()
        current = self._exchange_for(seat, request.deal_no, table_pb2.TURN_PHASE_REVEAL)
        if current.exchange.left_out.get(seat) == deal_pb2.LEFT_OUT_REASON_NO_COMMITMENT:
            raise precondition(
                "NOT_COMMITTED",
                f"seat {seat} sent no commitment for deal {current.deal_no} in time",
            )
        if seat not in current.exchange.awaiting_reveals:
            raise Refusal(
                grpc.StatusCode.ALREADY_EXISTS,
                "ALREADY_REVEALED",
                f"seat {seat} has already revealed for deal {current.deal_no}",
            )
        try:
            bad = current.exchange.receive_reveal(seat, request.seed, request.cut)
        except ExchangeError as error:
            raise precondition("FAIR_DEAL_OUT_OF_ORDER", str(error)) from None
        response = table_pb2.RevealSeedResponse()
        # A wrong reveal is still a fair-deal message the record shows: journal it either way.
        self._commit(
            "reveal", seat, request, response, [], request_id=request.context.request_id, game=False
        )
        if not current.exchange.awaiting_reveals:
            self._publish_reveals()
        if bad is not None:
            raise precondition(
                "BAD_REVEAL",
                f"the seed and cut do not match the commitment (or the cut is out of range): "
                f"seat {seat} is left out of deal {current.deal_no}'s mix",
            )
        return response

    def _publish_reveals(self) -> None:
        """Step 4 then 5: every reveal and the seats left out; then the deal itself."""
        current = self.current
        assert current is not None
        self._deadline = None
        revealed = current.exchange.publish_reveals()
        out = [self._deal_event(revealed)]
        engine_events = self._apply(None, match.StartDeal(tuple(current.exchange.derivation.deck)))
        current.step = table_pb2.TURN_PHASE_UNSPECIFIED
        out += [self._deal_event_from_engine(e) for e in engine_events]
        self._commit("deal", None, None, None, out)

    def _deadline_passed(self) -> None:
        if self.match is not None and self.match.phase is match.MatchPhase.RIENTRO:
            self._rientro_unanswered()
            return
        current = self.current
        if current is None:
            return
        if current.step == table_pb2.TURN_PHASE_COMMIT:
            self._publish_commitments()
        elif current.step == table_pb2.TURN_PHASE_REVEAL:
            self._publish_reveals()

    # --- The end of a deal ---------------------------------------------------------------

    def _end_deal(self, match_events: list[events.Event]) -> None:
        """Step 6 and the record: the host's seed, the signature, the scores; then the next deal."""
        current, m = self.current, self.match
        assert current is not None and m is not None
        out = [self._deal_event(current.exchange.reveal_host_seed())]
        record = current.recorder.finish(self.identity)
        signed = table_pb2.DealSigned(
            deal_no=current.deal_no, chain_head=current.recorder.head, signature=record.signature
        )
        out.append((table_pb2.TableEvent(deal_signed=signed), {}))
        out.append((table_pb2.TableEvent(match_update=self.match_update()), {}))
        self.recorders[current.deal_no] = current.recorder
        self._commit(
            "deal_end",
            None,
            None,
            None,
            out,
            deal_record=(current.deal_no, record.to_json().encode("utf-8")),
        )
        self.current = None
        if m.phase is match.MatchPhase.OVER:
            self.phase = lobby_pb2.TABLE_PHASE_FINISHED
        elif m.phase is match.MatchPhase.DEAL_DUE:
            self._announce_deal()
        elif m.phase is match.MatchPhase.RIENTRO:
            self._set_deadline(self.settings.reveal_timeout)

    def answer_rientro(
        self, seat: int, buy_back: bool, request: table_pb2.AnswerRientroRequest | None = None
    ) -> table_pb2.AnswerRientroResponse:
        """R11.3: a busted seat buys back in or retires."""
        if self.match is None or self.match.phase is not match.MatchPhase.RIENTRO:
            raise precondition("NO_RIENTRO", "no buy-back is on offer now", "R11.3")
        self._apply(seat, match.BuyBack() if buy_back else match.Retire())
        response = table_pb2.AnswerRientroResponse()
        request_id = request.context.request_id if request is not None else None
        self._commit(
            "rientro",
            seat,
            request,
            response,
            [(table_pb2.TableEvent(match_update=self.match_update()), {})],
            request_id=request_id,
        )
        self._after_rientro()
        return response

    def _after_rientro(self) -> None:
        assert self.match is not None
        if self.match.phase is match.MatchPhase.OVER:
            self.phase = lobby_pb2.TABLE_PHASE_FINISHED
        elif self.match.phase is match.MatchPhase.DEAL_DUE:
            self._deadline = None
            self._announce_deal()

    def _rientro_unanswered(self) -> None:
        """R11.3: a busted seat that did not answer the buy-back offer in time retires."""
        assert self.match is not None
        for seat in self.match.pending_rientro:
            self._apply(seat, match.Retire())
        self._commit(
            "rientro_timeout",
            None,
            None,
            None,
            [(table_pb2.TableEvent(match_update=self.match_update()), {})],
        )
        self._after_rientro()

    def match_update(self) -> table_pb2.MatchUpdate:
        m = self.match
        assert m is not None
        by_deals = m.ruleset.match_mode is rules.MatchMode.DEALS
        scores = [
            table_pb2.SeatScore(
                seat=seat,
                total=m.deals_won[i] if by_deals else m.totals[i],
                out=m.out[i],
                rientri=m.rientri[i],
                chips=m.chips[i],
            )
            for i, seat in enumerate(m.seats)
        ]
        offers = [
            table_pb2.RientroOffer(seat=seat, fee=m.rientro_fee(seat)) for seat in m.pending_rientro
        ]
        return table_pb2.MatchUpdate(
            scores=scores,
            match_over=m.phase is match.MatchPhase.OVER,
            winners=m.winners,
            rientro_offers=offers,
        )

    def deal_record(self, seat: int | None, deal_no: int) -> bytes:
        """The signed record of an ended deal, with the caller's own private events if it played."""
        recorder = self.recorders.get(deal_no)
        if recorder is not None:
            return recorder.record_for(seat).to_json().encode("utf-8")
        record = self.journal.deal_record(self.table_id, deal_no)
        if record is None:
            raise not_found(
                "NO_SUCH_RECORD", f"deal {deal_no} of this table has not ended (or never was)"
            )
        return record

    # --- Views ---------------------------------------------------------------------------

    def view(self, seat: int | None) -> table_pb2.TableView:
        """The table as ``seat`` (None: a spectator) sees it, through the engine's view."""
        from host.views import table_view

        return table_view(self, seat)

    def subscribe(
        self, seat: int | None, after_seq: int
    ) -> tuple[list[table_pb2.TableEvent], Subscriber]:
        if after_seq > self.fanout.last_seq:
            raise malformed(
                f"after_seq {after_seq} is after the table's last event {self.fanout.last_seq}"
            )

        def snapshot() -> table_pb2.TableEvent:
            return table_pb2.TableEvent(seq=self.fanout.last_seq, snapshot=self.view(seat))

        return self.fanout.subscribe(seat, after_seq, snapshot)
