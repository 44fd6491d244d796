from google.rpc import status_pb2 as _status_pb2
from scala40_net.pb import cards_pb2 as _cards_pb2
from scala40_net.pb import deal_pb2 as _deal_pb2
from scala40_net.pb import lobby_pb2 as _lobby_pb2
from scala40_net.pb import ruleset_pb2 as _ruleset_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TurnPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TURN_PHASE_UNSPECIFIED: _ClassVar[TurnPhase]
    TURN_PHASE_COMMIT: _ClassVar[TurnPhase]
    TURN_PHASE_REVEAL: _ClassVar[TurnPhase]
    TURN_PHASE_DRAW: _ClassVar[TurnPhase]
    TURN_PHASE_PLAY: _ClassVar[TurnPhase]
    TURN_PHASE_PRIVATE_DEAL: _ClassVar[TurnPhase]
    TURN_PHASE_PRIVATE_REVEAL: _ClassVar[TurnPhase]

class AbsenceChoice(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ABSENCE_CHOICE_UNSPECIFIED: _ClassVar[AbsenceChoice]
    ABSENCE_CHOICE_HAND_TO_BOT: _ClassVar[AbsenceChoice]
    ABSENCE_CHOICE_MORE_TIME: _ClassVar[AbsenceChoice]
    ABSENCE_CHOICE_FREE_SEAT: _ClassVar[AbsenceChoice]
TURN_PHASE_UNSPECIFIED: TurnPhase
TURN_PHASE_COMMIT: TurnPhase
TURN_PHASE_REVEAL: TurnPhase
TURN_PHASE_DRAW: TurnPhase
TURN_PHASE_PLAY: TurnPhase
TURN_PHASE_PRIVATE_DEAL: TurnPhase
TURN_PHASE_PRIVATE_REVEAL: TurnPhase
ABSENCE_CHOICE_UNSPECIFIED: AbsenceChoice
ABSENCE_CHOICE_HAND_TO_BOT: AbsenceChoice
ABSENCE_CHOICE_MORE_TIME: AbsenceChoice
ABSENCE_CHOICE_FREE_SEAT: AbsenceChoice

class MoveContext(_message.Message):
    __slots__ = ("request_id", "last_seen_seq")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_SEQ_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    last_seen_seq: int
    def __init__(self, request_id: _Optional[str] = ..., last_seen_seq: _Optional[int] = ...) -> None: ...

class SubscribeEventsRequest(_message.Message):
    __slots__ = ("after_seq",)
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    after_seq: int
    def __init__(self, after_seq: _Optional[int] = ...) -> None: ...

class SubscribeEventsResponse(_message.Message):
    __slots__ = ("event",)
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: TableEvent
    def __init__(self, event: _Optional[_Union[TableEvent, _Mapping]] = ...) -> None: ...

class TableEvent(_message.Message):
    __slots__ = ("seq", "snapshot", "deal", "seat_changed", "chat", "match_update", "deal_signed", "match_started", "rematch", "private_message", "private_reveal_due")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    SEAT_CHANGED_FIELD_NUMBER: _ClassVar[int]
    CHAT_FIELD_NUMBER: _ClassVar[int]
    MATCH_UPDATE_FIELD_NUMBER: _ClassVar[int]
    DEAL_SIGNED_FIELD_NUMBER: _ClassVar[int]
    MATCH_STARTED_FIELD_NUMBER: _ClassVar[int]
    REMATCH_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_REVEAL_DUE_FIELD_NUMBER: _ClassVar[int]
    seq: int
    snapshot: TableView
    deal: DealEventEnvelope
    seat_changed: _lobby_pb2.SeatInfo
    chat: ChatMessage
    match_update: MatchUpdate
    deal_signed: DealSigned
    match_started: MatchStarted
    rematch: RematchUpdate
    private_message: PrivateMessage
    private_reveal_due: PrivateRevealDue
    def __init__(self, seq: _Optional[int] = ..., snapshot: _Optional[_Union[TableView, _Mapping]] = ..., deal: _Optional[_Union[DealEventEnvelope, _Mapping]] = ..., seat_changed: _Optional[_Union[_lobby_pb2.SeatInfo, _Mapping]] = ..., chat: _Optional[_Union[ChatMessage, _Mapping]] = ..., match_update: _Optional[_Union[MatchUpdate, _Mapping]] = ..., deal_signed: _Optional[_Union[DealSigned, _Mapping]] = ..., match_started: _Optional[_Union[MatchStarted, _Mapping]] = ..., rematch: _Optional[_Union[RematchUpdate, _Mapping]] = ..., private_message: _Optional[_Union[PrivateMessage, _Mapping]] = ..., private_reveal_due: _Optional[_Union[PrivateRevealDue, _Mapping]] = ...) -> None: ...

class PrivateRevealDue(_message.Message):
    __slots__ = ("deal_no",)
    DEAL_NO_FIELD_NUMBER: _ClassVar[int]
    deal_no: int
    def __init__(self, deal_no: _Optional[int] = ...) -> None: ...

class PrivateMessage(_message.Message):
    __slots__ = ("envelope", "seq", "deal_no")
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    DEAL_NO_FIELD_NUMBER: _ClassVar[int]
    envelope: bytes
    seq: int
    deal_no: int
    def __init__(self, envelope: _Optional[bytes] = ..., seq: _Optional[int] = ..., deal_no: _Optional[int] = ...) -> None: ...

class SendPrivateRequest(_message.Message):
    __slots__ = ("context", "envelope")
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    context: MoveContext
    envelope: bytes
    def __init__(self, context: _Optional[_Union[MoveContext, _Mapping]] = ..., envelope: _Optional[bytes] = ...) -> None: ...

class SendPrivateResponse(_message.Message):
    __slots__ = ("transcript_seq",)
    TRANSCRIPT_SEQ_FIELD_NUMBER: _ClassVar[int]
    transcript_seq: int
    def __init__(self, transcript_seq: _Optional[int] = ...) -> None: ...

class HandToStandInRequest(_message.Message):
    __slots__ = ("context", "signing_key", "deal_no", "deal_key")
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    SIGNING_KEY_FIELD_NUMBER: _ClassVar[int]
    DEAL_NO_FIELD_NUMBER: _ClassVar[int]
    DEAL_KEY_FIELD_NUMBER: _ClassVar[int]
    context: MoveContext
    signing_key: bytes
    deal_no: int
    deal_key: bytes
    def __init__(self, context: _Optional[_Union[MoveContext, _Mapping]] = ..., signing_key: _Optional[bytes] = ..., deal_no: _Optional[int] = ..., deal_key: _Optional[bytes] = ...) -> None: ...

class HandToStandInResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DealEventEnvelope(_message.Message):
    __slots__ = ("public_event", "private_event", "turn_time_ms", "by_host")
    PUBLIC_EVENT_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_EVENT_FIELD_NUMBER: _ClassVar[int]
    TURN_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    BY_HOST_FIELD_NUMBER: _ClassVar[int]
    public_event: bytes
    private_event: _deal_pb2.PrivateDealEvent
    turn_time_ms: int
    by_host: bool
    def __init__(self, public_event: _Optional[bytes] = ..., private_event: _Optional[_Union[_deal_pb2.PrivateDealEvent, _Mapping]] = ..., turn_time_ms: _Optional[int] = ..., by_host: _Optional[bool] = ...) -> None: ...

class ChatMessage(_message.Message):
    __slots__ = ("seat", "name", "text")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    text: str
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class MatchStarted(_message.Message):
    __slots__ = ("first_dealer_seat", "seats", "ruleset")
    FIRST_DEALER_SEAT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    first_dealer_seat: int
    seats: _containers.RepeatedScalarFieldContainer[int]
    ruleset: _ruleset_pb2.RulesetOptions
    def __init__(self, first_dealer_seat: _Optional[int] = ..., seats: _Optional[_Iterable[int]] = ..., ruleset: _Optional[_Union[_ruleset_pb2.RulesetOptions, _Mapping]] = ...) -> None: ...

class RematchUpdate(_message.Message):
    __slots__ = ("agreed_seats", "waiting_for_seats", "ruleset")
    AGREED_SEATS_FIELD_NUMBER: _ClassVar[int]
    WAITING_FOR_SEATS_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    agreed_seats: _containers.RepeatedScalarFieldContainer[int]
    waiting_for_seats: _containers.RepeatedScalarFieldContainer[int]
    ruleset: _ruleset_pb2.RulesetOptions
    def __init__(self, agreed_seats: _Optional[_Iterable[int]] = ..., waiting_for_seats: _Optional[_Iterable[int]] = ..., ruleset: _Optional[_Union[_ruleset_pb2.RulesetOptions, _Mapping]] = ...) -> None: ...

class SeatScore(_message.Message):
    __slots__ = ("seat", "total", "out", "rientri", "chips", "gone")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    RIENTRI_FIELD_NUMBER: _ClassVar[int]
    CHIPS_FIELD_NUMBER: _ClassVar[int]
    GONE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    total: int
    out: bool
    rientri: int
    chips: int
    gone: bool
    def __init__(self, seat: _Optional[int] = ..., total: _Optional[int] = ..., out: _Optional[bool] = ..., rientri: _Optional[int] = ..., chips: _Optional[int] = ..., gone: _Optional[bool] = ...) -> None: ...

class MatchUpdate(_message.Message):
    __slots__ = ("scores", "match_over", "winners", "rientro_offers", "between_deals")
    SCORES_FIELD_NUMBER: _ClassVar[int]
    MATCH_OVER_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    RIENTRO_OFFERS_FIELD_NUMBER: _ClassVar[int]
    BETWEEN_DEALS_FIELD_NUMBER: _ClassVar[int]
    scores: _containers.RepeatedCompositeFieldContainer[SeatScore]
    match_over: bool
    winners: _containers.RepeatedScalarFieldContainer[int]
    rientro_offers: _containers.RepeatedCompositeFieldContainer[RientroOffer]
    between_deals: BetweenDeals
    def __init__(self, scores: _Optional[_Iterable[_Union[SeatScore, _Mapping]]] = ..., match_over: _Optional[bool] = ..., winners: _Optional[_Iterable[int]] = ..., rientro_offers: _Optional[_Iterable[_Union[RientroOffer, _Mapping]]] = ..., between_deals: _Optional[_Union[BetweenDeals, _Mapping]] = ...) -> None: ...

class BetweenDeals(_message.Message):
    __slots__ = ("next_deal_within_ms", "waiting_for_seats", "ready_seats")
    NEXT_DEAL_WITHIN_MS_FIELD_NUMBER: _ClassVar[int]
    WAITING_FOR_SEATS_FIELD_NUMBER: _ClassVar[int]
    READY_SEATS_FIELD_NUMBER: _ClassVar[int]
    next_deal_within_ms: int
    waiting_for_seats: _containers.RepeatedScalarFieldContainer[int]
    ready_seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, next_deal_within_ms: _Optional[int] = ..., waiting_for_seats: _Optional[_Iterable[int]] = ..., ready_seats: _Optional[_Iterable[int]] = ...) -> None: ...

