"""The client's view model: the table as this seat sees it, built only from the host's events.

``TableModel.apply`` takes each ``TableEvent`` of the stream (a snapshot, a
deal event, a seat change, chat, scores …) and updates plain Python values
that the screen renders. Nothing here decides whether a move is legal; melds
that grow on the table are recomputed with the rules engine's own meld
functions so the client shows them exactly as the host holds them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum

from client.scoresheet import ScoreSheet
from scala40_net.cards import RANK_TEXT, Face, Suit, face, is_joker
from scala40_net.errors import RuleViolation
from scala40_net.melds import Meld, MeldKind, attach, declarations, make_meld, split_run, swap_joker
from scala40_net.pb import cards_pb2, deal_pb2, lobby_pb2, ruleset_pb2, table_pb2

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


def face_from_pb(pb: cards_pb2.Face) -> Face:
    """A proto ``Face`` (suit enum = suit index + 1) as the library's ``Face``."""
    if pb.rank == 0 or pb.suit == cards_pb2.SUIT_UNSPECIFIED:
        return Face(0, None)
    return Face(pb.rank, Suit(pb.suit - 1))


def face_to_pb(f: Face) -> cards_pb2.Face:
    if f.suit is None:
        return cards_pb2.Face(rank=0, suit=cards_pb2.SUIT_UNSPECIFIED)
    return cards_pb2.Face(rank=f.rank, suit=cards_pb2.Suit.Name(int(f.suit) + 1))


@dataclass
class SeatState:
    """One seat: who sits there and how they stand in this deal and in the match."""

    seat: int
    name: str = ""
    taken: bool = False
    bot: bool = False
    connected: bool = False
    hand_count: int = 0
    opened: bool = False
    in_deal: bool = False
    total: int = 0
    out: bool = False
    rientri: int = 0
    chips: int = 0
    away: int = 0  # lobby_pb2.AwayReason while a host bot plays for this seat's player


@dataclass
class TableMeldState:
    """A meld on the table under its number; ``meld`` is the engine's value, when it rebuilds."""

    meld_id: int
    cards: tuple[int, ...]
    laid_by: int
    meld: Meld | None
    kind: MeldKind | None = None
    joker_as: Face | None = None
    points: int = 0

    @classmethod
    def of(cls, meld_id: int, meld: Meld, laid_by: int) -> TableMeldState:
        return cls(meld_id, meld.cards, laid_by, meld, meld.kind, meld.joker_as, meld.points)


@dataclass
class Verification:
    """The client's check of an ended deal: ``ok`` None while running."""

    ok: bool | None
    reason: str = ""
    record_path: str = ""


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
}


