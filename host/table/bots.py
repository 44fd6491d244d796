"""Bot seats: the small interface a bot implements, a simple legal bot, and the in-host driver.

A bot decides from its seat's view only (``scala40_net.views.DealView``),
never from the host's state: the library's ``playable_state`` turns that view
into a deal state the engine can try moves on, with every card the seat
cannot see replaced by a placeholder. A bot takes part in the fair-deal
exchange with its own seed through the same ``SeatExchange`` a person's
client uses.
"""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar, cast

from host.edge.errors import Refusal
from scala40_net import actions, bots, deal, events, match, movegen, views, wire
from scala40_net.bots.base import playable_state
from scala40_net.fairdeal.exchange import ExchangeError
from scala40_net.pb import deal_pb2, lobby_pb2, table_pb2
from scala40_net.seat.fairdeal import FairDealSteps
from scala40_net.seat.link import SeatLink
from scala40_net.seat.refusal import HostRefusal

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from host.table.table import Table
    from host.table.task import TableTask

    T = TypeVar("T")

log = logging.getLogger(__name__)

# How long a bot waits before trying again a move the host could not save.
RETRY_SECONDS = 1.0


class Bot(Protocol):
    """What the host asks a bot. Stronger bots implement the same three questions."""

    def choose_draw(self, view: views.DealView) -> actions.DrawSource: ...

    def choose_play(self, view: views.DealView) -> actions.Play | None:
        """The play after the draw; None puts back the discard it cannot use (R3.2)."""
        ...

    def buys_back(self, fee: int) -> bool:
        """R11.3: whether to buy back in for ``fee`` chips."""
        ...


@dataclass
class SimpleBot:
    """Plays the engine's move generator: takes the discard only when it can use it at once."""

    def choose_draw(self, view: views.DealView) -> actions.DrawSource:
        state = playable_state(view)
        if state.discard_barred:
            return actions.DrawSource.STOCK
        try:
            wanted = movegen.wants_discard(state, view.turn)
        except Exception:  # the generator tries moves; a refusal there just means "no"
            wanted = None
        return actions.DrawSource.DISCARD if wanted is not None else actions.DrawSource.STOCK

    def choose_play(self, view: views.DealView) -> actions.Play | None:
        return movegen.first_legal_play(playable_state(view), view.turn)

    def buys_back(self, fee: int) -> bool:
        return False

    def observe(self, event: events.Event) -> None:
        return None  # it decides from the view alone, with no memory of the deal


def new_request_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True)
class Sight:
    """What a bot seat sees of its table at one moment, read inside the table's task."""

    last_seq: int
    deal_no: int | None
    step: int
    in_deal: bool
    deal_events: tuple[bytes, ...]
    private_events: tuple[deal_pb2.PrivateDealEvent, ...]  # this seat's, in order
    awaiting_commitment: bool
    awaiting_reveal: bool
    match_phase: match.MatchPhase | None
    rientro_fee: int | None
    view: views.DealView | None  # the seat's view when it is its move


