"""The engine <-> wire mapping: engine values to and from the scala40.v1 protobuf messages.

One place for it, shared by the host, the clients and the bots. Decoding
checks only the shape of a message (ids in range, enums set); whether a move
is allowed is the engine's question, never this module's. ``WireError`` is
the one exception decoding raises: the host answers it with INVALID_ARGUMENT.
"""

from __future__ import annotations

from collections.abc import Sequence

from scala40_net import actions, cards, deal, events, melds, rules, views
from scala40_net.errors import OptionOutOfRange
from scala40_net.pb import cards_pb2, deal_pb2, rules_service_pb2, ruleset_pb2, table_pb2

MAX_CARD_ID = 2 * cards.CARDS_PER_DECK - 1
# More operations than cards a hand can hold is never a real play.
MAX_OPERATIONS = 64


class WireError(ValueError):
    """A message that does not say anything the game understands (a bad id, an unset enum)."""


# --- Cards and faces ----------------------------------------------------------------------


def card_from_pb(card: int, decks: int = 2) -> int:
    """A card id off the wire, checked against the number of decks in play."""
    if not 0 <= card < cards.deck_size(decks):
        raise WireError(
            f"card id {card} is not a card of a {decks}-deck game (0..{cards.deck_size(decks) - 1})"
        )
    return card


def cards_from_pb(ids: Sequence[int], decks: int = 2) -> tuple[int, ...]:
    return tuple(card_from_pb(c, decks) for c in ids)


def face_to_pb(face: cards.Face) -> cards_pb2.Face:
    if face.suit is None:
        return cards_pb2.Face(rank=0, suit=cards_pb2.SUIT_UNSPECIFIED)
    return cards_pb2.Face(rank=face.rank, suit=int(face.suit) + 1)  # type: ignore[arg-type]


def face_from_pb(face: cards_pb2.Face) -> cards.Face:
    if face.rank == cards.JOKER_RANK and face.suit == cards_pb2.SUIT_UNSPECIFIED:
        return cards.JOKER
    if not 1 <= face.rank <= 13:
        raise WireError(f"face rank {face.rank} is not 1..13")
    if face.suit == cards_pb2.SUIT_UNSPECIFIED or face.suit not in cards_pb2.Suit.values():
        raise WireError("a face of rank 1..13 needs a suit")
    return cards.Face(face.rank, cards.Suit(face.suit - 1))


def meld_kind_to_pb(kind: melds.MeldKind | None) -> cards_pb2.MeldKind:
    if kind is melds.MeldKind.SEQUENCE:
        return cards_pb2.MELD_KIND_SEQUENCE
    if kind is melds.MeldKind.GROUP:
        return cards_pb2.MELD_KIND_GROUP
    return cards_pb2.MELD_KIND_UNSPECIFIED


# --- Rulesets -----------------------------------------------------------------------------

