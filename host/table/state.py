"""A table's state: one record of its seats, match, deal in progress and seqs, and its settings.

The record only holds; the parts of the table change it (``host.table.seating``,
``host.table.deal_cycle``, ``host.table.table``), each through the one way a change is
recorded (``host.table.scribe``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from host.table import durations
from host.table.private_deal import HostPrivateDeal
from scala40_net import deal, match, rules, wire
from scala40_net.fairdeal.exchange import HostExchange
from scala40_net.fairdeal.record import DealRecorder
from scala40_net.pb import deal_pb2, lobby_pb2, table_pb2


@dataclass(frozen=True)
class TableSettings:
    """Timing and sizes of a table; tests shorten the fair-deal deadlines."""

    commit_timeout: float = 30.0
    reveal_timeout: float = 30.0
    queue_size: int = 256
    keep_events: int = 100_000
    # Events kept while the match has not started (seats, chat, connections: host.table.fanout).
    keep_waiting_events: int = 1_000
    # A pause before each bot move, so people can follow; 0 in tests and benchmarks.
    bot_delay: float = 0.0
    # A finished match stays live this long (its seats fetch the last records), then is archived.
    archive_after: float = 300.0
    # A table whose match never started is removed after this long without a request.
    idle_removal: float = 1800.0
    # A table waiting for players rests its journal (closes its connection: about 150 KB of
    # SQLite's memory) after this long without a request; a table in play keeps it open.
    journal_rest: float = 30.0
    # The pause between deals when the table's config does not set one (host.table.between_deals).
    between_deals: float = 20.0
    # A match with nobody watching (no seat's or spectator's stream open) this long pauses:
    # its host bots and clocks wait until someone opens a stream (host.table.task).
    nobody_there: float = 300.0
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
    key: bytes = b""  # the player key the seat was joined with (its proof checked by the lobby)
    # At a private table: the Ed25519 key the seat signs its private messages with.
    signing_key: bytes = b""
    # At a private table: the player handed this seat, with its keys, to a host bot
    # (AWAY_REASON_STAND_IN, host.table.stand_in). It stays the stand-in's for good, even
    # when its player leaves the table afterwards: the host holds its signing key.
    stand_in: bool = False
    # What the table's last seat_changed for this seat said of its connection: a stream
    # opening or closing is news only when it changes that.
    told_connected: bool = False

    @property
    def is_bot(self) -> bool:
        return self.taken and self.bot_level != 0

    @property
    def host_reads(self) -> bool:
        """At a private table, whether the host holds this seat's keys (and so can read its
        hand): its own bot's, or a stand-in's."""
        return self.is_bot or self.stand_in

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
    # A private table's deal: its messages and the engine's stand-in ids (host.table.private_deal).
    private: HostPrivateDeal | None = None

    @property
    def deal_no(self) -> int:
        return self.exchange.setup.deal_no

    @property
    def dealer(self) -> int:
        return self.exchange.setup.dealer


@dataclass
class TableState:
    """What a table is now: its config and seats, its match and deal, the seqs it gave."""

    table_id: str
    config: lobby_pb2.CreateTableRequest
    ruleset: rules.Ruleset
    seats: list[SeatState]
    # The config is kept as the journal holds it: a password only as its scrypt hash,
    # checked by the lobby before a join or spectate reaches the table.
    password: str | None
    turn_seconds: int
    grace_seconds: int
    joined: list[int] = field(default_factory=list)  # people's seats in the order they joined
    spectators: int = 0  # spectator tokens handed out
    phase: int = lobby_pb2.TABLE_PHASE_WAITING  # lobby_pb2.TablePhase
    # Match and deal: set while playing. The engine's MatchState holds the deal too.
    match: match.MatchState | None = None
    deal_no: int = 0
    current: DealInProgress | None = None
    # Every ended deal's recorder, for GetDealRecord with the caller's private part.
    recorders: dict[int, DealRecorder] = field(default_factory=dict)
    # The host bot seats' seeds and cuts by (deal_no, seat), as journaled; read back on a
    # restart so a bot that committed before it can still reveal (host.journal.recovery).
    bot_seeds: dict[tuple[int, int], tuple[bytes, int]] = field(default_factory=dict)
    last_game_seq: int = 0
    seq: int = 0  # the last seq given to an event (published or about to be)
    # The answer given to each (seat, request id), by kind, so a retry gets it again.
    answers: dict[tuple[int | None, str], tuple[str, bytes]] = field(default_factory=dict)
    # Set while the host itself plays a seat's timed-out turn: its events say so.
    moving_for_seat: bool = False
    # After a match: the seats whose players agreed to play another (TableService.Rematch).
    rematch_agreed: set[int] = field(default_factory=set)

    @classmethod
    def new(
        cls,
        table_id: str,
        config: lobby_pb2.CreateTableRequest,
        ruleset: rules.Ruleset,
        settings: TableSettings,
    ) -> TableState:
        """A table as it is created: its seats free, its clocks the config's or the host's."""
        return cls(
            table_id=table_id,
            config=config,
            ruleset=ruleset,
            seats=[SeatState(n) for n in range(config.seats)],
            password=config.password if config.HasField("password") else None,
            turn_seconds=(
                durations.held("turn_seconds", config.turn_seconds)
                if config.HasField("turn_seconds")
                else settings.turn_seconds
            ),
            grace_seconds=(
                durations.held("grace_seconds", config.grace_seconds)
                if config.HasField("grace_seconds")
                else settings.grace_seconds
            ),
        )

    @property
    def preset(self) -> str:
        return wire.preset_name(self.config.ruleset.preset)

    @property
    def private_cards(self) -> bool:
        """A private table (docs/PRIVATE_TABLES.md): its deals are dealt by its seats."""
        return self.config.private_cards

    @property
    def deal_state(self) -> deal.DealState | None:
        return None if self.match is None else self.match.deal

    def remember_answer(
        self, seat: int | None, request_id: str, kind: str, response: bytes
    ) -> None:
        self.answers[(seat, request_id)] = (kind, response)

    def bot_seats(self) -> list[int]:
        """The seats a host bot plays now: bot seats, and people's seats while they are away."""
        if self.phase != lobby_pb2.TABLE_PHASE_PLAYING:
            return []
        if self.private_cards:
            # At a private table the host plays the seats it holds the keys of (its own bots',
            # a stand-in's), never another person's: it cannot read that hand.
            return [seat.number for seat in self.seats if seat.host_reads]
        return [seat.number for seat in self.seats if seat.played_by_host]
