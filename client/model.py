"""The client's view model: the table as this seat sees it, built only from the host's events.

``TableModel.apply`` takes each ``TableEvent`` of the stream (a snapshot, a
deal event, a seat change, chat, scores …). What this seat knows of the deal
is the engine's own view (``views.DealView``), read off the wire and carried
from event to event exactly as the network bot carries it
(``wire.DealEventReader``, ``views.view_at_start``, ``views.after_event``);
the model adds only what is the screen's own: names, the log, the chat, the
clocks, the fair-deal exchange and its bytes. Nothing here decides whether a
move is legal.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from client.scoresheet import ScoreSheet
from client.tableform import rule_changes
from scala40_net import deal, views, wire
from scala40_net.actions import DrawSource
from scala40_net.cards import RANK_TEXT, Face, face
from scala40_net.errors import InvalidRuleset, RuleViolation
from scala40_net.events import CardDrawn, DealStarted, Event, JokerSwapped, MeldLaid, Played
from scala40_net.melds import Meld, MeldKind
from scala40_net.pb import deal_pb2, lobby_pb2, ruleset_pb2, table_pb2
from scala40_net.rules import Ruleset

LOG_LIMIT = 500
PILE_TAKES_KEPT = 4
CHAT_LIMIT = 200


class Phase(StrEnum):
    """What the table waits for, as far as this client can tell."""

    WAITING = "waiting"  # no deal running: before the match or between deals
    COMMIT = "commit"  # fair deal step 2
    REVEAL = "reveal"  # fair deal step 4
    DRAW = "draw"
    PLAY = "play"
    DEAL_OVER = "deal_over"
    MATCH_OVER = "match_over"


_PHASE_FROM_PB = {
    table_pb2.TURN_PHASE_COMMIT: Phase.COMMIT,
    table_pb2.TURN_PHASE_REVEAL: Phase.REVEAL,
    table_pb2.TURN_PHASE_DRAW: Phase.DRAW,
    table_pb2.TURN_PHASE_PLAY: Phase.PLAY,
}

# The deal's phase as the table screen says it (the stock is rebuilt before the next draw).
_PHASE_OF_DEAL = {
    deal.Phase.DRAW: Phase.DRAW,
    deal.Phase.PLAY: Phase.PLAY,
    deal.Phase.REBUILD: Phase.DRAW,
    deal.Phase.OVER: Phase.DEAL_OVER,
}

# What the stream may hold that this seat's view cannot be carried across (a meld number or
# a card the view does not have): the view is then unknown until the next snapshot.
_UNFOLLOWABLE = (ValueError, IndexError, KeyError, AssertionError, RuleViolation)


@dataclass
class SeatState:
    """One seat: who sits there and how they stand in this deal and in the match."""

    seat: int
    name: str = ""
    taken: bool = False
    bot: bool = False
    connected: bool = False
    in_deal: bool = False
    total: int = 0
    out: bool = False
    gone: bool = False  # out because a private deal could not go on without it (R10.3)
    rientri: int = 0
    chips: int = 0
    away: int = 0  # lobby_pb2.AwayReason while a host bot plays for this seat's player
    key_fingerprint: str = ""  # the player key the seat was joined with; "" without one
    decides_absences: bool = False  # the first person at the table (DecideAbsence)
    # At a private table: the host holds this seat's keys and can read its hand (a host
    # bot, or a stand-in its player handed it to).
    host_bot: bool = False


@dataclass(frozen=True)
class TableMeldState:
    """A meld of the deal's view under the number the wire gives it (its place + 1)."""

    meld_id: int
    meld: Meld
    laid_by: int

    @property
    def cards(self) -> tuple[int, ...]:
        return self.meld.cards

    @property
    def kind(self) -> MeldKind:
        return self.meld.kind

    @property
    def joker_as(self) -> Face | None:
        return self.meld.joker_as

    @property
    def points(self) -> int:
        return self.meld.points


@dataclass
class Verification:
    """The client's check of an ended deal: ``ok`` None while running."""

    ok: bool | None
    reason: str = ""  # in English, for the client's log: what failed, where
    record_path: str = ""
    check: str = ""  # the check that failed (verify.CHECKS): what the screen says
    own_by_host: bool = False  # verified, this seat's seed made by a host bot (it was away)


