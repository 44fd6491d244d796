"""A table's own state and the one way a change to it is recorded (``_commit``).

Table methods check, ask the engine and hand what was accepted to the table's
``Outbox`` without awaiting anything, so nothing can interleave with them; the
table's task (``host.table_task``) writes each job and only then publishes it.
The table knows its task only through the small pieces it is given: the
outbox, the deadline, who is connected, and how to seat a host bot.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from host import auth
from host.deadline import Deadline
from host.errors import malformed, rule_broken
from host.journal import TableJournal
from host.outbox import EntryDraft, JobOutbox, Outbox, PendingEvents
from scala40_net import deal, events, match, rules, views, wire
from scala40_net.errors import RuleViolation
from scala40_net.fairdeal.exchange import HostExchange, new_seed
from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.fairdeal.record import DealRecorder
from scala40_net.pb import deal_pb2, lobby_pb2, table_pb2

log = logging.getLogger(__name__)
MAX_REQUEST_ID = 128

__all__ = [
    "DealInProgress",
    "FreshRandomness",
    "PendingEvents",
    "Presence",
    "Randomness",
    "SeatState",
    "TableCore",
    "TableSettings",
]


class Randomness(Protocol):
    """Where a table's random choices come from: the OS, or the journal when played back."""

    def first_dealer(self, players: list[int]) -> int: ...

    def host_seed(self, deal_no: int) -> bytes: ...


class FreshRandomness:
    """The live table's: the OS CSPRNG, as FAIR_DEAL.md asks for every seed."""

    def first_dealer(self, players: list[int]) -> int:
        return secrets.choice(players)

    def host_seed(self, deal_no: int) -> bytes:
        return new_seed()


class Presence(Protocol):
    """Who has an event stream open (the table's fan-out)."""

    def connected_seats(self) -> set[int]: ...


@dataclass(frozen=True)
class TableSettings:
    """Timing and sizes of a table; tests shorten the fair-deal deadlines."""

    commit_timeout: float = 30.0
    reveal_timeout: float = 30.0
    queue_size: int = 256
    keep_events: int = 100_000
    # A pause before each bot move, so people can follow; 0 in tests and benchmarks.
    bot_delay: float = 0.0
    # A finished match stays live this long (its seats fetch the last records), then is archived.
    archive_after: float = 300.0
    # A table whose match never started is removed after this long without a request.
    idle_removal: float = 1800.0
    # The pause between deals when the table's config does not set one (host.between_deals).
    between_deals: float = 20.0
    # The turn clock and the grace period of a table that does not set its own.
    turn_seconds: int = 90
    grace_seconds: int = 60


@dataclass
class SeatState:
    """Who sits on a seat: a person (bot_level 0) or a bot of a BotLevel."""

    number: int
    name: str = ""
    taken: bool = False
    bot_level: int = 0  # lobby_pb2.BotLevel; 0 for a person
    away: int = 0  # lobby_pb2.AwayReason while a host bot plays for the person; 0 otherwise
    # What the table's last seat_changed for this seat said of its connection: a stream
    # opening or closing is news only when it changes that.
    told_connected: bool = False

    @property
    def is_bot(self) -> bool:
        return self.taken and self.bot_level != 0

    @property
    def played_by_host(self) -> bool:
        """A bot seat, or a person's seat a host bot plays while its player is away."""
        return self.is_bot or (self.taken and self.away != 0)


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