class RientroOffer(_message.Message):
    __slots__ = ("seat", "fee", "answer_within_ms")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    FEE_FIELD_NUMBER: _ClassVar[int]
    ANSWER_WITHIN_MS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    fee: int
    answer_within_ms: int
    def __init__(self, seat: _Optional[int] = ..., fee: _Optional[int] = ..., answer_within_ms: _Optional[int] = ...) -> None: ...

class DealSigned(_message.Message):
    __slots__ = ("deal_no", "chain_head", "signature")
    DEAL_NO_FIELD_NUMBER: _ClassVar[int]
    CHAIN_HEAD_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    deal_no: int
    chain_head: bytes
    signature: bytes
    def __init__(self, deal_no: _Optional[int] = ..., chain_head: _Optional[bytes] = ..., signature: _Optional[bytes] = ...) -> None: ...

class SeatView(_message.Message):
    __slots__ = ("info", "hand_count", "opened", "score", "in_deal", "turns_played")
    INFO_FIELD_NUMBER: _ClassVar[int]
    HAND_COUNT_FIELD_NUMBER: _ClassVar[int]
    OPENED_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    IN_DEAL_FIELD_NUMBER: _ClassVar[int]
    TURNS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    info: _lobby_pb2.SeatInfo
    hand_count: int
    opened: bool
    score: SeatScore
    in_deal: bool
    turns_played: int
    def __init__(self, info: _Optional[_Union[_lobby_pb2.SeatInfo, _Mapping]] = ..., hand_count: _Optional[int] = ..., opened: _Optional[bool] = ..., score: _Optional[_Union[SeatScore, _Mapping]] = ..., in_deal: _Optional[bool] = ..., turns_played: _Optional[int] = ...) -> None: ...