@dataclass
class FairDealState:
    """One deal attempt's fair-deal exchange as seen by this client, and its check."""

    deal_no: int
    table_id: str
    dealer: int = 0
    cutter: int = 0
    seats_in_play: tuple[int, ...] = ()
    deck_size: int = 108
    host_commitment: bytes = b""
    ruleset: ruleset_pb2.Ruleset | None = None
    commitments: dict[int, bytes] = field(default_factory=dict)
    reveals: dict[int, tuple[bytes, int]] = field(default_factory=dict)
    left_out: dict[int, int] = field(default_factory=dict)
    started: bool = False
    outcome: int = deal_pb2.DEAL_OUTCOME_UNSPECIFIED
    host_seed: bytes | None = None
    signed: bool = False
    chain_head: bytes = b""
    signature: bytes = b""
    # The exact bytes of every public event, oldest first: the hash chain's input.
    event_bytes: list[bytes] = field(default_factory=list)
    private_events: list[deal_pb2.PrivateDealEvent] = field(default_factory=list)
    # This client's own part of the exchange (set by the fair-deal driver).
    committed: bool = False
    revealed: bool = False
    commitment_mismatch: bool = False
    verification: Verification | None = None

    @property
    def ended(self) -> bool:
        return self.outcome != deal_pb2.DEAL_OUTCOME_UNSPECIFIED

    @property
    def abandoned(self) -> bool:
        return self.outcome == deal_pb2.DEAL_OUTCOME_ABANDONED


@dataclass(frozen=True)
class SeatResult:
    seat: int
    cards: tuple[int, ...]
    opened: bool
    penalty: int


@dataclass
class DealResult:
    """The end of a deal: every hand shown and scored (DealEnded)."""

    deal_no: int
    outcome: int
    closer: int | None
    closed_in_one_turn: bool
    hands: list[SeatResult]
    void_reason: str = ""


@dataclass
class BetweenDealsState:
    """The host's pause before the next deal: who it waits for, who is ready, and for how long
    (seconds from the event that told of it: a duration, the clocks need not agree)."""

    within: float
    waiting_for: tuple[int, ...]
    ready: tuple[int, ...]


@dataclass(frozen=True)
class LogEntry:
    """One line of the log, as an i18n key and its fields (rendered in the chosen language)."""

    key: str
    fields: tuple[tuple[str, str | int], ...] = ()

    def as_dict(self) -> dict[str, str | int]:
        return dict(self.fields)


@dataclass(frozen=True)
class ChatLine:
    seat: int
    name: str
    text: str


def _entry(key: str, **fields: str | int) -> LogEntry:
    return LogEntry(key, tuple(fields.items()))


# The log's line for a seat gone away, by why (a whole sentence each, translated whole).
AWAY_LOG = {
    lobby_pb2.AWAY_REASON_TIMED_OUT: "log_away_timed_out",
    lobby_pb2.AWAY_REASON_DISCONNECTED: "log_away_disconnected",
    lobby_pb2.AWAY_REASON_HANDED_OVER: "log_away_handed_over",
    lobby_pb2.AWAY_REASON_LEFT: "log_away_left",
    lobby_pb2.AWAY_REASON_STAND_IN: "log_away_stand_in",
}