class TableCore:
    """A table's state: seats, match, deal in progress, seqs; the engine and outbox behind it."""

    def __init__(
        self,
        table_id: str,
        config: lobby_pb2.CreateTableRequest,
        ruleset: rules.Ruleset,
        journal: TableJournal,
        identity: HostIdentity,
        tokens: auth.TokenBook,
        settings: TableSettings,
        *,
        presence: Presence,
        deadline: Deadline,
        start_bot: Callable[[int], None],
    ) -> None:
        self.table_id = table_id
        self.config = config
        self.preset = wire.preset_name(config.ruleset.preset)
        self.ruleset = ruleset
        self.journal = journal
        self.identity = identity
        self.tokens = tokens
        self.settings = settings
        self.presence = presence
        self.deadline = deadline
        self._seat_bot = start_bot
        self.outbox: Outbox = JobOutbox()
        self.seats = [SeatState(n) for n in range(config.seats)]
        self.joined: list[int] = []  # people's seats in the order they joined
        self.spectators = 0  # spectator tokens handed out
        self.phase = lobby_pb2.TABLE_PHASE_WAITING
        # The config is kept as the journal holds it: a password only as its scrypt hash,
        # checked by the lobby before a join or spectate reaches the table.
        self.password = config.password if config.HasField("password") else None
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
        self.seq = 0  # the last seq given to an event (published or about to be)
        self._answers: dict[tuple[int | None, str], tuple[str, bytes]] = {}
        # Both replaced by the journal's playback while it runs (host.recovery).
        self.randomness: Randomness = FreshRandomness()
        self.replaying = False
        # Set while the host itself plays a seat's timed-out turn: its events say so.
        self.moving_for_seat = False
        self.turn_seconds = (
            config.turn_seconds if config.HasField("turn_seconds") else settings.turn_seconds
        )
        self.grace_seconds = (
            config.grace_seconds if config.HasField("grace_seconds") else settings.grace_seconds
        )

    def remember_answer(
        self, seat: int | None, request_id: str, kind: str, response: bytes
    ) -> None:
        self._answers[(seat, request_id)] = (kind, response)

    def deadline_passed(self) -> None:
        """What the table does when its deadline passes (``DealingTable``)."""
        raise NotImplementedError

    def resume(self) -> None:
        """After the journal was played back: the deadline starts afresh for the step waiting."""
        self.deadline.clear()
        if self.current is not None and self.current.step != table_pb2.TURN_PHASE_UNSPECIFIED:
            timeout = (
                self.settings.commit_timeout
                if self.current.step == table_pb2.TURN_PHASE_COMMIT
                else self.settings.reveal_timeout
            )
            self._set_deadline(timeout)
        if self.match is not None and self.match.phase is match.MatchPhase.RIENTRO:
            self._set_deadline(self.settings.reveal_timeout)

    def bot_seats(self) -> list[int]:
        """The seats a host bot plays now: bot seats, and people's seats while they are away."""
        if self.phase != lobby_pb2.TABLE_PHASE_PLAYING:
            return []
        return [seat.number for seat in self.seats if seat.played_by_host]

    def _set_deadline(self, seconds: float) -> None:
        self.deadline.arm(seconds)

    def seconds_to_deadline(self) -> float:
        """What is left of the running fair-deal or rientro deadline (0 when none runs)."""
        return self.deadline.remaining()

    def _commit(self, draft: EntryDraft) -> list[int]:
        """Number one accepted action's events and hand it to the outbox.

        The job that called this ends before anything is sent: the task writes
        the job's entries (one transaction) and only then publishes their events.
        """
        return self.outbox.commit(self, draft)

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
        envelope = table_pb2.DealEventEnvelope(public_event=data, by_host=self.moving_for_seat)
        return table_pb2.TableEvent(deal=envelope), private

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
        out = self._deal_event(public, private)
        if self.turn_seconds and self._starts_a_turn(event):
            out[0].deal.turn_time_ms = self.turn_seconds * 1000
        return out

    def _starts_a_turn(self, event: events.Event) -> bool:
        """The deal's start, or a play after which another seat is to draw: the turn clock of
        the seat to move starts with this event."""
        state = self.deal_state
        if state is None or state.is_over:
            return False
        return isinstance(event, events.DealStarted | events.Played)

    def _repeat(self, seat: int, kind: str, context: table_pb2.MoveContext) -> bytes | None:
        """The answer already given to this request id, when this is a retry."""
        if len(context.request_id) > MAX_REQUEST_ID:
            raise malformed(f"a request id has at most {MAX_REQUEST_ID} characters")
        if not context.request_id:
            if self.replaying:  # accepted by an older host, which let a move go without one
                return None
            raise malformed(
                "a move needs a request_id in its MoveContext (a UUID, say): "
                "it is what makes a retry after a lost reply safe"
            )
        found = self._answers.get((seat, context.request_id))
        if found is None:
            return None
        if found[0] != kind:
            raise malformed(f"request id {context.request_id!r} was already used for a {found[0]}")
        return found[1]

    def _start_bot(self, seat: int) -> None:
        """A host bot takes ``seat`` once the job that seated it is durable."""
        self.outbox.after_commit(lambda: self._seat_bot(seat))