PRESET_NAMES: dict[int, str] = {
    ruleset_pb2.PRESET_UNSPECIFIED: "classic",
    ruleset_pb2.PRESET_CLASSIC: "classic",
    ruleset_pb2.PRESET_TRADIZIONALE: "tradizionale",
    ruleset_pb2.PRESET_SEMPLICE: "semplice",
}
PRESET_BY_NAME = {
    "classic": ruleset_pb2.PRESET_CLASSIC,
    "tradizionale": ruleset_pb2.PRESET_TRADIZIONALE,
    "semplice": ruleset_pb2.PRESET_SEMPLICE,
}
_PICKUP = {
    ruleset_pb2.DISCARD_PICKUP_CLASSIC: rules.DiscardPickup.CLASSIC,
    ruleset_pb2.DISCARD_PICKUP_OPEN_WITH_IT: rules.DiscardPickup.OPEN_WITH_IT,
    ruleset_pb2.DISCARD_PICKUP_FREE: rules.DiscardPickup.FREE,
}
_ATTACHABLE = {
    ruleset_pb2.DISCARD_ATTACHABLE_CLASSIC: rules.DiscardAttachable.CLASSIC,
    ruleset_pb2.DISCARD_ATTACHABLE_NEVER: rules.DiscardAttachable.NEVER,
    ruleset_pb2.DISCARD_ATTACHABLE_AGREED: rules.DiscardAttachable.AGREED,
    ruleset_pb2.DISCARD_ATTACHABLE_FREE: rules.DiscardAttachable.FREE,
}
_JOKER_SWAP = {
    ruleset_pb2.JOKER_SWAP_ANY_OPENED: rules.JokerSwap.ANY_OPENED,
    ruleset_pb2.JOKER_SWAP_OWNER: rules.JokerSwap.OWNER,
}
_FIRST_TURN_CLOSE = {
    ruleset_pb2.FIRST_TURN_CLOSE_NEVER: rules.FirstTurnClose.NEVER,
    ruleset_pb2.FIRST_TURN_CLOSE_NOT_AFTER_PICKUP: rules.FirstTurnClose.NOT_AFTER_PICKUP,
    ruleset_pb2.FIRST_TURN_CLOSE_ALLOWED: rules.FirstTurnClose.ALLOWED,
}
_LONE_ACE = {
    ruleset_pb2.LONE_ACE_ALWAYS: rules.LoneAce.ALWAYS,
    ruleset_pb2.LONE_ACE_AT_99: rules.LoneAce.AT_99,
    ruleset_pb2.LONE_ACE_NEVER: rules.LoneAce.NEVER,
    ruleset_pb2.LONE_ACE_SINGLE: rules.LoneAce.SINGLE,
}
_UNOPENED = {
    ruleset_pb2.UNOPENED_PENALTY_FLAT100: rules.UnopenedPenalty.FLAT100,
    ruleset_pb2.UNOPENED_PENALTY_HAND: rules.UnopenedPenalty.HAND,
    ruleset_pb2.UNOPENED_PENALTY_DOUBLE: rules.UnopenedPenalty.DOUBLE,
}
_MODE = {
    ruleset_pb2.MATCH_MODE_POINTS: rules.MatchMode.POINTS,
    ruleset_pb2.MATCH_MODE_DEALS: rules.MatchMode.DEALS,
}
_PROGRESSION = {
    ruleset_pb2.RIENTRO_PROGRESSION_LINEAR: rules.Progression.LINEAR,
    ruleset_pb2.RIENTRO_PROGRESSION_DOUBLING: rules.Progression.DOUBLING,
}


def _enum_option(value: int, table: dict[int, object], name: str, into: dict[str, object]) -> None:
    if value == 0:
        return
    if value not in table:
        raise WireError(f"{name} {value} is not a known value")
    into[name] = table[value]


def preset_name(preset: int) -> str:
    if preset not in PRESET_NAMES:
        raise WireError(f"preset {preset} is not a known preset")
    return PRESET_NAMES[preset]


# Engine option names that the wire spells otherwise (RulesetOptions).
_WIRE_OPTION_NAMES = {"deals": "deals_in_match"}