class InHostTable:
    """A seat's link straight to its table's task (``seat.link.TableTransport``): the
    requests a remote seat sends over gRPC, run as the table's jobs, refused alike."""

    def __init__(self, task: TableTask, seat: int) -> None:
        self.task = task
        self.seat = seat

    async def _job(self, job: Callable[[Table], T]) -> T:
        # A table nobody watches waits, its bots too: every request of theirs, not only the
        # first of a step (a draw answered just before the pause is not followed by its play).
        # Nothing awaits between the wake-up and the job queued, so no pause comes in between.
        await self.task.awake()
        try:
            return await self.task.call(job)
        except Refusal as refusal:
            raise HostRefusal(
                refusal.code, refusal.sentence, refusal.rule or "", refusal.reason
            ) from refusal

    async def draw(self, request: table_pb2.DrawRequest) -> table_pb2.DrawResponse:
        return await self._job(lambda table: table.draw(self.seat, request))

    async def play(self, request: table_pb2.PlayRequest) -> table_pb2.PlayResponse:
        return await self._job(lambda table: table.play(self.seat, request))

    async def return_discard(
        self, request: table_pb2.ReturnDiscardRequest
    ) -> table_pb2.ReturnDiscardResponse:
        return await self._job(lambda table: table.return_discard(self.seat, request))

    async def commit_seed(
        self, request: table_pb2.CommitSeedRequest, kept: tuple[bytes, int] | None = None
    ) -> table_pb2.CommitSeedResponse:
        """With the bot's seed and cut, which the table journals (a restart commits again
        to the same ones)."""
        return await self._job(lambda table: table.commit_seed(self.seat, request, kept))

    async def reveal_seed(
        self, request: table_pb2.RevealSeedRequest
    ) -> table_pb2.RevealSeedResponse:
        return await self._job(lambda table: table.reveal_seed(self.seat, request))

    async def answer_rientro(
        self, request: table_pb2.AnswerRientroRequest
    ) -> table_pb2.AnswerRientroResponse:
        # The host's own answer for its bot: decided inside the table's task, never sent
        # twice, so without the request's id to recognise a repeat by.
        return await self._job(lambda table: table.answer_rientro(self.seat, request.buy_back))

    async def ready(self, request: table_pb2.ReadyRequest) -> table_pb2.ReadyResponse:
        return await self._job(lambda table: table.ready(self.seat, request))

    async def view(self) -> table_pb2.GetViewResponse:
        task = self.task
        return await self._job(
            lambda _: table_pb2.GetViewResponse(view=task.view(self.seat), seq=task.fanout.last_seq)
        )

    async def deal_record(self, deal_no: int) -> bytes:
        return await self._job(lambda table: table.deal_record(self.seat, deal_no))

    async def send_private(
        self, request: table_pb2.SendPrivateRequest
    ) -> table_pb2.SendPrivateResponse:
        return await self._job(lambda table: table.send_private(self.seat, request))