class TableModel:
    """Everything the table screen shows, updated event by event."""

    def __init__(self) -> None:
        self.last_seq = 0
        self.table_id = ""
        self.table_name = ""
        self.preset: ruleset_pb2.Preset = ruleset_pb2.PRESET_UNSPECIFIED
        self.ruleset = lobby_pb2.TableSummary().ruleset
        self.table_phase = lobby_pb2.TABLE_PHASE_UNSPECIFIED
        self.my_seat: int | None = None
        self.seats: dict[int, SeatState] = {}
        self.hand: list[int] = []
        self.melds: dict[int, TableMeldState] = {}
        self.discard_pile: list[int] = []  # bottom first; may hold only the top after a snapshot
        self.discard_count = 0
        self.stock_count = 0
        self.deal_no = 0
        self.dealer: int | None = None
        self.turn: int | None = None
        self.phase = Phase.WAITING
        self.taken_discard: int | None = None
        self.last_drawn: int | None = None
        self.discard_barred = False  # this seat put the discard back this turn
        self.turns_played: dict[int, int] = {}
        self.deals: dict[int, FairDealState] = {}
        self.result: DealResult | None = None
        self.match_over = False
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

    # --- queries ----------------------------------------------------------------------

    @property
    def is_spectator(self) -> bool:
        return self.my_seat is None

    @property
    def my_turn(self) -> bool:
        return self.my_seat is not None and self.turn == self.my_seat

    @property
    def discard_top(self) -> int | None:
        return self.discard_pile[-1] if self.discard_pile else None

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
        return [self.melds[k] for k in sorted(self.melds)]

    def i_have_opened(self) -> bool:
        return self.my_seat is not None and self.seat(self.my_seat).opened

    @property
    def my_rientro_fee(self) -> int | None:
        """What buying back in costs this seat, while the host waits for its answer (R11.3)."""
        return self.rientro_offers.get(self.my_seat) if self.my_seat is not None else None

    def rientro_total(self) -> int:
        """The total a seat buying back in gets: the worst-placed player still in (R11.3)."""
        still_in = [s.total for s in self.seats.values() if s.taken and not s.out]
        return max(still_in, default=0)

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
        elif kind == "match_started":
            started = event.match_started
            self.match_over = False
            self.table_phase = lobby_pb2.TABLE_PHASE_PLAYING
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
            state.hand_count = sv.hand_count
            state.opened = sv.opened
            state.in_deal = sv.in_deal
            self._set_score(state, sv.score)
        turns_played = {sv.info.seat: sv.turns_played for sv in view.seats if sv.in_deal}
        # Replaying the deal's public events rebuilds what a view does not carry
        # (the fair-deal exchange, the discard pile under its top); the view's
        # own fields then win wherever both say something.
        self.deals.pop(view.deal_no, None)
        # A first snapshot (a rejoin) logs the deal so far; one after a gap in the stream
        # would log again what the log already holds.
        self._quiet = bool(self.log)
        try:
            for raw in view.deal_events:
                self._apply_deal(raw, None)
        finally:
            self._quiet = False
        fd = self.deals.get(view.deal_no)
        if fd is not None:
            fd.private_events = list(view.my_private_events)
        self.hand = list(view.my_hand)
        self.melds = {m.meld_id: self._meld_from_pb(m) for m in view.melds}
        top = view.discard_top if view.HasField("discard_top") else None
        if view.discard_pile:
            self.discard_pile = list(view.discard_pile)
        elif top is None:
            self.discard_pile = []
        elif self.discard_top != top or len(self.discard_pile) != view.discard_count:
            self.discard_pile = [top]
        self.discard_count = view.discard_count
        self.stock_count = view.stock_count
        self.deal_no = view.deal_no
        self.dealer = view.dealer_seat if view.deal_no else None
        self.turn = view.turn_seat if view.HasField("turn_seat") else None
        self.phase = _PHASE_FROM_PB.get(view.phase, self.phase)
        if view.phase == table_pb2.TURN_PHASE_UNSPECIFIED and self.phase not in (
            Phase.DEAL_OVER,
            Phase.MATCH_OVER,
        ):
            self.phase = Phase.WAITING
        if self.table_phase == lobby_pb2.TABLE_PHASE_FINISHED:
            self.phase = Phase.MATCH_OVER
            self.match_over = True
        self.taken_discard = view.taken_discard if view.HasField("taken_discard") else None
        self._set_rientro_offers(view.rientro_offers)
        self._set_between_deals(view.between_deals if view.HasField("between_deals") else None)
        if view.HasField("turn_time_left_ms"):
            self._set_turn_time(view.turn_time_left_ms)
        else:
            self.turn_time = None
        if turns_played:
            self.turns_played = turns_played
        self.last_seq = seq
        self._log("log_snapshot")

    # --- lobby-level pieces -----------------------------------------------------------

    def _load_summary(self, summary: lobby_pb2.TableSummary) -> None:
        self.table_id = summary.table_id
        self.table_name = summary.name
        self.preset = summary.preset
        self.ruleset = summary.ruleset
        self.table_phase = summary.phase
        for info in summary.seats:
            self._set_info(self.seat(info.seat), info)

    @staticmethod
    def _set_info(state: SeatState, info: lobby_pb2.SeatInfo) -> None:
        state.name = info.name
        state.taken = info.taken
        state.bot = info.bot
        state.connected = info.connected
        state.away = info.away

    def _set_turn_time(self, milliseconds: int) -> None:
        self.turn_time = milliseconds / 1000
        self.turn_time_told += 1

    @property
    def i_am_away(self) -> bool:
        """A host bot plays this client's own seat (its turn clock ran out, say)."""
        return self.my_seat is not None and self.seat(self.my_seat).away != 0

    @staticmethod
    def _set_score(state: SeatState, score: table_pb2.SeatScore) -> None:
        state.total = score.total
        state.out = score.out
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
                self._log("log_busted", name=name)
            if score.rientri > state.rientri:
                self._log("log_bought_back", name=name, total=score.total)
            elif score.seat in offered_before and score.seat not in self.rientro_offers:
                self._log("log_retired", name=name)
            self._set_score(state, score)
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
        if kind == "commitments":
            fd.commitments = {c.seat: c.commitment for c in event.commitments.commitments}
            self.phase = Phase.REVEAL
            self._log("log_commitments", n=len(fd.commitments))
        elif kind == "reveals":
            self._reveals(fd, event.reveals)
        elif kind == "started":
            fd.started = True
            self._started(event.started, private)
        elif kind == "drawn":
            self._drawn(event.drawn, private)
        elif kind == "played":
            self._played(event.played)
        elif kind == "stock_rebuilt":
            self.discard_pile = self.discard_pile[-1:]
            self.discard_count = len(self.discard_pile)
            self.stock_count = event.stock_rebuilt.stock_count
            self._log("log_stock_rebuilt", n=event.stock_rebuilt.stock_count)
        elif kind == "ended":
            fd.outcome = event.ended.outcome
            self._ended(event.deal_no, event.ended)
        elif kind == "discard_returned":
            self._discard_returned(event.discard_returned)
        elif kind == "host_seed_revealed":
            fd.host_seed = event.host_seed_revealed.host_seed
            self._log("log_host_seed")

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
        self.turn = None
        self.hand = []
        self.melds = {}
        self.discard_pile = []
        self.discard_count = 0
        self.stock_count = 0
        self.taken_discard = None
        self.last_drawn = None
        self.discard_barred = False
        self.turns_played = {}
        self.pile_takes = []
        self.result = None
        for state in self.seats.values():
            state.in_deal = state.seat in a.seats_in_play
            state.hand_count = 0
            state.opened = False
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

    def _started(
        self, started: deal_pb2.DealStarted, private: deal_pb2.PrivateDealEvent | None
    ) -> None:
        self.discard_pile = [started.first_discard]
        self.discard_count = 1
        self.stock_count = started.stock_count
        self.turn = started.first_seat
        self.phase = Phase.DRAW
        for seat in self.seats_in_play:
            self.seat(seat).hand_count = 13
            self.seat(seat).in_deal = True
        if private is not None and private.WhichOneof("event") == "hand_dealt":
            self.hand = list(private.hand_dealt.cards)
        self._log(
            "log_deal_started",
            card=card_text(started.first_discard),
            name=self.name_of(started.first_seat),
        )

    def _drawn(self, drawn: deal_pb2.CardDrawn, private: deal_pb2.PrivateDealEvent | None) -> None:
        seat = self.seat(drawn.seat)
        seat.hand_count += 1
        self.turn = drawn.seat
        self.phase = Phase.PLAY
        mine = drawn.seat == self.my_seat
        if drawn.source == deal_pb2.DRAW_SOURCE_DISCARD:
            card = drawn.card if drawn.HasField("card") else self.discard_top
            if self.discard_pile:
                self.discard_pile.pop()
            self.discard_count = max(0, self.discard_count - 1)
            if card is not None:
                self.pile_takes = [*self.pile_takes, (drawn.seat, card)][-PILE_TAKES_KEPT:]
            if mine and card is not None:
                self.hand.append(card)
                self.taken_discard = card
                self.last_drawn = card
            self._log("log_took_discard", name=seat.name or f"#{seat.seat}", card=_text(card))
            return
        self.stock_count = max(0, self.stock_count - 1)
        if mine and private is not None and private.WhichOneof("event") == "stock_card_drawn":
            card = private.stock_card_drawn.card
            self.hand.append(card)
            self.last_drawn = card
            self._log("log_you_drew_stock", card=card_text(card))
        else:
            self._log("log_drew_stock", name=self.name_of(drawn.seat))

    def _played(self, played: deal_pb2.Played) -> None:
        seat = self.seat(played.seat)
        name = self.name_of(played.seat)
        mine = played.seat == self.my_seat
        new_ids = iter(played.new_meld_ids)
        opening_points = 0
        for op in played.operations:
            which = op.WhichOneof("operation")
            if which == "new_meld":
                nm = op.new_meld
                cards = tuple(nm.cards)
                self._remove_from_hand(seat, cards, mine)
                joker_as = face_from_pb(nm.joker_as) if nm.HasField("joker_as") else None
                laid = self._lay(cards, joker_as, tuple(nm.split), played.seat, new_ids)
                opening_points += sum(m.points for m in laid)
                self._log("log_new_meld", name=name, cards=cards_text(cards))
            elif which == "attach":
                at = op.attach
                cards = tuple(at.cards)
                self._remove_from_hand(seat, cards, mine)
                joker_as = face_from_pb(at.joker_as) if at.HasField("joker_as") else None
                self._attach(at.meld_id, cards, joker_as, tuple(at.split), played.seat, new_ids)
                self._log("log_attach", name=name, cards=cards_text(cards), meld=at.meld_id)
            elif which == "swap_joker":
                sw = op.swap_joker
                joker = self._swap(sw.meld_id, sw.card)
                self._remove_from_hand(seat, (sw.card,), mine)
                seat.hand_count += 1
                if mine and joker is not None:
                    self.hand.append(joker)
                self._log("log_swap", name=name, meld=sw.meld_id, card=card_text(sw.card))
        if played.opened:
            seat.opened = True
            self._log("log_opened", name=name, points=opening_points)
        if played.HasField("discard"):
            self._remove_from_hand(seat, (played.discard,), mine)
            self.discard_pile.append(played.discard)
            self.discard_count += 1
            self._log("log_discard", name=name, card=card_text(played.discard))
        if mine:
            self.taken_discard = None
            self.last_drawn = None
            self.discard_barred = False
        self.turns_played[played.seat] = self.turns_played.get(played.seat, 0) + 1
        if played.went_out:
            self._log("log_went_out", name=name)
            self.turn = None
            return
        self.turn = self._next_seat(played.seat)
        self.phase = Phase.DRAW

    def _ended(self, deal_no: int, ended: deal_pb2.DealEnded) -> None:
        closer = ended.closer_seat if ended.HasField("closer_seat") else None
        hands = [SeatResult(h.seat, tuple(h.cards), h.opened, h.penalty) for h in ended.hands]
        self.result = DealResult(
            deal_no, ended.outcome, closer, ended.closed_in_one_turn, hands, ended.void_reason
        )
        for h in hands:
            state = self.seat(h.seat)
            state.hand_count = len(h.cards)
            state.opened = h.opened
        self.turn = None
        self.phase = Phase.DEAL_OVER
        if ended.outcome == deal_pb2.DEAL_OUTCOME_WENT_OUT:
            key = "log_deal_ended_in_hand" if ended.closed_in_one_turn else "log_deal_ended_out"
            self._log(key, deal=deal_no, name=self.name_of(closer))
        elif ended.outcome == deal_pb2.DEAL_OUTCOME_VOID:
            self._log("log_deal_void", deal=deal_no)
        else:
            self._log("log_deal_abandoned", deal=deal_no)

    def _discard_returned(self, returned: deal_pb2.DiscardReturned) -> None:
        seat = self.seat(returned.seat)
        self._remove_from_hand(seat, (returned.card,), returned.seat == self.my_seat)
        self.discard_pile.append(returned.card)
        self.discard_count += 1
        self.phase = Phase.DRAW
        if returned.seat == self.my_seat:
            self.taken_discard = None
            self.last_drawn = None
            self.discard_barred = True
        self._log(
            "log_discard_returned", name=seat.name or f"#{seat.seat}", card=card_text(returned.card)
        )

    # --- helpers ----------------------------------------------------------------------

    def _next_seat(self, seat: int) -> int:
        seats = sorted(self.seats_in_play) or [seat]
        if seat not in seats:
            return seats[0]
        return seats[(seats.index(seat) + 1) % len(seats)]

    def _remove_from_hand(self, seat: SeatState, cards: tuple[int, ...], mine: bool) -> None:
        seat.hand_count = max(0, seat.hand_count - len(cards))
        if mine:
            for c in cards:
                if c in self.hand:
                    self.hand.remove(c)

    def _lay(
        self,
        cards: tuple[int, ...],
        joker_as: Face | None,
        split: tuple[int, ...],
        owner: int,
        new_ids: Iterator[int],
    ) -> list[TableMeldState]:
        if joker_as is None and any(is_joker(c) for c in cards):
            options = declarations(cards)
            joker_as = options[0] if options else None
        try:
            pieces = split_run(make_meld(cards, joker_as), self.max_run, split)
        except RuleViolation:
            pieces = ()
        laid: list[TableMeldState] = []
        if not pieces:
            meld_id = next(new_ids, None)
            if meld_id is not None:
                self.melds[meld_id] = TableMeldState(meld_id, cards, owner, None)
                laid.append(self.melds[meld_id])
            return laid
        for piece in pieces:
            meld_id = next(new_ids, None)
            if meld_id is None:
                break
            self.melds[meld_id] = TableMeldState.of(meld_id, piece, owner)
            laid.append(self.melds[meld_id])
        return laid

    def _attach(
        self,
        meld_id: int,
        cards: tuple[int, ...],
        joker_as: Face | None,
        split: tuple[int, ...],
        owner: int,
        new_ids: Iterator[int],
    ) -> None:
        target = self.melds.get(meld_id)
        if target is None:
            return
        if target.meld is None:
            target.cards = target.cards + cards
            return
        try:
            pieces = split_run(attach(target.meld, cards, joker_as), self.max_run, split)
        except RuleViolation:
            target.cards = target.cards + cards
            return
        # As the engine places them: the first run keeps the number, cut-off runs get new ones.
        self.melds[meld_id] = TableMeldState.of(meld_id, pieces[0], target.laid_by)
        for piece in pieces[1:]:
            new_id = next(new_ids, None)
            if new_id is not None:
                self.melds[new_id] = TableMeldState.of(new_id, piece, owner)

    def _swap(self, meld_id: int, card: int) -> int | None:
        target = self.melds.get(meld_id)
        if target is None or target.meld is None:
            return None
        try:
            swapped, joker = swap_joker(target.meld, card)
        except RuleViolation:
            return None
        self.melds[meld_id] = TableMeldState.of(meld_id, swapped, target.laid_by)
        return joker

    def _meld_from_pb(self, m: cards_pb2.TableMeld) -> TableMeldState:
        joker_as = face_from_pb(m.joker.stands_for) if m.HasField("joker") else None
        try:
            meld = make_meld(tuple(m.cards), joker_as)
        except RuleViolation:
            kind = {
                cards_pb2.MELD_KIND_SEQUENCE: MeldKind.SEQUENCE,
                cards_pb2.MELD_KIND_GROUP: MeldKind.GROUP,
            }
            return TableMeldState(
                m.meld_id,
                tuple(m.cards),
                m.laid_by_seat,
                None,
                kind.get(m.kind),
                joker_as,
                m.points,
            )
        return TableMeldState.of(m.meld_id, meld, m.laid_by_seat)

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