def ruleset_from_pb(message: ruleset_pb2.Ruleset, players: int) -> rules.Ruleset:
    """The engine ruleset a table of ``players`` plays by: the preset, then the options set.

    Raises ``InvalidRuleset`` (a rule of R1/R11 broken) or ``WireError`` (an unknown enum).
    """
    base = rules.preset(preset_name(message.preset), players)
    o = message.options
    changes: dict[str, object] = {}
    for field in (
        "decks",
        "max_players",
        "close_without_discard",
        "opening_points",
        "closer_bonus",
        "bust_at",
        "rientro",
        "rientro_fee",
        "pairs",
        "rientro_pays_closer",
        "closing_in_hand_double",
    ):
        if o.HasField(field):
            changes[field] = getattr(o, field)
    if o.HasField("deals_in_match"):
        changes["deals"] = o.deals_in_match
    # 0 turns these limits off on the wire; the engine says None.
    if o.HasField("max_run"):
        changes["max_run"] = o.max_run or None
    if o.HasField("stall_rebuilds"):
        changes["stall_rebuilds"] = o.stall_rebuilds or None
    if o.HasField("rientro_max"):
        changes["rientro_max"] = o.rientro_max or None
    _enum_option(o.discard_pickup, _PICKUP, "discard_pickup", changes)  # type: ignore[arg-type]
    _enum_option(o.discard_attachable, _ATTACHABLE, "discard_attachable", changes)  # type: ignore[arg-type]
    _enum_option(o.unopened_penalty, _UNOPENED, "unopened_penalty", changes)  # type: ignore[arg-type]
    _enum_option(o.joker_swap, _JOKER_SWAP, "joker_swap", changes)  # type: ignore[arg-type]
    _enum_option(o.first_turn_close, _FIRST_TURN_CLOSE, "first_turn_close", changes)  # type: ignore[arg-type]
    _enum_option(o.lone_ace, _LONE_ACE, "lone_ace", changes)  # type: ignore[arg-type]
    _enum_option(o.match_mode, _MODE, "match_mode", changes)  # type: ignore[arg-type]
    _enum_option(o.rientro_progression, _PROGRESSION, "rientro_progression", changes)  # type: ignore[arg-type]
    try:
        ruleset = rules.with_options(base, **changes) if changes else base
    except OptionOutOfRange as error:  # named as the client wrote it: the wire's field name
        wire_name = _WIRE_OPTION_NAMES.get(error.option)
        if wire_name is None:
            raise
        raise OptionOutOfRange(wire_name, error.value, error.allowed, error.rule) from None
    ruleset.check_players(players)
    return ruleset


def _reverse(table: dict[int, object], value: object) -> int:
    return next(k for k, v in table.items() if v == value)


def ruleset_options_to_pb(ruleset: rules.Ruleset) -> ruleset_pb2.RulesetOptions:
    """Every option in force, each field set (0 for a limit that is off)."""
    return ruleset_pb2.RulesetOptions(
        decks=ruleset.decks,
        max_players=ruleset.max_players,
        discard_pickup=_reverse(_PICKUP, ruleset.discard_pickup),  # type: ignore[arg-type]
        discard_attachable=_reverse(_ATTACHABLE, ruleset.discard_attachable),  # type: ignore[arg-type]
        close_without_discard=ruleset.close_without_discard,
        unopened_penalty=_reverse(_UNOPENED, ruleset.unopened_penalty),  # type: ignore[arg-type]
        opening_points=ruleset.opening_points,
        max_run=ruleset.max_run or 0,
        closer_bonus=ruleset.closer_bonus,
        stall_rebuilds=ruleset.stall_rebuilds or 0,
        match_mode=_reverse(_MODE, ruleset.match_mode),  # type: ignore[arg-type]
        bust_at=ruleset.bust_at,
        deals_in_match=ruleset.deals,
        rientro=ruleset.rientro,
        rientro_fee=ruleset.rientro_fee,
        rientro_progression=_reverse(_PROGRESSION, ruleset.rientro_progression),  # type: ignore[arg-type]
        rientro_max=ruleset.rientro_max or 0,
        pairs=ruleset.pairs,
        rientro_pays_closer=ruleset.rientro_pays_closer,
        joker_swap=_reverse(_JOKER_SWAP, ruleset.joker_swap),  # type: ignore[arg-type]
        first_turn_close=_reverse(_FIRST_TURN_CLOSE, ruleset.first_turn_close),  # type: ignore[arg-type]
        closing_in_hand_double=ruleset.closing_in_hand_double,
        lone_ace=_reverse(_LONE_ACE, ruleset.lone_ace),  # type: ignore[arg-type]
    )


def ruleset_to_pb(preset: str, ruleset: rules.Ruleset) -> ruleset_pb2.Ruleset:
    """A ruleset message that rebuilds ``ruleset`` exactly: its preset and every option."""
    return ruleset_pb2.Ruleset(
        preset=PRESET_BY_NAME[preset], options=ruleset_options_to_pb(ruleset)
    )


# --- Operations and draws -----------------------------------------------------------------


def draw_source_from_pb(source: int) -> actions.DrawSource:
    if source == deal_pb2.DRAW_SOURCE_STOCK:
        return actions.DrawSource.STOCK
    if source == deal_pb2.DRAW_SOURCE_DISCARD:
        return actions.DrawSource.DISCARD
    raise WireError("the draw source must be DRAW_SOURCE_STOCK or DRAW_SOURCE_DISCARD")