class TableModel:
    """Everything the table screen shows, updated event by event."""

    def __init__(self) -> None:
        self.last_seq = 0
        self.table_id = ""
        self.table_name = ""
        self.preset: ruleset_pb2.Preset = ruleset_pb2.PRESET_UNSPECIFIED
        self.ruleset = lobby_pb2.TableSummary().ruleset
        self._rules_told = ""  # the rule changes of a rematch last written to the log
        self.table_phase = lobby_pb2.TABLE_PHASE_UNSPECIFIED
        self.my_seat: int | None = None
        self.seats: dict[int, SeatState] = {}
        # This seat's view of the deal in play (None before its cards are dealt, or when the
        # stream held something it cannot be carried across), and the reader of the deal's
        # events that carries it: both as the network bot keeps them.
        self.deal: views.DealView | None = None
        self._reader = wire.DealEventReader()
        self.deal_no = 0
        self.dealer: int | None = None
        self.phase = Phase.WAITING
        self.last_drawn: int | None = None  # the card this seat drew this turn (highlighted)
        self.deals: dict[int, FairDealState] = {}
        self.result: DealResult | None = None
        # The end of the deal that put this seat out of the match (R11), kept for its player
        # until they say they have read it: nobody waits for a seat that is out, and the next
        # deal may start among the others at once.
        self.unread_result: DealResult | None = None
        self.closing_play: Played | None = None  # the closer's last play, for the end panel
        self.match_over = False
        # This seat's rating at the host before and after the match, once the host says it.
        self.rating_change: tuple[float, float] | None = None
        self.winners: tuple[int, ...] = ()
        # R11.3: busted seats the host offers a buy-back to, and its fee in chips; and the
        # seconds each had left to answer when the event that last told of it arrived.
        self.rientro_offers: dict[int, int] = {}
        self.rientro_answer_within: dict[int, float] = {}
        self.between_deals: BetweenDealsState | None = None
        # The turn clock of the seat to move: seconds it had left when the event (or view)
        # that told of it arrived (a duration), and a count of such tellings, so the screen
        # knows to count down from a new one.
        self.turn_time: float | None = None
        self.turn_time_told = 0
        self.score_sheet = ScoreSheet()
        self.log: list[LogEntry] = []
        self.chat: list[ChatLine] = []
        # Who took which card from the discard pile this deal, latest last (a few are shown).
        self.pile_takes: list[tuple[int, int]] = []
        self._quiet = False
        # A private table (docs/PRIVATE_TABLES.md): the code from every seat's signing key,
        # for the players to compare aloud, and the last fault this seat's checks found.
        self.private_cards = False
        self.table_code: str | None = None
        self.private_fault: str | None = None
        self.private_waiting: str | None = None  # who a card this seat waits for is due from

    # --- queries ----------------------------------------------------------------------

    @property
    def is_spectator(self) -> bool:
        return self.my_seat is None

    @property
    def shown_result(self) -> DealResult | None:
        """The deal end the screen shows: the deal's own while it is over; else the one that
        put this seat out, until its player has read it."""
        if self.phase in (Phase.DEAL_OVER, Phase.MATCH_OVER) and self.result is not None:
            return self.result
        return self.unread_result

    def read_result(self) -> None:
        """This seat's player has read the deal that put them out."""
        self.unread_result = None

    @property
    def my_turn(self) -> bool:
        return self.my_seat is not None and self.turn == self.my_seat

    # What the screen reads of the deal's view.

    @property
    def hand(self) -> list[int]:
        """This seat's hand in the order held (empty for a spectator, or with no deal)."""
        held = self.deal.hand if self.deal is not None else None
        return list(held) if held is not None else []

    @property
    def melds(self) -> dict[int, TableMeldState]:
        """The melds on the table by number (the wire's: place + 1, wire.meld_index_from_pb)."""
        if self.deal is None:
            return {}
        laid = zip(self.deal.table, self.deal.owners, strict=True)
        return {i + 1: TableMeldState(i + 1, meld, owner) for i, (meld, owner) in enumerate(laid)}

    @property
    def discard_pile(self) -> list[int]:
        """Bottom first."""
        return list(self.deal.discard_pile) if self.deal is not None else []

    @property
    def discard_count(self) -> int:
        return len(self.deal.discard_pile) if self.deal is not None else 0

    @property
    def discard_top(self) -> int | None:
        return (
            self.deal.discard_pile[-1] if self.deal is not None and self.deal.discard_pile else None
        )

    @property
    def stock_count(self) -> int:
        return self.deal.stock_count if self.deal is not None else 0

    @property
    def turn(self) -> int | None:
        """The seat to move, while a turn is being played."""
        if self.deal is None or self.phase not in (Phase.DRAW, Phase.PLAY):
            return None
        return self.deal.turn

    @property
    def taken_discard(self) -> int | None:
        """The card this seat took from the discard pile this turn (it must be used, R3.2)."""
        return self.deal.taken_discard if self.deal is not None and self.my_turn else None

    @property
    def discard_barred(self) -> bool:
        """This seat put the discard back this turn: it draws from the stock (R3.2)."""
        return self.deal is not None and self.my_turn and self.deal.discard_barred

    @property
    def turns_played(self) -> dict[int, int]:
        if self.deal is None:
            return {}
        return dict(zip(self.deal.seats, self.deal.turns_played, strict=True))

    def hand_count(self, seat: int) -> int:
        """How many cards ``seat`` holds in this deal."""
        if self.deal is None or seat not in self.deal.seats:
            return 0
        return self.deal.hand_counts[self.deal.seats.index(seat)]

    def has_opened(self, seat: int) -> bool:
        if self.deal is None or seat not in self.deal.seats:
            return False
        return self.deal.opened[self.deal.seats.index(seat)]

    def deal_ruleset(self, players: int | None = None) -> Ruleset | None:
        """The engine's ruleset of the current deal (as announced), else of the table."""
        if players is None:
            players = len(self.seats_in_play) or len(self.seats) or 2
        fd = self.fair_deal
        message = (
            fd.ruleset
            if fd is not None and fd.ruleset is not None
            else ruleset_pb2.Ruleset(
                preset=self.preset or ruleset_pb2.PRESET_CLASSIC, options=self.ruleset
            )
        )
        try:
            return wire.ruleset_from_pb(message, players)
        except (InvalidRuleset, wire.WireError):
            return None

    @property
    def fair_deal(self) -> FairDealState | None:
        return self.deals.get(self.deal_no)

    @property
    def opening_points(self) -> int:
        return self.ruleset.opening_points if self.ruleset.HasField("opening_points") else 40

    @property
    def bust_at(self) -> int | None:
        """The total that busts a player (R11.1), or None when the match counts deals won."""
        if self.ruleset.match_mode == ruleset_pb2.MATCH_MODE_DEALS:
            return None
        return self.ruleset.bust_at if self.ruleset.HasField("bust_at") else 101

    @property
    def max_run(self) -> int | None:
        value = self.ruleset.max_run if self.ruleset.HasField("max_run") else 0
        return value or None

    @property
    def seats_in_play(self) -> tuple[int, ...]:
        fd = self.fair_deal
        if fd is not None and fd.seats_in_play:
            return fd.seats_in_play
        return tuple(s.seat for s in self.seats.values() if s.in_deal)

    def name_of(self, seat: int | None) -> str:
        if seat is None:
            return "?"
        state = self.seats.get(seat)
        if state is None or not state.name:
            return f"#{seat}"
        return state.name

    def seat(self, seat: int) -> SeatState:
        if seat not in self.seats:
            self.seats[seat] = SeatState(seat)
        return self.seats[seat]

    def sorted_melds(self) -> list[TableMeldState]:
        return list(self.melds.values())  # numbered in table order

    def i_have_opened(self) -> bool:
        return self.my_seat is not None and self.has_opened(self.my_seat)

    @property
    def my_rientro_fee(self) -> int | None:
        """What buying back in costs this seat, while the host waits for its answer (R11.3)."""
        return self.rientro_offers.get(self.my_seat) if self.my_seat is not None else None

    def rientro_total(self) -> int:
        """The total a seat buying back in gets: the worst-placed player still in (R11.3)."""
        still_in = [s.total for s in self.seats.values() if s.taken and not s.out]
        return max(still_in, default=0)

    # --- a private table's hand ------------------------------------------------------

    def set_private_hand(self, cards: list[int]) -> None:
        """At a private table the host names the hand by positions: its cards as this seat
        read them (at the deal's start, after a rejoin)."""
        if self.deal is not None and self.deal.viewer is not None and cards:
            self.deal = dataclasses.replace(self.deal, hand=tuple(cards))

    def private_card_drawn(self, card: int) -> None:
        """This seat's card drawn from the stock, read once the others' shares came."""
        if self.deal is None or self.deal.hand is None or card in self.deal.hand:
            return
        self.deal = dataclasses.replace(self.deal, hand=(*self.deal.hand, card))
        self.last_drawn = card
        self._log("log_you_drew_stock", card=card_text(card))

    # --- events -----------------------------------------------------------------------

    def apply(self, event: table_pb2.TableEvent) -> bool:
        """Apply one event of the stream; returns False for an event already seen (a resend)."""
        kind = event.WhichOneof("event")
        if kind == "snapshot":
            self.load_view(event.snapshot, event.seq)
            return True
        if event.seq and event.seq <= self.last_seq:
            return False
        self.last_seq = max(self.last_seq, event.seq)
        if kind == "deal":
            envelope = event.deal
            private = envelope.private_event if envelope.HasField("private_event") else None
            self._apply_deal(envelope.public_event, private, envelope.by_host)
            if envelope.HasField("turn_time_ms"):
                self._set_turn_time(envelope.turn_time_ms)
            elif self.phase not in (Phase.DRAW, Phase.PLAY):
                self.turn_time = None
        elif kind == "seat_changed":
            self._seat_changed(event.seat_changed)
        elif kind == "chat":
            msg = event.chat
            self.chat.append(ChatLine(msg.seat, msg.name, msg.text))
            del self.chat[:-CHAT_LIMIT]
            self._log("log_chat", name=msg.name or self.name_of(msg.seat), text=msg.text)
        elif kind == "match_update":
            self._match_update(event.match_update)
        elif kind == "deal_signed":
            signed = event.deal_signed
            fd = self.deals.get(signed.deal_no)
            if fd is not None:
                fd.signed = True
                fd.chain_head = signed.chain_head
                fd.signature = signed.signature
            self._log("log_deal_signed", deal=signed.deal_no)
        elif kind == "rematch":
            agreed = ", ".join(self.name_of(s) for s in event.rematch.agreed_seats)
            waiting = ", ".join(self.name_of(s) for s in event.rematch.waiting_for_seats)
            self._log("log_rematch_agreed", names=agreed, waiting=waiting)
            proposed = event.rematch.ruleset
            changed = (
                rule_changes(self.ruleset, proposed) if event.rematch.HasField("ruleset") else ""
            )
            if changed and changed != self._rules_told:
                # The first player changed the rules: each agreement is to what will be played.
                self._log("log_rematch_rules", rules=changed)
            self._rules_told = changed
        elif kind == "match_started":
            started = event.match_started
            if self.match_over:  # a rematch: the standings and the sheet start again
                self.winners = ()
                self.score_sheet = ScoreSheet()
                self.unread_result = None
                for state in self.seats.values():
                    state.total, state.out, state.gone, state.rientri = 0, False, False, 0
            self.match_over = False
            self.table_phase = lobby_pb2.TABLE_PHASE_PLAYING
            if started.HasField("ruleset"):  # a rematch may have changed them
                self.ruleset = started.ruleset
            self._rules_told = ""
            self._log("log_match_started", name=self.name_of(started.first_dealer_seat))
        return True

    def load_view(self, view: table_pb2.TableView, seq: int) -> None:
        """Replace everything with a snapshot (the first message of a stream, or after a gap)."""
        self._load_summary(view.table)
        self.my_seat = view.my_seat if view.HasField("my_seat") else None
        self.seats = {}
        for sv in view.seats:
            state = self.seat(sv.info.seat)
            self._set_info(state, sv.info)
            state.in_deal = sv.in_deal
            self._set_score(state, sv.score)
        # Replaying the deal's events, each private event beside the public one it came
        # with, rebuilds what a view does not carry (the fair-deal exchange, the log, a
        # deal's end during the pause after it) and carries the deal's view as the stream
        # would have; the host's view of the deal in play then wins.
        self.deals.pop(view.deal_no, None)
        self._reader = wire.DealEventReader(self.my_seat)
        self.deal = None
        private = dict(zip(view.my_private_with_event, view.my_private_events, strict=False))
        # A first snapshot (a rejoin) logs the deal so far; one after a gap in the stream
        # would log again what the log already holds.
        self._quiet = bool(self.log)
        try:
            for k, raw in enumerate(view.deal_events):
                self._apply_deal(raw, private.get(k))
        finally:
            self._quiet = False
        fd = self.deals.get(view.deal_no)
        if fd is not None:
            fd.private_events = list(view.my_private_events)
        try:
            seen = wire.deal_view_from_pb(view)
        except (InvalidRuleset, wire.WireError, *_UNFOLLOWABLE):
            seen = None
        if seen is not None:
            self.deal = seen
            self._reader.seats, self._reader.dealer = seen.seats, seen.dealer
            self._reader.table = list(seen.table)
        self.deal_no = view.deal_no
        self.dealer = view.dealer_seat if view.deal_no else None
        self.phase = _PHASE_FROM_PB.get(view.phase, self.phase)
        if view.phase == table_pb2.TURN_PHASE_UNSPECIFIED and self.phase not in (
            Phase.DEAL_OVER,
            Phase.MATCH_OVER,
        ):
            self.phase = Phase.WAITING
        if self.table_phase == lobby_pb2.TABLE_PHASE_FINISHED:
            self.phase = Phase.MATCH_OVER
            self.match_over = True
        self._set_rientro_offers(view.rientro_offers)
        self._set_between_deals(view.between_deals if view.HasField("between_deals") else None)
        if view.HasField("turn_time_left_ms"):
            self._set_turn_time(view.turn_time_left_ms)
        else:
            self.turn_time = None
        self.last_seq = seq
        self._log("log_snapshot")

    # --- lobby-level pieces -----------------------------------------------------------

    def _load_summary(self, summary: lobby_pb2.TableSummary) -> None:
        self.table_id = summary.table_id
        self.table_name = summary.name
        self.preset = summary.preset
        self.ruleset = summary.ruleset
        self.table_phase = summary.phase
        self.private_cards = summary.private_cards
        for info in summary.seats:
            self._set_info(self.seat(info.seat), info)

    @staticmethod
    def _set_info(state: SeatState, info: lobby_pb2.SeatInfo) -> None:
        state.name = info.name
        state.taken = info.taken
        state.bot = info.bot
        state.connected = info.connected
        state.away = info.away
        state.decides_absences = info.decides_absences
        state.key_fingerprint = info.key_fingerprint
        state.host_bot = info.host_bot

    def _set_turn_time(self, milliseconds: int) -> None:
        self.turn_time = milliseconds / 1000
        self.turn_time_told += 1

    @property
    def i_am_away(self) -> bool:
        """A host bot plays this client's own seat (its turn clock ran out, say)."""
        return self.my_seat is not None and self.seat(self.my_seat).away != 0

    def absent_seats(self) -> list[int]:
        """Seats of people not connected that no host bot plays yet: the ones this seat may
        decide for (DecideAbsence) when it is the first person at the table."""
        if self.my_seat is None or not self.seat(self.my_seat).decides_absences:
            return []
        return [
            s.seat
            for s in sorted(self.seats.values(), key=lambda s: s.seat)
            if s.taken and not s.bot and not s.connected and not s.away and s.seat != self.my_seat
        ]

    @staticmethod
    def _set_score(state: SeatState, score: table_pb2.SeatScore) -> None:
        state.total = score.total
        state.out = score.out
        state.gone = score.gone
        state.rientri = score.rientri
        state.chips = score.chips

    def _seat_changed(self, info: lobby_pb2.SeatInfo) -> None:
        state = self.seat(info.seat)
        before = (state.taken, state.connected, state.name)
        was_away = state.away
        self._set_info(state, info)
        if info.away and not was_away:
            key = AWAY_LOG.get(info.away, "log_away_disconnected")
            self._log(key, name=self.name_of(info.seat))
            return
        if was_away and not info.away and info.taken:
            self._log("log_seat_back", name=self.name_of(info.seat))
            return
        if info.taken and not before[0]:
            self._log("log_seat_taken", name=info.name, seat=info.seat)
        elif not info.taken and before[0]:
            self._log("log_seat_left", seat=info.seat)
        elif info.taken and not info.bot and info.connected != before[1]:
            key = "log_seat_connected" if info.connected else "log_seat_disconnected"
            self._log(key, name=info.name)

    def _match_update(self, update: table_pb2.MatchUpdate) -> None:
        offered_before = self.rientro_offers
        self._set_rientro_offers(update.rientro_offers)
        self._set_between_deals(update.between_deals if update.HasField("between_deals") else None)
        before = {seat: (s.total, s.out, s.rientri) for seat, s in self.seats.items()}
        self.score_sheet.totals_after(self.result, update.scores)
        for score in update.scores:
            state = self.seat(score.seat)
            name = self.name_of(score.seat)
            if score.out and not state.out:
                self._log("log_gone" if score.gone else "log_busted", name=name)
                if score.seat == self.my_seat and not update.match_over:
                    self.unread_result = self.result
            if score.rientri > state.rientri:
                self._log("log_bought_back", name=name, total=score.total)
            elif score.seat in offered_before and score.seat not in self.rientro_offers:
                self._log("log_retired", name=name)
            self._set_score(state, score)
        if self.my_seat is None or not self.seat(self.my_seat).out:
            self.unread_result = None  # in the match (bought back in, R11.3): its deals
        after = {seat: (s.total, s.out, s.rientri) for seat, s in self.seats.items()}
        if after != before:  # a seat saying Ready changes no score
            self._log("log_match_update")
        for seat, fee in self.rientro_offers.items():
            if seat not in offered_before:
                self._log("log_rientro_offered", name=self.name_of(seat), fee=fee)
        if update.match_over:
            self.match_over = True
            self.winners = tuple(update.winners)
            self.phase = Phase.MATCH_OVER
            self.table_phase = lobby_pb2.TABLE_PHASE_FINISHED
            names = ", ".join(self.name_of(s) for s in update.winners)
            self._log("log_match_over", names=names)

    def _set_between_deals(self, pause: table_pb2.BetweenDeals | None) -> None:
        if pause is None:
            self.between_deals = None
            return
        self.between_deals = BetweenDealsState(
            pause.next_deal_within_ms / 1000,
            tuple(pause.waiting_for_seats),
            tuple(pause.ready_seats),
        )

    def _set_rientro_offers(self, offers: Iterable[table_pb2.RientroOffer]) -> None:
        offers = list(offers)
        self.rientro_offers = {o.seat: o.fee for o in offers}
        self.rientro_answer_within = {o.seat: o.answer_within_ms / 1000 for o in offers}

    # --- deal events ------------------------------------------------------------------

    def _apply_deal(
        self, raw: bytes, private: deal_pb2.PrivateDealEvent | None, by_host: bool = False
    ) -> None:
        event = deal_pb2.DealEvent.FromString(raw)
        kind = event.WhichOneof("event")
        if by_host and kind == "played":
            self._log("log_played_by_host", name=self.name_of(event.played.seat))
        if kind == "announced":
            self._announced(event)
        fd = self.deals.get(event.deal_no)
        if fd is None:
            # A deal whose announcement this client never saw (a stream resumed mid-deal
            # without a snapshot): keep its bytes anyway; verification will say what is missing.
            fd = FairDealState(event.deal_no, event.table_id)
            self.deals[event.deal_no] = fd
        fd.event_bytes.append(raw)
        if private is not None:
            fd.private_events.append(private)
        happened = self._follow(event, private)
        if kind == "commitments":
            fd.commitments = {c.seat: c.commitment for c in event.commitments.commitments}
            self.phase = Phase.REVEAL
            self._log("log_commitments", n=len(fd.commitments))
        elif kind == "reveals":
            self._reveals(fd, event.reveals)
        elif kind == "started":
            fd.started = True
            self._started(event.started)
        elif kind == "drawn" and isinstance(happened, CardDrawn):
            self._drawn(happened)
        elif kind == "played" and isinstance(happened, Played):
            self._played(happened)
        elif kind == "stock_rebuilt":
            self._log("log_stock_rebuilt", n=event.stock_rebuilt.stock_count)
        elif kind == "ended":
            fd.outcome = event.ended.outcome
            self._ended(event.deal_no, event.ended)
        elif kind == "discard_returned":
            self._discard_returned(event.discard_returned)
        elif kind == "host_seed_revealed":
            fd.host_seed = event.host_seed_revealed.host_seed
            self._log("log_host_seed")
        if self.deal is not None and kind in (
            "drawn",
            "played",
            "stock_rebuilt",
            "discard_returned",
        ):
            self.phase = _PHASE_OF_DEAL[self.deal.phase]

    def _follow(
        self, event: deal_pb2.DealEvent, private: deal_pb2.PrivateDealEvent | None
    ) -> Event | None:
        """Carry this seat's view of the deal across ``event`` (the engine event it reads as);
        a new deal's cards start a new view."""
        try:
            happened = self._reader.read(event, private)
        except _UNFOLLOWABLE:
            self.deal = None
            return None
        if isinstance(happened, DealStarted):
            ruleset = self.deal_ruleset(len(happened.seats))
            self.deal = (
                views.view_at_start(ruleset, happened, self.my_seat)
                if ruleset is not None
                else None
            )
        elif happened is not None and self.deal is not None:
            try:
                if (
                    isinstance(happened, CardDrawn)
                    and happened.card is None
                    and (happened.seat == self.deal.viewer)
                ):
                    # A private table's stock card: its shares come after the draw, and the
                    # card with them (``private_card_drawn``); the rest of the view moves now.
                    blind = views.after_event(dataclasses.replace(self.deal, viewer=None), happened)
                    self.deal = dataclasses.replace(blind, viewer=self.deal.viewer)
                else:
                    self.deal = views.after_event(self.deal, happened)
            except _UNFOLLOWABLE:
                self.deal = None
        return happened

    def _announced(self, event: deal_pb2.DealEvent) -> None:
        a = event.announced
        self.deals[event.deal_no] = FairDealState(
            event.deal_no,
            event.table_id,
            dealer=a.dealer_seat,
            cutter=a.cutter_seat,
            seats_in_play=tuple(a.seats_in_play),
            deck_size=a.deck_size,
            host_commitment=a.host_commitment,
            ruleset=a.ruleset if a.HasField("ruleset") else None,
        )
        self.deal_no = event.deal_no
        self.dealer = a.dealer_seat
        self._set_rientro_offers(())
        self.between_deals = None
        self.phase = Phase.COMMIT
        self.deal = None
        self.last_drawn = None
        self.pile_takes = []
        self.result = None
        for state in self.seats.values():
            state.in_deal = state.seat in a.seats_in_play
        self._log(
            "log_deal_announced",
            deal=event.deal_no,
            dealer=self.name_of(a.dealer_seat),
            cutter=self.name_of(a.cutter_seat),
        )

    def _reveals(self, fd: FairDealState, reveals: deal_pb2.SeedsRevealed) -> None:
        fd.reveals = {r.seat: (r.seed, r.cut) for r in reveals.reveals}
        fd.left_out = {lo.seat: lo.reason for lo in reveals.left_out}
        self._log("log_reveals", n=len(fd.reveals))

    def _started(self, started: deal_pb2.DealStarted) -> None:
        self.closing_play = None
        self.phase = Phase.DRAW
        for seat in self.seats_in_play:
            self.seat(seat).in_deal = True
        self._log(
            "log_deal_started",
            card=card_text(started.first_discard),
            name=self.name_of(started.first_seat),
        )

    def _drawn(self, drawn: CardDrawn) -> None:
        name = self.name_of(drawn.seat)
        mine = drawn.seat == self.my_seat
        if mine:
            self.last_drawn = drawn.card
        if drawn.source is DrawSource.DISCARD:
            if drawn.card is not None:
                self.pile_takes = [*self.pile_takes, (drawn.seat, drawn.card)][-PILE_TAKES_KEPT:]
            self._log("log_took_discard", name=name, card=_text(drawn.card))
        elif mine and drawn.card is not None:
            self._log("log_you_drew_stock", card=card_text(drawn.card))
        else:
            self._log("log_drew_stock", name=name)

    def _played(self, played: Played) -> None:
        name = self.name_of(played.seat)
        if played.opened:
            # Said first: an opening is made of the new melds, and only then may the same
            # play attach or swap (R5, R6.1).
            points = sum(
                meld.points
                for op in played.operations
                if isinstance(op, MeldLaid)
                for _, meld in op.placed
            )
            self._log("log_opened", name=name, points=points)
        for op in played.operations:
            if isinstance(op, MeldLaid):
                self._log("log_new_meld", name=name, cards=cards_text(op.cards))
            elif isinstance(op, JokerSwapped):
                self._log("log_swap", name=name, meld=op.meld + 1, card=card_text(op.card))
            else:
                self._log("log_attach", name=name, cards=cards_text(op.cards), meld=op.meld + 1)
        if played.went_out:
            self.closing_play = played
        if played.discard is not None:
            self._log("log_discard", name=name, card=card_text(played.discard))
        if played.seat == self.my_seat:
            self.last_drawn = None
        if played.went_out:
            self._log("log_went_out", name=name)

    def _ended(self, deal_no: int, ended: deal_pb2.DealEnded) -> None:
        closer = ended.closer_seat if ended.HasField("closer_seat") else None
        hands = [SeatResult(h.seat, tuple(h.cards), h.opened, h.penalty) for h in ended.hands]
        self.result = DealResult(
            deal_no, ended.outcome, closer, ended.closed_in_one_turn, hands, ended.void_reason
        )
        self.phase = Phase.DEAL_OVER
        if ended.outcome == deal_pb2.DEAL_OUTCOME_WENT_OUT:
            key = "log_deal_ended_in_hand" if ended.closed_in_one_turn else "log_deal_ended_out"
            self._log(key, deal=deal_no, name=self.name_of(closer))
        elif ended.outcome == deal_pb2.DEAL_OUTCOME_VOID:
            self._log("log_deal_void", deal=deal_no)
        else:
            self._log("log_deal_abandoned", deal=deal_no)

    def _discard_returned(self, returned: deal_pb2.DiscardReturned) -> None:
        # The card put back was not kept: it leaves the list of what each seat took (R3.2).
        taken = (returned.seat, returned.card)
        if taken in self.pile_takes:
            at = len(self.pile_takes) - 1 - self.pile_takes[::-1].index(taken)
            self.pile_takes = self.pile_takes[:at] + self.pile_takes[at + 1 :]
        if returned.seat == self.my_seat:
            self.last_drawn = None
        self._log(
            "log_discard_returned", name=self.name_of(returned.seat), card=card_text(returned.card)
        )

    def note(self, key: str, **fields: str | int) -> None:
        """Add a line of the client's own to the log (a hint, a local notice)."""
        self.log.append(_entry(key, **fields))
        del self.log[:-LOG_LIMIT]

    def _log(self, key: str, **fields: str | int) -> None:
        if self._quiet:
            return
        self.log.append(_entry(key, **fields))
        del self.log[:-LOG_LIMIT]


def card_label(card: int) -> str:
    """A card as the screen writes it: ``7♥``, ``10♦``, ``JK``."""
    f = face(card)
    if f.suit is None:
        return "JK"
    return f"{RANK_TEXT.get(f.rank, str(f.rank))}{f.suit.symbol}"


def card_text(card: int) -> str:
    return card_label(card)


def cards_text(cards: Iterable[int]) -> str:
    return " ".join(card_label(c) for c in cards)


def _text(card: int | None) -> str:
    return card_label(card) if card is not None else "?"


class HandOrder(StrEnum):
    SUIT = "suit"
    RANK = "rank"


def sort_hand(hand: list[int], order: HandOrder) -> list[int]:
    """The hand as shown: by suit then rank, or by rank then suit; jokers last."""

    def key(card: int) -> tuple[int, int, int]:
        f = face(card)
        if f.is_joker or f.suit is None:
            return (99, 99, card)
        if order is HandOrder.SUIT:
            return (int(f.suit), f.rank, card)
        return (f.rank, int(f.suit), card)

    return sorted(hand, key=key)
