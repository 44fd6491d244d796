"""The task of one table: it owns the table's state and runs every change to it, one at a time.

RPC handlers and bots hand it a function through ``call`` and wait for the
answer. A function checks, asks the engine and records what was accepted
(``_commit``) without awaiting anything, so nothing can interleave with it;
when it returns, the task journals each accepted entry (one transaction, in
a writer thread) and only then publishes its events and answers. Fair-deal
deadlines wake the task even when nobody calls.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from google.protobuf.message import Message

from host import auth
from host.errors import Refusal, malformed, rule_broken
from host.fanout import Fanout, Record
from host.journal import Entry, JournaledEvent, TableJournal
from scala40_net import deal, events, match, rules, views, wire
from scala40_net.errors import RuleViolation
from scala40_net.fairdeal.exchange import HostExchange
from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.fairdeal.record import DealRecorder
from scala40_net.pb import deal_pb2, lobby_pb2, table_pb2

if TYPE_CHECKING:
    from host.recovery import Replay

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_REQUEST_ID = 128

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
    # The pause between deals when the table's config does not set one (host.between_deals).
    between_deals: float = 20.0


@dataclass
class SeatState:
    """Who sits on a seat: a person (bot_level 0) or a bot of a BotLevel."""

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


class TableTask:
    """A table's state, its task, and the one way its changes are journaled and published."""

    def __init__(
        self,
        table_id: str,
        config: lobby_pb2.CreateTableRequest,
        ruleset: rules.Ruleset,
        journal: TableJournal,
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
        # The host bot seats' seeds and cuts by (deal_no, seat), as journaled; read back on a
        # restart so a bot that committed before it can still reveal (host.recovery).
        self.bot_seeds: dict[tuple[int, int], tuple[bytes, int]] = {}
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
        self.on_bot_needed: Callable[[TableTask, int], asyncio.Task[None]] | None = None
        # Set while the journal is played back after a restart (host.recovery).
        self.replay: Replay | None = None

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
            try:
                if self._inbox.qsize() or self._deadline is None:
                    item = await self._inbox.get()
                else:
                    async with asyncio.timeout(max(0.0, self._deadline - loop.time())):
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

        The table's own journal file is written in a writer thread, so a slow disk
        holds up this table only, never the other tables or the streams.
        """
        while self._outbox:
            entry, records = self._outbox.pop(0)
            if entry is not None:  # None: played back from the journal, already there
                await self.journal.write(entry)
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

    def seconds_to_deadline(self) -> float:
        """What is left of the running fair-deal or rientro deadline (0 when none runs)."""
        if self._deadline is None:
            return 0.0
        return max(0.0, self._deadline - asyncio.get_running_loop().time())

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
        bot_seed: tuple[int, int, bytes, int] | None = None,
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
                    bot_seed=bot_seed,
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

    @property
    def deal_state(self) -> deal.DealState | None:
        return None if self.match is None else self.match.deal

    def _apply(self, seat: int | None, action: match.MatchAction) -> list[events.Event]:
        """Ask the engine; on success the table's match state is the new one."""
        assert self.match is not None
        try:
            self.match, engine_events = match.apply_match(self.match, seat, action)
        except RuleViolation as violation:
            raise rule_broken(violation) from None
        return engine_events

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

    def _repeat(self, seat: int, kind: str, context: table_pb2.MoveContext) -> bytes | None:
        """The answer already given to this request id, when this is a retry."""
        if len(context.request_id) > MAX_REQUEST_ID:
            raise malformed(f"a request id has at most {MAX_REQUEST_ID} characters")
        if not context.request_id:
            return None
        found = self._answers.get((seat, context.request_id))
        if found is None:
            return None
        if found[0] != kind:
            raise malformed(f"request id {context.request_id!r} was already used for a {found[0]}")
        return found[1]

    def _start_bot(self, seat: int) -> None:
        if self.on_bot_needed is not None and seat not in self.bots:
            self.bots[seat] = self.on_bot_needed(self, seat)

    def _deadline_passed(self) -> None:
        """What the table does when a fair-deal or rientro deadline passes (``DealingTable``)."""
        raise NotImplementedError