def draw_source_to_pb(source: actions.DrawSource) -> deal_pb2.DrawSource:
    if source is actions.DrawSource.STOCK:
        return deal_pb2.DRAW_SOURCE_STOCK
    return deal_pb2.DRAW_SOURCE_DISCARD


def _joker_as(message: cards_pb2.NewMeld | cards_pb2.Attach) -> cards.Face | None:
    if message.HasField("joker_as"):
        return face_from_pb(message.joker_as)
    return None


def _declared(ids: tuple[int, ...], joker_as: cards.Face | None) -> cards.Face | None:
    """The wire lets a sequence's place (or a group of 4's missing suit) decide a joker (R4.4).

    The engine wants every declaration explicit, so when the cards allow only
    one, it is filled in from the engine's own list of possible declarations.
    """
    if joker_as is not None or not any(cards.is_joker(c) for c in ids):
        return joker_as
    options = melds.declarations(ids)
    return options[0] if len(options) == 1 else None


def meld_index_from_pb(meld_id: int) -> int:
    """The engine's table position (from 0) of the wire's meld number (from 1)."""
    if meld_id < 1:
        raise WireError("meld numbers start at 1 (TableMeld.meld_id)")
    return meld_id - 1


def operation_from_pb(message: cards_pb2.Operation, decks: int = 2) -> actions.Operation:
    which = message.WhichOneof("operation")
    if which == "new_meld":
        m = message.new_meld
        ids = cards_from_pb(m.cards, decks)
        return actions.NewMeld(ids, _declared(ids, _joker_as(m)), tuple(m.split))
    if which == "attach":
        a = message.attach
        ids = cards_from_pb(a.cards, decks)
        return actions.Attach(meld_index_from_pb(a.meld_id), ids, _joker_as(a), tuple(a.split))
    if which == "swap_joker":
        s = message.swap_joker
        return actions.SwapJoker(meld_index_from_pb(s.meld_id), card_from_pb(s.card, decks))
    raise WireError("an operation must be one of new_meld, attach or swap_joker")


def operation_to_pb(operation: actions.Operation) -> cards_pb2.Operation:
    if isinstance(operation, actions.NewMeld):
        new = cards_pb2.NewMeld(cards=operation.cards, split=operation.split)
        if operation.joker_as is not None:
            new.joker_as.CopyFrom(face_to_pb(operation.joker_as))
        return cards_pb2.Operation(new_meld=new)
    if isinstance(operation, actions.Attach):
        attach = cards_pb2.Attach(
            meld_id=operation.meld + 1, cards=operation.cards, split=operation.split
        )
        if operation.joker_as is not None:
            attach.joker_as.CopyFrom(face_to_pb(operation.joker_as))
        return cards_pb2.Operation(attach=attach)
    swap = cards_pb2.SwapJoker(meld_id=operation.meld + 1, card=operation.card)
    return cards_pb2.Operation(swap_joker=swap)


def play_from_pb(
    operations: Sequence[cards_pb2.Operation], discard: int | None, decks: int = 2
) -> actions.Play:
    """A Play action from the wire; shape only (legality is the engine's)."""
    if len(operations) > MAX_OPERATIONS:
        raise WireError(f"a play has at most {MAX_OPERATIONS} operations, not {len(operations)}")
    ops = tuple(operation_from_pb(op, decks) for op in operations)
    return actions.Play(ops, None if discard is None else card_from_pb(discard, decks))


def play_to_pb(play: actions.Play) -> tuple[list[cards_pb2.Operation], int | None]:
    return [operation_to_pb(op) for op in play.operations], play.discard


# --- Rule checks --------------------------------------------------------------------------


def meld_check_to_pb(check: melds.MeldCheck) -> rules_service_pb2.MeldCheck:
    out = rules_service_pb2.MeldCheck(
        valid=check.valid,
        kind=meld_kind_to_pb(check.kind),
        points=check.points,
        rule=check.rule or "",
        reason=check.reason or "",
        split=list(check.split),
    )
    joker = next((c for c in check.cards if cards.is_joker(c)), None)
    if check.valid and joker is not None and check.joker_as is not None:
        out.joker.CopyFrom(
            cards_pb2.JokerDeclaration(joker=joker, stands_for=face_to_pb(check.joker_as))
        )
    return out