class TableView(_message.Message):
    __slots__ = ("table", "my_seat", "my_hand", "seats", "melds", "discard_top", "discard_count", "stock_count", "deal_no", "dealer_seat", "turn_seat", "phase", "taken_discard", "deal_events", "my_private_events", "discard_pile", "rebuilds", "drawn_from", "rientro_offers", "agreed_discard", "turn_time_left_ms", "between_deals", "my_private_with_event", "private_transcript", "my_positions")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    MY_SEAT_FIELD_NUMBER: _ClassVar[int]
    MY_HAND_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    MELDS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_TOP_FIELD_NUMBER: _ClassVar[int]
    DISCARD_COUNT_FIELD_NUMBER: _ClassVar[int]
    STOCK_COUNT_FIELD_NUMBER: _ClassVar[int]
    DEAL_NO_FIELD_NUMBER: _ClassVar[int]
    DEALER_SEAT_FIELD_NUMBER: _ClassVar[int]
    TURN_SEAT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TAKEN_DISCARD_FIELD_NUMBER: _ClassVar[int]
    DEAL_EVENTS_FIELD_NUMBER: _ClassVar[int]
    MY_PRIVATE_EVENTS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PILE_FIELD_NUMBER: _ClassVar[int]
    REBUILDS_FIELD_NUMBER: _ClassVar[int]
    DRAWN_FROM_FIELD_NUMBER: _ClassVar[int]
    RIENTRO_OFFERS_FIELD_NUMBER: _ClassVar[int]
    AGREED_DISCARD_FIELD_NUMBER: _ClassVar[int]
    TURN_TIME_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    BETWEEN_DEALS_FIELD_NUMBER: _ClassVar[int]
    MY_PRIVATE_WITH_EVENT_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_TRANSCRIPT_FIELD_NUMBER: _ClassVar[int]
    MY_POSITIONS_FIELD_NUMBER: _ClassVar[int]
    table: _lobby_pb2.TableSummary
    my_seat: int
    my_hand: _containers.RepeatedScalarFieldContainer[int]
    seats: _containers.RepeatedCompositeFieldContainer[SeatView]
    melds: _containers.RepeatedCompositeFieldContainer[_cards_pb2.TableMeld]
    discard_top: int
    discard_count: int
    stock_count: int
    deal_no: int
    dealer_seat: int
    turn_seat: int
    phase: TurnPhase
    taken_discard: int
    deal_events: _containers.RepeatedScalarFieldContainer[bytes]
    my_private_events: _containers.RepeatedCompositeFieldContainer[_deal_pb2.PrivateDealEvent]
    discard_pile: _containers.RepeatedScalarFieldContainer[int]
    rebuilds: int
    drawn_from: _deal_pb2.DrawSource
    rientro_offers: _containers.RepeatedCompositeFieldContainer[RientroOffer]
    agreed_discard: int
    turn_time_left_ms: int
    between_deals: BetweenDeals
    my_private_with_event: _containers.RepeatedScalarFieldContainer[int]
    private_transcript: _containers.RepeatedScalarFieldContainer[bytes]
    my_positions: _containers.RepeatedCompositeFieldContainer[_deal_pb2.PrivatePosition]
    def __init__(self, table: _Optional[_Union[_lobby_pb2.TableSummary, _Mapping]] = ..., my_seat: _Optional[int] = ..., my_hand: _Optional[_Iterable[int]] = ..., seats: _Optional[_Iterable[_Union[SeatView, _Mapping]]] = ..., melds: _Optional[_Iterable[_Union[_cards_pb2.TableMeld, _Mapping]]] = ..., discard_top: _Optional[int] = ..., discard_count: _Optional[int] = ..., stock_count: _Optional[int] = ..., deal_no: _Optional[int] = ..., dealer_seat: _Optional[int] = ..., turn_seat: _Optional[int] = ..., phase: _Optional[_Union[TurnPhase, str]] = ..., taken_discard: _Optional[int] = ..., deal_events: _Optional[_Iterable[bytes]] = ..., my_private_events: _Optional[_Iterable[_Union[_deal_pb2.PrivateDealEvent, _Mapping]]] = ..., discard_pile: _Optional[_Iterable[int]] = ..., rebuilds: _Optional[int] = ..., drawn_from: _Optional[_Union[_deal_pb2.DrawSource, str]] = ..., rientro_offers: _Optional[_Iterable[_Union[RientroOffer, _Mapping]]] = ..., agreed_discard: _Optional[int] = ..., turn_time_left_ms: _Optional[int] = ..., between_deals: _Optional[_Union[BetweenDeals, _Mapping]] = ..., my_private_with_event: _Optional[_Iterable[int]] = ..., private_transcript: _Optional[_Iterable[bytes]] = ..., my_positions: _Optional[_Iterable[_Union[_deal_pb2.PrivatePosition, _Mapping]]] = ...) -> None: ...

class GetViewRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetViewResponse(_message.Message):
    __slots__ = ("view", "seq")
    VIEW_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    view: TableView
    seq: int
    def __init__(self, view: _Optional[_Union[TableView, _Mapping]] = ..., seq: _Optional[int] = ...) -> None: ...

class DrawRequest(_message.Message):
    __slots__ = ("context", "source")
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    context: MoveContext
    source: _deal_pb2.DrawSource
    def __init__(self, context: _Optional[_Union[MoveContext, _Mapping]] = ..., source: _Optional[_Union[_deal_pb2.DrawSource, str]] = ...) -> None: ...

class DrawResponse(_message.Message):
    __slots__ = ("card", "seq", "position")
    CARD_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    card: int
    seq: int
    position: _deal_pb2.PrivatePosition
    def __init__(self, card: _Optional[int] = ..., seq: _Optional[int] = ..., position: _Optional[_Union[_deal_pb2.PrivatePosition, _Mapping]] = ...) -> None: ...

class PlayRequest(_message.Message):
    __slots__ = ("context", "operations", "discard", "positions", "shares")
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    OPERATIONS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    POSITIONS_FIELD_NUMBER: _ClassVar[int]
    SHARES_FIELD_NUMBER: _ClassVar[int]
    context: MoveContext
    operations: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Operation]
    discard: int
    positions: _containers.RepeatedCompositeFieldContainer[_deal_pb2.PrivatePosition]
    shares: bytes
    def __init__(self, context: _Optional[_Union[MoveContext, _Mapping]] = ..., operations: _Optional[_Iterable[_Union[_cards_pb2.Operation, _Mapping]]] = ..., discard: _Optional[int] = ..., positions: _Optional[_Iterable[_Union[_deal_pb2.PrivatePosition, _Mapping]]] = ..., shares: _Optional[bytes] = ...) -> None: ...

