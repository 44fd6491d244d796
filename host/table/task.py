"""The task of one table: it owns the table and runs every change to it, one job at a time.

RPC handlers and bots hand it a function of the table through ``call`` and
wait for the answer. A job runs to its end without awaiting (so nothing can
interleave with it), and everything it accepted is then journaled in one
transaction (a writer thread) and only then published and answered. Jobs
that are waiting together run back to back and are journaled in one
transaction, then published and answered in order (a batch: at a private
table, the seats' shares of a drawn card come together and are relayed behind
one commit, not each behind the one before); a job that changes the game or
has steps to run after its commit ends its batch, so the turn clock, the
grace periods and the seats handed back see every such change as they would
alone. A job that fails, because its write failed (a full disk, a journal
locked by another process: every job of its batch) or because it raised
(that job alone), leaves nothing behind: the table is rebuilt from its
journal, the caller is told why, and the table serves on.
The table's deadline, its turn clock and the grace periods of absent
players (``host.table.turn_clock``, ``host.table.absences``) wake the task even when
nobody calls.

A match nobody watches (no seat's or spectator's stream open) for
``TableSettings.nobody_there`` seconds pauses: its host bots, its clocks and its
deadline wait, so a table of bots left alone neither burns a core nor fills its
journal. The first stream opened resumes it where it was (nothing is journaled:
a pause is not part of the match).
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc

from host.edge import auth
from host.edge.errors import Refusal, malformed, permission_denied, precondition
from host.journal.recovery import play_back
from host.journal.sqlite import Entry, Journal, JournalDamaged, JournalWriteFailed
from host.table import shuffle_checks
from host.table.absences import MORE_TIME_PER_DEAL, Absences
from host.table.deadline import Deadline
from host.table.fanout import Fanout, Ready, Record, Subscriber, prepare
from host.table.links import LiveChoices, TableLinks
from host.table.outbox import JobOutbox
from host.table.shuffle_checks import ShuffleChecks
from host.table.state import TableSettings, TableState
from host.table.table import Table
from host.table.turn_clock import TurnClock
from host.table.views import table_view
from scala40_net import match, rules
from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.pb import lobby_pb2, table_pb2

log = logging.getLogger(__name__)
T = TypeVar("T")

Job = Callable[[Table], Any]
# A job and its caller's answer (None: nobody waits for it).
Asked = tuple[Job, "asyncio.Future[Any] | None"]
# At most this many jobs in one batch, so the first of a flood is answered soon.
BATCH_JOBS = 32


@dataclass
class _Ran:
    """One job of a batch that ran: what it publishes, runs and answers once its batch is
    durable."""

    records: list[Record]
    steps: list[Callable[[], None]]
    future: asyncio.Future[Any] | None
    result: Any
    outcome: BaseException | None


class _Wake:
    """What the table's timer puts in its inbox: a deadline, the turn clock, a grace period or
    the pause may be due (``TableTask._wake`` looks which)."""


WAKE = _Wake()
# How long streams may come and go before the table says who is connected.
PRESENCE_SETTLE_SECONDS = 0.5
# How a host bot is seated: the registry's driver, given the task and the seat.
BotRunner = Callable[["TableTask", int], "asyncio.Task[None]"]


class TableTask:
    """One table's task: its table, fan-out, deadline, journal writes and host bot seats."""

    def __init__(
        self,
        table_id: str,
        config: lobby_pb2.CreateTableRequest,
        ruleset: rules.Ruleset,
        journal: Journal,
        identity: HostIdentity,
        tokens: auth.TokenBook,
        settings: TableSettings,
        run_bot: BotRunner | None = None,
        on_over: Callable[[TableTask], None] | None = None,
    ) -> None:
        self.table_id = table_id
        self.config = config
        self.ruleset = ruleset
        self.journal = journal
        self.identity = identity
        self.tokens = tokens
        self.settings = settings
        self.fanout = Fanout(
            settings.keep_events, settings.queue_size, settings.keep_waiting_events
        )
        self.fanout.waiting = True  # a table is created waiting; _watch follows its phase
        self.deadline = Deadline()
        self.clock = TurnClock()
        self.absences = Absences()
        self._outbox = JobOutbox()
        self._run_bot = run_bot
        self._on_over = on_over  # told once each match is over (and durable): the history
        self.bots: dict[int, asyncio.Task[None]] = {}
        self.table = self._new_table()
        self._inbox: asyncio.Queue[Asked | _Wake | None] = asyncio.Queue()
        # What was taken from the inbox but not run yet: the item a batch stopped at.
        self._held: collections.deque[Asked | _Wake | None] = collections.deque()
        # One timer for the table, moved only when what is due comes sooner than it fires (one
        # firing early finds nothing due and is set again): not a timeout around every job.
        self._timer: asyncio.TimerHandle | None = None
        self._wake_queued = False  # a WAKE is in the inbox
        self._task: asyncio.Task[None] | None = None
        self._failing_since: str | None = None  # the write failure already logged, if any
        self.last_request = 0.0  # loop time of the last job a caller handed in
        self.finished_at: float | None = None  # loop time the match ended, for the archive
        self.broken: str | None = None  # why the table can no longer take moves, if it cannot
        self._back: list[int] = []  # seats whose players came back, to hand back after the job
        self._presence_pending: set[int] = set()  # seats whose connection news is due
        self._nobody_since: float | None = None  # loop time the last stream closed, in a match
        self._awake = asyncio.Event()  # cleared while the table is paused
        self._awake.set()
        self._deadline_held: float | None = None  # what a paused table's deadline had left
        self.shuffle_checks = ShuffleChecks(self.call_soon)

    def _new_table(self) -> Table:
        """The table as created, before its journal is played back into it."""
        state = TableState.new(self.table_id, self.config, self.ruleset, self.settings)
        links = TableLinks(
            journal=self.journal,
            identity=self.identity,
            tokens=self.tokens,
            settings=self.settings,
            presence=self.fanout,
            deadline=self.deadline,
            outbox=self._outbox,
            choices=LiveChoices(self.fanout),
            seat_bot=self._start_bot,
        )
        return Table(state, links)

    def play_back(self) -> None:
        """Bring the table to where its journal ends, publishing every event (at start).

        A job the journal ends inside of (written by an older host that crashed
        in it) is finished now and written as one job before anyone is told of it.
        """
        self.fanout.waiting = False  # the whole log is read back; start() says which to keep
        rest = play_back(self.table, self.journal, self.fanout.publish)
        entries, records, _ = rest.take()
        if entries:
            self.journal.append_job(entries)
            log.warning(
                "table %s: its journal ended inside a job; the job's last %d entr(ies) were "
                "made again and written",
                self.table_id,
                len(entries),
            )
        for record in records:
            self.fanout.publish(record)
        self.table.links.outbox = self._outbox

    def start(self) -> None:
        """Run the task; deadlines start afresh and the host bots take their seats."""
        self.last_request = asyncio.get_running_loop().time()
        if self.table.state.private_cards:
            shuffle_checks.warm_up()
        self.table.resume()
        self._seat_bots()
        self._note_finished()
        self._watch()
        self._task = asyncio.create_task(self._run(), name=f"table {self.table_id}")

    async def stop(self) -> None:
        for task in self.bots.values():
            task.cancel()
        await asyncio.gather(*self.bots.values(), return_exceptions=True)
        self.bots.clear()
        await self.shuffle_checks.stop()
        if self._task is not None:
            await self._inbox.put(None)
            await self._task
        self.fanout.close()

    async def call(self, job: Callable[[Table], T]) -> T:
        """Run ``job`` on the table inside its task and return its answer (or raise its refusal)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self.last_request = loop.time()
        self._inbox.put_nowait((job, future))  # the inbox has no bound: nothing to wait for
        return await future

    def call_soon(self, job: Callable[[Table], object]) -> None:
        """Queue ``job`` for the table's task without waiting (from a closing stream, say)."""
        self._inbox.put_nowait((job, None))

    # --- Reads that run as jobs ------------------------------------------------------------

    def view(self, seat: int | None) -> table_pb2.TableView:
        """The table as ``seat`` (None: a spectator) sees it; call it inside a job."""
        view = table_view(self.table, seat)
        left = self.clock.remaining()
        if left is not None:
            view.turn_time_left_ms = round(left * 1000)
        return view

    def decide_absence(
        self, table: Table, caller: int, request: table_pb2.DecideAbsenceRequest
    ) -> table_pb2.DecideAbsenceResponse:
        """The deciding seat hands an absent seat to a host bot now, or gives it more time;
        before the match, it frees a seat somebody took.

        Absent is a person's seat with no event stream open: a player who is here
        (the decider included) plays their own turns. More time is bounded
        (``Absences.more_time``), so the table never waits on one seat longer than
        its clock plus the grace period, whatever is decided. After the match, a seat
        handed over no longer holds up a rematch (its stand-in agrees for it).
        """
        if request.choice == table_pb2.ABSENCE_CHOICE_FREE_SEAT:
            table.free_seat(caller, request.seat)
            return table_pb2.DecideAbsenceResponse()
        if caller != table.decider():
            raise permission_denied(
                "NOT_THE_DECIDER",
                "only the first person who joined this table decides for absent seats",
            )
        seats = table.state.seats
        if request.seat >= len(seats) or not seats[request.seat].taken:
            raise malformed(f"seat {request.seat} has no player at this table")
        if request.choice not in (
            table_pb2.ABSENCE_CHOICE_HAND_TO_BOT,
            table_pb2.ABSENCE_CHOICE_MORE_TIME,
        ):
            raise malformed(
                "choose ABSENCE_CHOICE_HAND_TO_BOT, ABSENCE_CHOICE_MORE_TIME or "
                "ABSENCE_CHOICE_FREE_SEAT"
            )
        seat = seats[request.seat]
        phase = table.state.phase
        if phase not in (lobby_pb2.TABLE_PHASE_PLAYING, lobby_pb2.TABLE_PHASE_FINISHED):
            raise precondition("NOT_ABSENT", "no match is being played: nobody is absent")
        if phase == lobby_pb2.TABLE_PHASE_FINISHED and (
            request.choice == table_pb2.ABSENCE_CHOICE_MORE_TIME
        ):
            # After a match no clock runs: an absent seat is only waited for (a rematch).
            raise precondition("NOT_ABSENT", "the match is over: no time runs out for anyone")
        if seat.is_bot or seat.away:
            raise precondition("NOT_ABSENT", f"a host bot already plays seat {request.seat}")
        if request.seat == caller or request.seat in self.fanout.connected_seats():
            raise precondition(
                "NOT_ABSENT",
                f"seat {request.seat}'s player is connected: only a seat with no event "
                "stream is decided for",
            )
        if request.choice == table_pb2.ABSENCE_CHOICE_HAND_TO_BOT:
            table.mark_away(request.seat, lobby_pb2.AWAY_REASON_HANDED_OVER)
            return table_pb2.DecideAbsenceResponse()
        deal_no = table.state.deal_no
        if not self.absences.more_time(request.seat, deal_no, table.state.grace_seconds):
            raise precondition(
                "NO_MORE_TIME",
                f"seat {request.seat} had its {MORE_TIME_PER_DEAL} extensions this deal: "
                "hand it to a host bot or wait",
            )
        if self.clock.seat == request.seat:
            self.clock.more_time(table, table.state.grace_seconds)
        return table_pb2.DecideAbsenceResponse()

    def subscribe(
        self, seat: int | None, after_seq: int, internal: bool = False
    ) -> tuple[list[table_pb2.TableEvent], Subscriber]:
        """A stream's first events and its subscriber; call it inside a job. ``internal``:
        a host bot's, not a client's (``Fanout.subscribe``)."""
        if after_seq > self.fanout.last_seq:
            raise Refusal(
                grpc.StatusCode.INVALID_ARGUMENT,
                "MALFORMED_REQUEST",
                f"after_seq {after_seq} is after the table's last event {self.fanout.last_seq}",
            )

        if not internal:  # a host bot's wake-up never wakes a table nobody watches
            self._resume_if_paused()

        def snapshot() -> table_pb2.TableEvent:
            return table_pb2.TableEvent(seq=self.fanout.last_seq, snapshot=self.view(seat))

        return self.fanout.subscribe(seat, after_seq, snapshot, internal)

    # --- Nobody watching: the table pauses ---------------------------------------------------

    @property
    def paused(self) -> bool:
        return not self._awake.is_set()

    async def awake(self) -> None:
        """Return once the table is not paused (at once, mostly): a host bot waits on it."""
        await self._awake.wait()

    def _pause_left(self) -> float | None:
        """Seconds until a match nobody watches pauses; None when someone watches (or no
        match is being played, or it is paused already)."""
        playing = self.table.state.phase == lobby_pb2.TABLE_PHASE_PLAYING
        if not playing or self.paused or self.fanout.watched():
            self._nobody_since = None
            return None
        now = asyncio.get_running_loop().time()
        if self._nobody_since is None:
            self._nobody_since = now
        return max(0.0, self._nobody_since + self.settings.nobody_there - now)

    def _pause_if_due(self) -> bool:
        """Pause the table if nobody has watched it for long enough; whether it is paused.

        Not while a job waits in the inbox: it was asked while the table went on (a host
        bot's move), and a paused table runs no bot's job."""
        left = self._pause_left()
        if left is not None and left <= 0 and self._inbox.empty() and not self._held:
            self._pause()
        return self.paused

    def _pause(self) -> None:
        self._awake.clear()
        self._nobody_since = None
        self._deadline_held = self.deadline.remaining() if self.deadline.armed else None
        log.info(
            "table %s: nobody has watched for %.0f s: paused until a stream opens",
            self.table_id,
            self.settings.nobody_there,
        )

    def _resume_if_paused(self) -> None:
        """Someone opens a stream: the paused table goes on, its clocks where they were."""
        if not self.paused:
            return
        self._awake.set()
        if self._deadline_held is not None and self.deadline.armed:
            self.deadline.arm(self._deadline_held)
        self._deadline_held = None
        self.clock.restart(self.table)
        log.info("table %s: a stream opened: the table goes on", self.table_id)

    def stream_opened(self, seat: int) -> None:
        """A seat's event stream opened: an away player who reconnects gets the seat back at
        the next turn boundary, and everyone is told who is there."""
        self.absences.stream_opened(seat)
        self._presence_changed(seat)

    def stream_closed(self, seat: int) -> None:
        self._presence_changed(seat)

    def _presence_changed(self, seat: int) -> None:
        """Tell who is connected once things settle: streams opened and closed in a burst
        (a client reconnecting, or one doing it on purpose) make one journaled event."""
        if seat in self._presence_pending:
            return
        self._presence_pending.add(seat)

        def tell() -> None:
            self._presence_pending.discard(seat)
            self.call_soon(lambda table: table.connection_changed(seat))

        asyncio.get_running_loop().call_later(PRESENCE_SETTLE_SECONDS, tell)

    def summary(self) -> lobby_pb2.TableSummary:
        return self.table.summary()

    @property
    def live(self) -> bool:
        """Counted against the host's table cap: a match not yet over."""
        return self.table.state.phase != lobby_pb2.TABLE_PHASE_FINISHED

    # --- The loop ---------------------------------------------------------------------------

    async def _run(self) -> None:
        try:
            while True:
                self._pause_if_due()  # also between the jobs of bots that never stop
                self._set_timer()
                item = self._held.popleft() if self._held else await self._inbox.get()
                if item is None:
                    return
                if isinstance(item, _Wake):
                    self._wake_queued = False
                    await self._wake()
                    continue
                await self._run_jobs(item, more=True)
        finally:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

    def _set_timer(self) -> None:
        """The table's timer at the first of its due times (``_next_wake``), or none: kept as it
        is while it fires no later than that, so a turn's jobs do not each move it."""
        if self._wake_queued:
            return
        wait = self._next_wake()
        timer = self._timer
        if wait is None:
            if timer is not None:
                timer.cancel()
                self._timer = None
            return
        loop = asyncio.get_running_loop()
        at = loop.time() + wait
        if timer is not None:
            if timer.when() <= at:
                return
            timer.cancel()
        self._timer = loop.call_at(at, self._timer_fired)

    def _timer_fired(self) -> None:
        self._timer = None
        self._wake_queued = True
        self._inbox.put_nowait(WAKE)

    def _next_wake(self) -> float | None:
        """Seconds until the first of the deadline, the turn clock and a grace period."""
        pause = self._pause_left()
        if self.paused:
            return None  # only a call (a stream opening) wakes a paused table
        times = [
            self.deadline.remaining() if self.deadline.armed else None,
            self.clock.remaining(),
            self.absences.remaining(self.table.state.grace_seconds),
            pause,
        ]
        due = [t for t in times if t is not None]
        return min(due) if due else None

    async def _wake(self) -> None:
        """Whatever is due: the fair-deal or rientro deadline, a turn, a grace period; or,
        nobody watching for a while, the pause of the whole table."""
        if self._pause_if_due():
            return
        if self.deadline.armed and self.deadline.remaining() <= 0:
            self.deadline.clear()
            await self._run_job(lambda table: table.deadline_passed(), None)
        left = self.clock.remaining()
        turn_due = left is not None and left <= 0
        if turn_due and not await self._run_job(lambda table: table.play_timed_out_turn(), None):
            self.clock.restart(self.table)  # not saved: tried again a whole turn later
        elif turn_due and self.table.state.private_cards:
            self.clock.stop()  # the seat's grace runs on the table's deadline (R10.3)
        for seat in self.absences.due(self.table.state.grace_seconds):
            if not await self._run_job(_gone(seat), None):
                self.absences.retry(seat)  # not saved: tried again a grace period later

    def _watch(self) -> None:
        """After a job: the turn clock, the grace periods and the event log follow the table."""
        self.fanout.waiting = self.table.state.phase == lobby_pb2.TABLE_PHASE_WAITING
        self.clock.watch(self.table)
        self._back = self.absences.watch(self.table, self.fanout)
        self.shuffle_checks.watch(self.table)

    async def _run_job(self, job: Job, future: asyncio.Future[Any] | None) -> bool:
        """Run one job alone (a batch of one); False when it failed and was undone."""
        return await self._run_jobs((job, future), more=False)

    def _next_job(self) -> Asked | None:
        """The next job waiting in the inbox, to join the running batch (None: nothing waits,
        or what waits is not a job, held for the loop)."""
        if self._held or self._inbox.empty():
            return None
        item = self._inbox.get_nowait()
        if isinstance(item, tuple):
            return item
        self._held.append(item)
        return None

    async def _run_jobs(self, first: Asked, *, more: bool) -> bool:
        """Run ``first`` (``more``: and the jobs waiting behind it, back to back, up to
        ``BATCH_JOBS``, until one changes the game, has steps after its commit, or fails),
        write all they accepted in one transaction, then publish and answer each in order.

        False when a job failed and was undone (its caller was told why).
        """
        ran: list[_Ran] = []
        entries: list[Entry] = []
        all_ran = True
        asked: Asked | None = first
        while asked is not None:
            job, future = asked
            asked = None
            if self.broken is not None:
                _answer(future, error=self._damaged())
                all_ran = False
                continue
            game_seq = self.table.state.last_game_seq
            outcome: BaseException | None = None
            result: Any = None
            try:
                result = job(self.table)
            except Refusal as refusal:
                outcome = refusal  # what it accepted before refusing (a bad reveal) is still kept
            except Exception as error:  # a bug: answer INTERNAL, undo the job, keep the table alive
                log.exception("table %s: a job failed; it is undone", self.table_id)
                self._outbox.take()
                # The jobs before it are kept: written first, so the rebuilt table has them.
                all_ran = await self._write(entries, ran) and all_ran
                entries, ran = [], []
                self._rebuild()
                _answer(future, error=error)
                all_ran = False
                continue
            accepted, records, steps = self._outbox.take()
            entries += accepted
            ran.append(_Ran(records, steps, future, result, outcome))
            ends_batch = steps or self.table.state.last_game_seq != game_seq
            if more and not ends_batch and len(ran) < BATCH_JOBS:
                asked = self._next_job()
        all_ran = await self._write(entries, ran) and all_ran
        self._watch()
        for seat in self._back:  # players back: from this turn boundary the seat is theirs
            await self._run_job(_back(seat), None)
        return all_ran

    async def _write(self, entries: list[Entry], ran: list[_Ran]) -> bool:
        """Journal what the jobs of ``ran`` accepted in one transaction, then publish and
        answer each in order; if the write fails, the table is rebuilt from its journal and
        every one of them is refused. False when it failed."""
        if not ran:
            return True
        ready: list[list[Ready]] = []

        def committed() -> None:
            """Everyone hears of the jobs: run on the loop as soon as the commit returns."""
            for done, messages in zip(ran, ready, strict=True):
                for record, message in zip(done.records, messages, strict=True):
                    self.fanout.publish(record, message)
                for step in done.steps:
                    step()
            self._note_finished()
            for done in ran:
                _answer(done.future, result=done.result, error=done.outcome)

        writing = self.journal.write_job(entries, committed) if entries else None
        # While the writer thread commits (the GIL released in the fsync): every stream
        # message, so that once it has, publishing only hands them over.
        ready += [[prepare(record) for record in done.records] for done in ran]
        if writing is None:
            committed()
            return True
        try:
            await writing
        except JournalWriteFailed as failure:
            self._write_failed(failure)
            self._rebuild()
            if isinstance(failure, JournalDamaged):  # it takes no write again: say so
                self.broken = failure.why
                refusal = self._damaged()
            else:
                refusal = Refusal(
                    grpc.StatusCode.UNAVAILABLE,
                    "NOT_SAVED",
                    f"the host could not save this move: {failure.why}; nothing of it "
                    "was done, try again",
                )
            for done in ran:
                _answer(done.future, error=refusal)
            return False
        self._write_succeeded()
        return True

    def _damaged(self) -> Refusal:
        return Refusal(
            grpc.StatusCode.UNAVAILABLE, "TABLE_DAMAGED", f"this table is damaged: {self.broken}"
        )

    def _rebuild(self) -> None:
        """The table as its journal has it: what a failed job changed in memory is gone.

        Nothing of the job was published, so the fan-out keeps what it has. A
        deadline the job had armed or cleared starts afresh from the rebuilt state.
        """
        table = self._new_table()
        try:
            rest = play_back(table, self.journal, None)
            if rest.entries:  # this host's journals end at job boundaries
                raise ValueError("the journal ends inside a job")
        except Exception as error:  # the journal itself went bad under the running table
            log.exception(
                "table %s: could not be rebuilt from its journal %s",
                self.table_id,
                self.journal.path,
            )
            # The log names the file; the players are told what it means for them.
            self.broken = f"its journal can no longer be played back ({error}): moves are refused"
            return
        table.links.outbox = self._outbox
        self.table = table
        table.resume()
        self._seat_bots()
        self.clock.watch(table)  # the same turn keeps its clock

    def _write_failed(self, failure: JournalWriteFailed) -> None:
        if isinstance(failure, JournalDamaged):
            log.error("table %s: %s: %s", self.table_id, failure.path, failure.why)
        elif self._failing_since != failure.why:  # logged once per kind of failure, not per move
            log.error(
                "table %s: the host could not save a move to %s: %s (moves are refused "
                "until a write succeeds)",
                self.table_id,
                failure.path,
                failure.why,
            )
            self._failing_since = failure.why

    def _write_succeeded(self) -> None:
        if self._failing_since is not None:
            log.warning(
                "table %s: the journal %s takes writes again", self.table_id, self.journal.path
            )
            self._failing_since = None

    def _note_finished(self) -> None:
        if self.table.state.phase != lobby_pb2.TABLE_PHASE_FINISHED:
            self.finished_at = None  # playing again (a rematch): not to be archived
        elif self.finished_at is None:
            self.finished_at = asyncio.get_running_loop().time()
            if self._on_over is not None:
                self._on_over(self)

    # --- Host bot seats ---------------------------------------------------------------------

    def _start_bot(self, seat: int) -> None:
        if self._run_bot is not None and seat not in self.bots:
            self.bots[seat] = self._run_bot(self, seat)

    def _seat_bots(self) -> None:
        for seat in self.table.state.bot_seats():
            self._start_bot(seat)

    @property
    def match_over(self) -> bool:
        m = self.table.match
        return m is not None and m.phase is match.MatchPhase.OVER


def _gone(seat: int) -> Job:
    """The job that hands a seat with no stream past its grace period to a host bot."""
    return lambda table: table.mark_away(seat, lobby_pb2.AWAY_REASON_DISCONNECTED)


def _back(seat: int) -> Job:
    """The job that gives a seat back to its player."""
    return lambda table: table.mark_back(seat)


def _answer(
    future: asyncio.Future[Any] | None, *, result: Any = None, error: BaseException | None = None
) -> None:
    if future is None:
        if error is not None and not isinstance(error, Refusal):
            log.error("a table's own step failed: %s", error)
        return
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