class InHostSeat:
    """Drives one bot seat inside the host: it reads its view and acts through the table's task."""

    def __init__(self, task: TableTask, seat: int, bot: Bot) -> None:
        self.task = task
        self.seat = seat
        self.bot = bot
        self.seen = 0  # the seq of the table the bot's last sight was taken at
        self.link = SeatLink(InHostTable(task, seat), lambda: self.seen)
        self.steps = FairDealSteps(self.link)
        self.reader = wire.DealEventReader(seat)
        self.told: tuple[int | None, int, int] = (None, 0, 0)  # deal, public and private told

    def _tell(self, sight: Sight) -> None:
        """Give the bot each new deal event once, as its seat sees it (``views.view_event``)."""
        observe = getattr(self.bot, "observe", None)
        deal_no, done, done_private = self.told
        if observe is None:
            return
        if deal_no != sight.deal_no:
            done = done_private = 0
        for raw in sight.deal_events[done:]:
            public = deal_pb2.DealEvent.FromString(raw)
            kind, private = public.WhichOneof("event"), None
            own_draw = kind == "drawn" and public.drawn.seat == self.seat
            if done_private < len(sight.private_events) and (kind == "started" or own_draw):
                wanted = "hand_dealt" if kind == "started" else "stock_card_drawn"
                if sight.private_events[done_private].WhichOneof("event") == wanted:
                    private = sight.private_events[done_private]
                    done_private += 1
            try:
                event = self.reader.read(public, private)
                if event is not None:
                    observe(event)
            except Exception:  # a bot's memory must not stall the table either
                log.exception("bot seat %d: observe failed", self.seat)
        self.told = (sight.deal_no, len(sight.deal_events), done_private)

    def _look(self, table: Table) -> Sight:
        """Run as a job of the table: the state then matches the events published so far."""
        seat = self.seat
        current, m = table.current, table.match
        state = m.deal if m is not None else None
        my_move = (
            m is not None
            and m.phase is match.MatchPhase.IN_DEAL
            and state is not None
            and state.turn == seat
        )
        pending = (
            m is not None and m.phase is match.MatchPhase.RIENTRO and seat in m.pending_rientro
        )
        return Sight(
            last_seq=table.seq,
            deal_no=current.deal_no if current is not None else None,
            step=current.step if current is not None else table_pb2.TURN_PHASE_UNSPECIFIED,
            in_deal=current is not None and seat in current.exchange.setup.seats_in_play,
            deal_events=tuple(current.recorder.events) if current is not None else (),
            private_events=tuple(current.private_events.get(seat, ()))
            if current is not None
            else (),
            awaiting_commitment=current is not None
            and seat in current.exchange.awaiting_commitments,
            awaiting_reveal=current is not None and seat in current.exchange.awaiting_reveals,
            match_phase=m.phase if m is not None else None,
            rientro_fee=m.rientro_fee(seat) if pending and m is not None else None,
            view=views.view_state(state, seat) if my_move and state is not None else None,
        )

    async def step(self) -> None:
        """Do whatever this seat has to do now, if anything."""
        task, seat = self.task, self.seat
        sight = await task.call(self._look)
        self.seen = sight.last_seq
        self._tell(sight)
        if sight.in_deal and sight.deal_no is not None:
            await self._fair_deal(sight)
        if sight.rientro_fee is not None and task.table.seats[seat].is_bot:
            # A bot seat answers for itself; a person's offer is theirs to answer (no answer
            # by its deadline retires them), even while a host bot plays their seat.
            await self.link.answer_rientro(self.bot.buys_back(sight.rientro_fee))
            return
        view = sight.view
        if view is None:
            return
        if view.phase is deal.Phase.DRAW:
            try:
                # In a thread: a strong bot thinks for a while, and the host's loop (every
                # table's streams) must not wait for it.
                source = await asyncio.to_thread(self.bot.choose_draw, view)
            except Exception:  # as in _play: never stall the table
                log.exception("bot seat %d: choose_draw failed", seat)
                source = actions.DrawSource.STOCK
            await self.link.draw(wire.draw_source_to_pb(source))
        elif view.phase is deal.Phase.PLAY:
            await self._play(view)

    async def _play(self, view: views.DealView) -> None:
        """The bot's play; if the engine refuses it, a bare discard, else the discard goes back.

        A bot must never leave its table waiting, whatever its strategy proposes.
        """
        seat = self.seat
        assert view.hand is not None
        try:
            chosen = await asyncio.to_thread(self.bot.choose_play, view)
        except Exception:  # a bot's bug must not stall the table: fall back to a bare discard
            log.exception("bot seat %d: choose_play failed", seat)
            chosen = None
        tries = [] if chosen is None else [chosen]
        tries += [actions.Play((), card) for card in reversed(view.hand)]
        for play in tries:
            operations, discard = wire.play_to_pb(play)
            try:
                await self.link.play(operations, discard)
                return
            except HostRefusal as refusal:
                if refusal.reason != "RULE_VIOLATION":
                    raise
        await self.link.return_discard()

    async def _fair_deal(self, sight: Sight) -> None:
        task, seat, steps = self.task, self.seat, self.steps
        deal_no = sight.deal_no
        assert deal_no is not None
        published = [deal_pb2.DealEvent.FromString(data) for data in sight.deal_events]
        if deal_no not in steps.exchanges:
            # A seed journaled before a restart: the same seed and cut, the same commitment.
            kept = task.table.bot_seeds.get((deal_no, seat))
            announced = next(e for e in published if e.WhichOneof("event") == "announced")
            mine = steps.take_up(seat, announced, kept[0] if kept else None)
            if kept is not None and mine is not None:
                mine.commit(kept[1] if mine.is_cutter else None)
        refusal = None
        if sight.step == table_pb2.TURN_PHASE_COMMIT and sight.awaiting_commitment:
            # A commitment the table does not have (a first one, or one whose write failed
            # and was undone) is sent; the same one again, since it binds the same seed.
            refusal = await steps.send_commitment(deal_no, keep_seed=True)
        elif sight.step == table_pb2.TURN_PHASE_REVEAL and sight.awaiting_reveal:
            commitments = next(e for e in published if e.WhichOneof("event") == "commitments")
            refusal = await steps.send_reveal(deal_no, steps.reveal_for(commitments))
        steps.forget_before(deal_no - 1)
        if refusal is not None:
            raise refusal