def proposed_meld_from_pb(
    message: rules_service_pb2.ProposedMeld, decks: int = 2
) -> melds.ProposedMeld:
    """A meld to check, read as the host reads a NewMeld (joker declaration, R4.6 split)."""
    ids = cards_from_pb(message.cards, decks)
    joker_as = face_from_pb(message.joker_as) if message.HasField("joker_as") else None
    return melds.ProposedMeld(ids, _declared(ids, joker_as), tuple(message.split))


# --- Deal events --------------------------------------------------------------------------


def table_meld_to_pb(index: int, meld: melds.Meld, laid_by: int) -> cards_pb2.TableMeld:
    """Meld ``index`` (the engine's table position, from 0) as the wire numbers it (from 1)."""
    out = cards_pb2.TableMeld(
        meld_id=index + 1,
        kind=meld_kind_to_pb(meld.kind),
        cards=meld.cards,
        laid_by_seat=laid_by,
        points=meld.points,
    )
    if meld.joker is not None and meld.joker_as is not None:
        out.joker.CopyFrom(
            cards_pb2.JokerDeclaration(joker=meld.joker, stands_for=face_to_pb(meld.joker_as))
        )
    return out


def _split(placed: events.Placed) -> list[int]:
    return [len(m.cards) for _, m in placed] if len(placed) > 1 else []


def applied_operation_to_pb(op: events.AppliedOperation) -> tuple[cards_pb2.Operation, list[int]]:
    """An operation as applied (joker declarations explicit) and the meld numbers it made."""
    if isinstance(op, events.MeldLaid):
        new = cards_pb2.NewMeld(cards=op.cards, split=_split(op.placed))
        if op.joker_as is not None:
            new.joker_as.CopyFrom(face_to_pb(op.joker_as))
        return cards_pb2.Operation(new_meld=new), [i + 1 for i, _ in op.placed]
    if isinstance(op, events.CardsAttached):
        attach = cards_pb2.Attach(meld_id=op.meld + 1, cards=op.cards, split=_split(op.placed))
        if op.joker_as is not None:
            attach.joker_as.CopyFrom(face_to_pb(op.joker_as))
        return cards_pb2.Operation(attach=attach), [i + 1 for i, _ in op.placed[1:]]
    swap = cards_pb2.SwapJoker(meld_id=op.meld + 1, card=op.card)
    return cards_pb2.Operation(swap_joker=swap), []


_OUTCOME = {
    events.DealOutcome.CLOSED: deal_pb2.DEAL_OUTCOME_WENT_OUT,
    events.DealOutcome.VOID: deal_pb2.DEAL_OUTCOME_VOID,
}

DEAL_EVENTS = (
    events.DealStarted,
    events.CardDrawn,
    events.DiscardReturned,
    events.Played,
    events.StockRebuilt,
    events.DealEnded,
)


def is_deal_event(event: events.Event) -> bool:
    """Whether ``event`` belongs to a deal (a DealEvent) rather than to the match."""
    return isinstance(event, DEAL_EVENTS)


