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
from typing import TYPE_CHECKING, Protocol

import grpc

from host.edge.errors import Refusal
from scala40_net import actions, bots, deal, events, match, movegen, views, wire
from scala40_net.bots.base import playable_state
from scala40_net.fairdeal.exchange import ExchangeError, SeatExchange
from scala40_net.pb import deal_pb2, lobby_pb2, table_pb2

if TYPE_CHECKING:
    from host.table.table import Table
    from host.table.task import TableTask

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


class InHostSeat:
    """Drives one bot seat inside the host: it reads its view and acts through the table's task."""

    def __init__(self, task: TableTask, seat: int, bot: Bot) -> None:
        self.task = task
        self.seat = seat
        self.bot = bot
        self.exchanges: dict[int, SeatExchange] = {}
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

    def _context(self, sight: Sight) -> table_pb2.MoveContext:
        return table_pb2.MoveContext(request_id=new_request_id(), last_seen_seq=sight.last_seq)

    async def step(self) -> None:
        """Do whatever this seat has to do now, if anything."""
        task, seat = self.task, self.seat
        sight = await task.call(self._look)
        self._tell(sight)
        if sight.in_deal and sight.deal_no is not None:
            await self._fair_deal(sight)
        if sight.rientro_fee is not None and task.table.seats[seat].is_bot:
            # A bot seat answers for itself; a person's offer is theirs to answer (no answer
            # by its deadline retires them), even while a host bot plays their seat.
            buy = self.bot.buys_back(sight.rientro_fee)
            await task.call(lambda table: table.answer_rientro(seat, buy))
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
            request = table_pb2.DrawRequest(
                context=self._context(sight), source=wire.draw_source_to_pb(source)
            )
            await task.call(lambda table: table.draw(seat, request))
        elif view.phase is deal.Phase.PLAY:
            await self._play(sight, view)

    async def _play(self, sight: Sight, view: views.DealView) -> None:
        """The bot's play; if the engine refuses it, a bare discard, else the discard goes back.

        A bot must never leave its table waiting, whatever its strategy proposes.
        """
        task, seat = self.task, self.seat
        assert view.hand is not None
        try:
            chosen = await asyncio.to_thread(self.bot.choose_play, view)
        except Exception:  # a bot's bug must not stall the table: fall back to a bare discard
            log.exception("bot seat %d: choose_play failed", seat)
            chosen = None
        tries = [] if chosen is None else [chosen]
        tries += [actions.Play((), card) for card in reversed(view.hand)]
        for play in tries:
            operations = [wire.operation_to_pb(op) for op in play.operations]
            request = table_pb2.PlayRequest(context=self._context(sight), operations=operations)
            if play.discard is not None:
                request.discard = play.discard
            try:
                await task.call(lambda table, r=request: table.play(seat, r))  # type: ignore[misc]
                return
            except Refusal as refusal:
                if refusal.reason != "RULE_VIOLATION":
                    raise
        back = table_pb2.ReturnDiscardRequest(context=self._context(sight))
        await task.call(lambda table: table.return_discard(seat, back))

    async def _fair_deal(self, sight: Sight) -> None:
        task, seat = self.task, self.seat
        deal_no = sight.deal_no
        assert deal_no is not None
        published = [deal_pb2.DealEvent.FromString(data) for data in sight.deal_events]
        mine = self.exchanges.get(deal_no)
        if mine is None:
            # A seed journaled before a restart: the same seed and cut, the same commitment.
            kept = task.table.bot_seeds.get((deal_no, seat))
            mine = self.exchanges[deal_no] = SeatExchange(seat, kept[0] if kept else None)
            mine.on_announced(next(e for e in published if e.WhichOneof("event") == "announced"))
            if kept is not None:
                mine.commit(kept[1] if mine.is_cutter else None)
        if sight.step == table_pb2.TURN_PHASE_COMMIT and sight.awaiting_commitment:
            # A commitment the table does not have (a first one, or one whose write failed
            # and was undone) is sent; the same one again, since it binds the same seed.
            commitment = mine.commitment if mine.commitment is not None else mine.commit()
            commit = table_pb2.CommitSeedRequest(
                context=self._context(sight), deal_no=deal_no, commitment=commitment
            )
            kept_seed = (mine.seed, mine.cut)
            await task.call(lambda table: table.commit_seed(seat, commit, kept_seed))
        elif sight.step == table_pb2.TURN_PHASE_REVEAL and sight.awaiting_reveal:
            commitments = next(e for e in published if e.WhichOneof("event") == "commitments")
            mine.on_commitments(commitments)
            reveal = mine.reveal()
            request = table_pb2.RevealSeedRequest(
                context=self._context(sight), deal_no=deal_no, seed=reveal.seed, cut=reveal.cut
            )
            await task.call(lambda table: table.reveal_seed(seat, request))
        self.exchanges = {n: x for n, x in self.exchanges.items() if n >= deal_no - 1}


def level_bot(level: int) -> Bot:
    """The library's bot for a seat's ``BotLevel`` (unset: medium); its choices seeded by the OS."""
    names: dict[int, str] = {
        lobby_pb2.BOT_LEVEL_EASY: "easy",
        lobby_pb2.BOT_LEVEL_HARD: "hard",
        lobby_pb2.BOT_LEVEL_EXPERT: "expert",
    }
    return bots.make_bot(names.get(level, "medium"), random.Random())


class SeatDriver(Protocol):
    """What the bot seat's task runs on every wake-up: ``InHostSeat``, or one composed of it."""

    async def step(self) -> None: ...


async def run_bot_seat(
    task: TableTask, seat: int, bot: Bot | None = None, driver: SeatDriver | None = None
) -> None:
    """The task of a bot seat: wake on every event of its table, act when it has to."""
    if driver is None:
        level = task.table.seats[seat].bot_level or task.config.stand_in_level
        driver = InHostSeat(task, seat, bot or level_bot(level))
    subscriber = None
    try:
        # A person's seat is played only while its player is away.
        while not task.match_over and task.table.seats[seat].played_by_host:
            if subscriber is None or subscriber.dropped:
                # Falling behind costs only a wake-up: the bot reads its view, not the events.
                _, subscriber = task.fanout.subscribe(
                    seat, task.fanout.last_seq, table_pb2.TableEvent, internal=True
                )
            if task.settings.bot_delay:
                await asyncio.sleep(task.settings.bot_delay)
            try:
                await driver.step()
            except (Refusal, ExchangeError) as refusal:
                log.warning("bot seat %d of table %s: %s", seat, task.table_id, refusal)
                if isinstance(refusal, Refusal) and refusal.code == grpc.StatusCode.UNAVAILABLE:
                    # Nothing was done, so no event will wake the bot: try again in a while.
                    await asyncio.sleep(RETRY_SECONDS)
                    continue
            # Every change of the table is an event, the bot's own moves included.
            await subscriber.queue.get()
            while not subscriber.queue.empty():
                subscriber.queue.get_nowait()
    finally:
        if subscriber is not None:
            task.fanout.unsubscribe(subscriber)
        if task.bots.get(seat) is asyncio.current_task():
            del task.bots[seat]