def level_bot(level: int) -> Bot:
    """The library's bot for a seat's ``BotLevel`` (unset: medium); its choices seeded by the OS."""
    names: dict[int, str] = {
        lobby_pb2.BOT_LEVEL_EASY: "easy",
        lobby_pb2.BOT_LEVEL_HARD: "hard",
        lobby_pb2.BOT_LEVEL_EXPERT: "expert",
    }
    return bots.make_bot(names.get(level, "medium"), random.Random())


def seat_bot(task: TableTask, seat: int) -> Bot:
    """The bot for a host bot seat: its own level, or the table's stand-in level for a
    person's seat."""
    return level_bot(task.table.seats[seat].bot_level or task.config.stand_in_level)


class SeatDriver(Protocol):
    """What the bot seat's task runs on every wake-up: ``InHostSeat``, or one composed of it."""

    async def step(self) -> None: ...


class Listener(SeatDriver, Protocol):
    """A driver that reads its seat's events, not only wakes on them (a private table's
    bot: every relayed message of a deal is its to take)."""

    def heard(self, events: Iterable[table_pb2.TableEvent]) -> None: ...

    def close(self) -> None: ...


async def run_bot_seat(task: TableTask, seat: int, driver: SeatDriver | None = None) -> None:
    """The task of a bot seat: wake on every event of its table, act when it has to
    (``driver``: how; unset, the seat's bot on ``InHostSeat``)."""
    if driver is None:
        driver = InHostSeat(task, seat, seat_bot(task, seat))
    listener = cast("Listener", driver) if hasattr(driver, "heard") else None
    subscriber = None
    try:
        # A person's seat is played only while its player is away.
        while not task.match_over and task.table.seats[seat].played_by_host:
            if subscriber is None or subscriber.dropped:
                if subscriber is not None:
                    task.fanout.unsubscribe(subscriber)
                if listener is None:
                    # Falling behind costs only a wake-up: the bot reads its view, not the
                    # events.
                    _, subscriber = task.fanout.subscribe(
                        seat, task.fanout.last_seq, table_pb2.TableEvent, internal=True
                    )
                else:
                    # Its stream as a client's starts: a snapshot, then every event after it.
                    await task.awake()
                    backlog, subscriber = await task.call(
                        lambda _: task.subscribe(seat, 0, internal=True)
                    )
                    listener.heard(backlog)
            if task.settings.bot_delay:
                await asyncio.sleep(task.settings.bot_delay)
            await task.awake()  # a table nobody watches waits, its bots too
            try:
                await driver.step()
            except (HostRefusal, ExchangeError) as refusal:
                log.warning("bot seat %d of table %s: %s", seat, task.table_id, refusal)
                if isinstance(refusal, HostRefusal) and refusal.transient:
                    # Nothing was done, so no event will wake the bot: try again in a while.
                    await asyncio.sleep(RETRY_SECONDS)
                    continue
            # Every change of the table is an event, the bot's own moves included.
            assert subscriber is not None
            received = [await subscriber.queue.get()]
            while not subscriber.queue.empty():
                received.append(subscriber.queue.get_nowait())
            if listener is not None:
                listener.heard(
                    table_pb2.SubscribeEventsResponse.FromString(data).event
                    for data in received
                    if data is not None
                )
    finally:
        if subscriber is not None:
            task.fanout.unsubscribe(subscriber)
        if listener is not None:
            listener.close()
        if task.bots.get(seat) is asyncio.current_task():
            del task.bots[seat]