def deal_event_to_pb(
    event: events.Event, table_id: str, deal_no: int, opened: Sequence[bool] = ()
) -> deal_pb2.DealEvent:
    """The public DealEvent of an engine event as a spectator sees it (``view_event(e, None)``).

    Raises ``ValueError`` when given an event that still holds a hidden card:
    the public message is built only from what everyone may see. ``opened``
    follows the seats of a DealEnded (the engine state knows it, the event not).
    """
    public = deal_pb2.DealEvent(table_id=table_id, deal_no=deal_no)
    if isinstance(event, events.DealStarted):
        if any(hand is not None for hand in event.hands):
            raise ValueError("a public DealStarted holds no hand")
        first_seat = deal.deal_order(event.seats, event.dealer)[0]
        public.started.CopyFrom(
            deal_pb2.DealStarted(
                first_discard=event.first_discard,
                stock_count=event.stock_count,
                first_seat=first_seat,
            )
        )
    elif isinstance(event, events.CardDrawn):
        drawn = deal_pb2.CardDrawn(seat=event.seat, source=draw_source_to_pb(event.source))
        if event.source is actions.DrawSource.DISCARD:
            assert event.card is not None
            drawn.card = event.card
        elif event.card is not None:
            raise ValueError("a public draw from the stock does not name the card")
        public.drawn.CopyFrom(drawn)
    elif isinstance(event, events.DiscardReturned):
        public.discard_returned.CopyFrom(deal_pb2.DiscardReturned(seat=event.seat, card=event.card))
    elif isinstance(event, events.Played):
        played = deal_pb2.Played(seat=event.seat, opened=event.opened, went_out=event.went_out)
        for op in event.operations:
            message, new_ids = applied_operation_to_pb(op)
            played.operations.append(message)
            played.new_meld_ids.extend(new_ids)
        if event.discard is not None:
            played.discard = event.discard
        public.played.CopyFrom(played)
    elif isinstance(event, events.StockRebuilt):
        public.stock_rebuilt.CopyFrom(
            deal_pb2.StockRebuilt(rebuild_no=event.r, stock_count=event.count)
        )
    elif isinstance(event, events.DealEnded):
        ended = deal_pb2.DealEnded(
            outcome=_OUTCOME[event.outcome], closed_in_one_turn=event.chiusura_in_mano
        )
        if event.closer is not None:
            ended.closer_seat = event.closer
        opened_by_seat = list(opened) or [False] * len(event.seats)
        for seat, hand, penalty, was_open in zip(
            event.seats, event.hands, event.penalties, opened_by_seat, strict=True
        ):
            ended.hands.append(
                deal_pb2.SeatHand(seat=seat, cards=hand, opened=was_open, penalty=penalty)
            )
        if event.void_reason:
            ended.void_reason = event.void_reason
        public.ended.CopyFrom(ended)
    else:
        raise ValueError(f"{type(event).__name__} is not an event of a deal")
    return public


def private_event_to_pb(
    event: events.Event, seat: int, table_id: str, deal_no: int
) -> deal_pb2.PrivateDealEvent | None:
    """What ``seat`` alone learns from an event as it sees it (``views.view_event(e, seat)``)."""
    part = deal_pb2.PrivateDealEvent(table_id=table_id, deal_no=deal_no)
    if isinstance(event, events.DealStarted) and seat in event.seats:
        hand = event.hands[event.seats.index(seat)]
        if hand is None:
            return None
        part.hand_dealt.cards.extend(hand)
        return part
    if (
        isinstance(event, events.CardDrawn)
        and event.seat == seat
        and event.source is actions.DrawSource.STOCK
        and event.card is not None
    ):
        part.stock_card_drawn.card = event.card
        return part
    return None