class PlayResponse(_message.Message):
    __slots__ = ("seq",)
    SEQ_FIELD_NUMBER: _ClassVar[int]
    seq: int
    def __init__(self, seq: _Optional[int] = ...) -> None: ...

class ReturnDiscardRequest(_message.Message):
    __slots__ = ("context",)
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    context: MoveContext
    def __init__(self, context: _Optional[_Union[MoveContext, _Mapping]] = ...) -> None: ...

class ReturnDiscardResponse(_message.Message):
    __slots__ = ("seq",)
    SEQ_FIELD_NUMBER: _ClassVar[int]
    seq: int
    def __init__(self, seq: _Optional[int] = ...) -> None: ...

class CommitSeedRequest(_message.Message):
    __slots__ = ("context", "deal_no", "commitment")
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    DEAL_NO_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    context: MoveContext
    deal_no: int
    commitment: bytes
    def __init__(self, context: _Optional[_Union[MoveContext, _Mapping]] = ..., deal_no: _Optional[int] = ..., commitment: _Optional[bytes] = ...) -> None: ...

class CommitSeedResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RevealSeedRequest(_message.Message):
    __slots__ = ("context", "deal_no", "seed", "cut")
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    DEAL_NO_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    CUT_FIELD_NUMBER: _ClassVar[int]
    context: MoveContext
    deal_no: int
    seed: bytes
    cut: int
    def __init__(self, context: _Optional[_Union[MoveContext, _Mapping]] = ..., deal_no: _Optional[int] = ..., seed: _Optional[bytes] = ..., cut: _Optional[int] = ...) -> None: ...

class RevealSeedResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AnswerRientroRequest(_message.Message):
    __slots__ = ("context", "buy_back")
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    BUY_BACK_FIELD_NUMBER: _ClassVar[int]
    context: MoveContext
    buy_back: bool
    def __init__(self, context: _Optional[_Union[MoveContext, _Mapping]] = ..., buy_back: _Optional[bool] = ...) -> None: ...

class AnswerRientroResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SendChatRequest(_message.Message):
    __slots__ = ("text", "context")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    context: MoveContext
    def __init__(self, text: _Optional[str] = ..., context: _Optional[_Union[MoveContext, _Mapping]] = ...) -> None: ...

class SendChatResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetDealRecordRequest(_message.Message):
    __slots__ = ("deal_no",)
    DEAL_NO_FIELD_NUMBER: _ClassVar[int]
    deal_no: int
    def __init__(self, deal_no: _Optional[int] = ...) -> None: ...

class GetDealRecordResponse(_message.Message):
    __slots__ = ("record",)
    RECORD_FIELD_NUMBER: _ClassVar[int]
    record: bytes
    def __init__(self, record: _Optional[bytes] = ...) -> None: ...

class DecideAbsenceRequest(_message.Message):
    __slots__ = ("context", "seat", "choice")
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    context: MoveContext
    seat: int
    choice: AbsenceChoice
    def __init__(self, context: _Optional[_Union[MoveContext, _Mapping]] = ..., seat: _Optional[int] = ..., choice: _Optional[_Union[AbsenceChoice, str]] = ...) -> None: ...

class DecideAbsenceResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ReadyRequest(_message.Message):
    __slots__ = ("context",)
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    context: MoveContext
    def __init__(self, context: _Optional[_Union[MoveContext, _Mapping]] = ...) -> None: ...

class ReadyResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RematchRequest(_message.Message):
    __slots__ = ("context", "rules")
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    context: MoveContext
    rules: _ruleset_pb2.Ruleset
    def __init__(self, context: _Optional[_Union[MoveContext, _Mapping]] = ..., rules: _Optional[_Union[_ruleset_pb2.Ruleset, _Mapping]] = ...) -> None: ...

class RematchResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SeatRequest(_message.Message):
    __slots__ = ("subscribe", "draw", "play", "return_discard", "commit_seed", "reveal_seed", "answer_rientro", "send_chat", "decide_absence", "ready", "rematch", "send_private")
    SUBSCRIBE_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    RETURN_DISCARD_FIELD_NUMBER: _ClassVar[int]
    COMMIT_SEED_FIELD_NUMBER: _ClassVar[int]
    REVEAL_SEED_FIELD_NUMBER: _ClassVar[int]
    ANSWER_RIENTRO_FIELD_NUMBER: _ClassVar[int]
    SEND_CHAT_FIELD_NUMBER: _ClassVar[int]
    DECIDE_ABSENCE_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    REMATCH_FIELD_NUMBER: _ClassVar[int]
    SEND_PRIVATE_FIELD_NUMBER: _ClassVar[int]
    subscribe: SubscribeEventsRequest
    draw: DrawRequest
    play: PlayRequest
    return_discard: ReturnDiscardRequest
    commit_seed: CommitSeedRequest
    reveal_seed: RevealSeedRequest
    answer_rientro: AnswerRientroRequest
    send_chat: SendChatRequest
    decide_absence: DecideAbsenceRequest
    ready: ReadyRequest
    rematch: RematchRequest
    send_private: SendPrivateRequest
    def __init__(self, subscribe: _Optional[_Union[SubscribeEventsRequest, _Mapping]] = ..., draw: _Optional[_Union[DrawRequest, _Mapping]] = ..., play: _Optional[_Union[PlayRequest, _Mapping]] = ..., return_discard: _Optional[_Union[ReturnDiscardRequest, _Mapping]] = ..., commit_seed: _Optional[_Union[CommitSeedRequest, _Mapping]] = ..., reveal_seed: _Optional[_Union[RevealSeedRequest, _Mapping]] = ..., answer_rientro: _Optional[_Union[AnswerRientroRequest, _Mapping]] = ..., send_chat: _Optional[_Union[SendChatRequest, _Mapping]] = ..., decide_absence: _Optional[_Union[DecideAbsenceRequest, _Mapping]] = ..., ready: _Optional[_Union[ReadyRequest, _Mapping]] = ..., rematch: _Optional[_Union[RematchRequest, _Mapping]] = ..., send_private: _Optional[_Union[SendPrivateRequest, _Mapping]] = ...) -> None: ...

class SeatResponse(_message.Message):
    __slots__ = ("event", "answer")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    event: TableEvent
    answer: SeatAnswer
    def __init__(self, event: _Optional[_Union[TableEvent, _Mapping]] = ..., answer: _Optional[_Union[SeatAnswer, _Mapping]] = ...) -> None: ...

class SeatAnswer(_message.Message):
    __slots__ = ("request_id", "draw", "play", "return_discard", "commit_seed", "reveal_seed", "answer_rientro", "send_chat", "decide_absence", "ready", "rematch", "send_private", "refused")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    RETURN_DISCARD_FIELD_NUMBER: _ClassVar[int]
    COMMIT_SEED_FIELD_NUMBER: _ClassVar[int]
    REVEAL_SEED_FIELD_NUMBER: _ClassVar[int]
    ANSWER_RIENTRO_FIELD_NUMBER: _ClassVar[int]
    SEND_CHAT_FIELD_NUMBER: _ClassVar[int]
    DECIDE_ABSENCE_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    REMATCH_FIELD_NUMBER: _ClassVar[int]
    SEND_PRIVATE_FIELD_NUMBER: _ClassVar[int]
    REFUSED_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    draw: DrawResponse
    play: PlayResponse
    return_discard: ReturnDiscardResponse
    commit_seed: CommitSeedResponse
    reveal_seed: RevealSeedResponse
    answer_rientro: AnswerRientroResponse
    send_chat: SendChatResponse
    decide_absence: DecideAbsenceResponse
    ready: ReadyResponse
    rematch: RematchResponse
    send_private: SendPrivateResponse
    refused: _status_pb2.Status
    def __init__(self, request_id: _Optional[str] = ..., draw: _Optional[_Union[DrawResponse, _Mapping]] = ..., play: _Optional[_Union[PlayResponse, _Mapping]] = ..., return_discard: _Optional[_Union[ReturnDiscardResponse, _Mapping]] = ..., commit_seed: _Optional[_Union[CommitSeedResponse, _Mapping]] = ..., reveal_seed: _Optional[_Union[RevealSeedResponse, _Mapping]] = ..., answer_rientro: _Optional[_Union[AnswerRientroResponse, _Mapping]] = ..., send_chat: _Optional[_Union[SendChatResponse, _Mapping]] = ..., decide_absence: _Optional[_Union[DecideAbsenceResponse, _Mapping]] = ..., ready: _Optional[_Union[ReadyResponse, _Mapping]] = ..., rematch: _Optional[_Union[RematchResponse, _Mapping]] = ..., send_private: _Optional[_Union[SendPrivateResponse, _Mapping]] = ..., refused: _Optional[_Union[_status_pb2.Status, _Mapping]] = ...) -> None: ...