class DealEventReader:
    """Turns one table's DealEvents back into engine events, as one seat sees them.

    The inverse of ``deal_event_to_pb`` (with ``private_event_to_pb`` for the
    seat's own hand and stock draws): what a seat needs to follow a deal from
    the event stream alone, e.g. a bot's memory (``Bot.observe``). The wire
    names melds by number and a swap by its card only, so the reader keeps the
    table, and the seats and dealer from the deal's announcement.
    """

    def __init__(self, seat: int | None = None) -> None:
        self.seat = seat  # None: a spectator, whom no private event is meant for
        self.seats: tuple[int, ...] = ()
        self.dealer = 0
        self.table: list[melds.Meld] = []

    def read(
        self, message: deal_pb2.DealEvent, private: deal_pb2.PrivateDealEvent | None = None
    ) -> events.Event | None:
        """The engine event of ``message``; None for the fair-deal exchange steps."""
        kind = message.WhichOneof("event")
        mine = private.WhichOneof("event") if private is not None else None
        if kind == "announced":
            self.seats = tuple(message.announced.seats_in_play)
            self.dealer = message.announced.dealer_seat
            return None
        if kind == "started":
            self.table = []
            n = len(self.seats)
            own = None
            if private is not None and mine == "hand_dealt":
                own = tuple(private.hand_dealt.cards)
            hands = tuple(own if s == self.seat else None for s in self.seats)
            start = message.started
            return events.DealStarted(
                message.deal_no,
                self.dealer,
                self.seats,
                start.first_discard,
                hands,
                (rules.HAND_SIZE,) * n,
                start.stock_count,
            )
        if kind == "drawn":
            drawn = message.drawn
            card: int | None = drawn.card if drawn.HasField("card") else None
            if private is not None and mine == "stock_card_drawn":
                card = private.stock_card_drawn.card
            return events.CardDrawn(drawn.seat, draw_source_from_pb(drawn.source), card)
        if kind == "discard_returned":
            back = message.discard_returned
            return events.DiscardReturned(back.seat, back.card)
        if kind == "played":
            played = message.played
            ops = tuple(self._applied(op) for op in played.operations)
            discard = played.discard if played.HasField("discard") else None
            return events.Played(played.seat, ops, discard, played.opened, played.went_out)
        if kind == "stock_rebuilt":
            rebuilt = message.stock_rebuilt
            return events.StockRebuilt(rebuilt.rebuild_no, rebuilt.stock_count)
        if kind == "ended":
            ended = message.ended
            outcome = (
                events.DealOutcome.CLOSED
                if ended.outcome == deal_pb2.DEAL_OUTCOME_WENT_OUT
                else events.DealOutcome.VOID
            )
            return events.DealEnded(
                outcome,
                ended.closer_seat if ended.HasField("closer_seat") else None,
                tuple(h.seat for h in ended.hands),
                tuple(tuple(h.cards) for h in ended.hands),
                tuple(h.penalty for h in ended.hands),
                ended.closed_in_one_turn,
                ended.void_reason or None,
            )
        return None

    def _place(self, index: int | None, pieces: Sequence[melds.Meld]) -> events.Placed:
        """As the engine places melds: the first at ``index`` (None: a new one), the rest last."""
        placed: list[tuple[int, melds.Meld]] = []
        for k, meld in enumerate(pieces):
            if k == 0 and index is not None:
                self.table[index] = meld
                placed.append((index, meld))
            else:
                self.table.append(meld)
                placed.append((len(self.table) - 1, meld))
        return tuple(placed)

    def _applied(self, message: cards_pb2.Operation) -> events.AppliedOperation:
        op = operation_from_pb(message)
        if isinstance(op, actions.SwapJoker):
            before = self.table[op.meld]
            assert before.joker_as is not None
            after, joker = melds.swap_joker(before, op.card)
            self.table[op.meld] = after
            placed = ((op.meld, after),)
            return events.JokerSwapped(op.meld, op.card, joker, before.joker_as, placed)
        if isinstance(op, actions.NewMeld):
            grown = melds.make_meld(op.cards, op.joker_as)
        else:
            grown = melds.attach(self.table[op.meld], op.cards, op.joker_as)
        # The wire gives the run lengths only when the meld was cut (R4.6).
        pieces = melds.split_run(grown, max(op.split), op.split) if op.split else (grown,)
        if isinstance(op, actions.NewMeld):
            return events.MeldLaid(op.cards, op.joker_as, self._place(None, pieces))
        return events.CardsAttached(op.meld, op.cards, op.joker_as, self._place(op.meld, pieces))


# --- Connection ---------------------------------------------------------------------------

# The contract's own version (GetHostInfoResponse.contract_version, docs/PROTOCOL.md
# "Versions"), apart from the package's: one more whenever a client could notice the change.
CONTRACT_VERSION = 6

DEFAULT_PORT = 4040
MAX_REQUEST_BYTES = 64 * 1024
MAX_RESPONSE_BYTES = 4 * 1024 * 1024

# Keepalive, the same on both ends (grpc doc/keepalive.md): every 20 s of silence a
# PING, 10 s for its answer; pings allowed on idle connections so an event stream
# that waits a long time for the next turn survives NAT and LAN idle timeouts.
# No max_connection_age: it would cut long event streams.
KEEPALIVE_TIME_MS = 20_000
KEEPALIVE_TIMEOUT_MS = 10_000

CHANNEL_OPTIONS: tuple[tuple[str, int], ...] = (
    # A host that restarts is back within a second or two: try again soon, and never wait
    # more than a few seconds between tries (gRPC's own default grows to two minutes).
    ("grpc.initial_reconnect_backoff_ms", 250),
    ("grpc.min_reconnect_backoff_ms", 250),
    ("grpc.max_reconnect_backoff_ms", 3000),
    ("grpc.keepalive_time_ms", KEEPALIVE_TIME_MS),
    ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.max_receive_message_length", MAX_RESPONSE_BYTES),
    ("grpc.max_send_message_length", MAX_REQUEST_BYTES),
)

SERVER_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.keepalive_time_ms", KEEPALIVE_TIME_MS),
    ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    # Accept a client's pings as often as its keepalive sends them (half, for clock slack).
    ("grpc.http2.min_recv_ping_interval_without_data_ms", KEEPALIVE_TIME_MS // 2),
    ("grpc.http2.min_ping_interval_without_data_ms", KEEPALIVE_TIME_MS // 2),
    ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
    ("grpc.max_send_message_length", MAX_RESPONSE_BYTES),
)


# --- Views --------------------------------------------------------------------------------


def table_meld_from_pb(message: cards_pb2.TableMeld) -> melds.Meld:
    """The engine meld a TableMeld describes (raises ``RuleViolation`` if it is not one)."""
    joker_as = face_from_pb(message.joker.stands_for) if message.HasField("joker") else None
    return melds.make_meld(tuple(message.cards), joker_as)


def deal_view_from_pb(message: table_pb2.TableView) -> views.DealView | None:
    """A seat's TableView as the engine's DealView, for bots and clients that ask the engine.

    None when no deal is being played (before the match, between deals, during
    the fair-deal exchange). The view is exactly what the host sent: cards the
    seat cannot see stay unknown (only counted).
    """
    if message.phase not in (table_pb2.TURN_PHASE_DRAW, table_pb2.TURN_PHASE_PLAY):
        return None
    summary = message.table
    in_deal = [s for s in message.seats if s.in_deal]
    request = ruleset_pb2.Ruleset(preset=summary.preset, options=summary.ruleset)
    ruleset = ruleset_from_pb(request, len(in_deal))
    table = tuple(table_meld_from_pb(m) for m in message.melds)
    phase = deal.Phase.DRAW if message.phase == table_pb2.TURN_PHASE_DRAW else deal.Phase.PLAY
    drawn = None
    if phase is deal.Phase.PLAY and message.drawn_from != deal_pb2.DRAW_SOURCE_UNSPECIFIED:
        drawn = draw_source_from_pb(message.drawn_from)
    return views.DealView(
        viewer=message.my_seat if message.HasField("my_seat") else None,
        ruleset=ruleset,
        deal_no=message.deal_no,
        seats=tuple(s.info.seat for s in in_deal),
        dealer=message.dealer_seat,
        phase=phase,
        turn=message.turn_seat,
        hand=tuple(message.my_hand) if message.HasField("my_seat") else None,
        hand_counts=tuple(s.hand_count for s in in_deal),
        opened=tuple(s.opened for s in in_deal),
        turns_played=tuple(s.turns_played for s in in_deal),
        table=table,
        owners=tuple(m.laid_by_seat for m in message.melds),
        discard_pile=tuple(message.discard_pile),
        stock_count=message.stock_count,
        drawn=drawn,
        taken_discard=message.taken_discard if message.HasField("taken_discard") else None,
        rebuilds=message.rebuilds,
        result=None,
        agreed_discard=message.agreed_discard if message.HasField("agreed_discard") else None,
        discard_barred=_put_back_this_turn(message.deal_events),
    )


def _put_back_this_turn(deal_events: Sequence[bytes]) -> bool:
    """R3.2: whether the seat to move put the taken discard back this turn (the view has no
    field for it; the deal's events since the last play say it)."""
    for raw in reversed(deal_events):
        kind = deal_pb2.DealEvent.FromString(raw).WhichOneof("event")
        if kind == "discard_returned":
            return True
        if kind in ("played", "started", "stock_rebuilt"):
            return False
    return False
