from scala40_net.pb import cards_pb2 as _cards_pb2
from scala40_net.pb import ruleset_pb2 as _ruleset_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DrawSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DRAW_SOURCE_UNSPECIFIED: _ClassVar[DrawSource]
    DRAW_SOURCE_STOCK: _ClassVar[DrawSource]
    DRAW_SOURCE_DISCARD: _ClassVar[DrawSource]

class LeftOutReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LEFT_OUT_REASON_UNSPECIFIED: _ClassVar[LeftOutReason]
    LEFT_OUT_REASON_NO_COMMITMENT: _ClassVar[LeftOutReason]
    LEFT_OUT_REASON_NO_REVEAL: _ClassVar[LeftOutReason]
    LEFT_OUT_REASON_BAD_REVEAL: _ClassVar[LeftOutReason]

class DealOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DEAL_OUTCOME_UNSPECIFIED: _ClassVar[DealOutcome]
    DEAL_OUTCOME_WENT_OUT: _ClassVar[DealOutcome]
    DEAL_OUTCOME_VOID: _ClassVar[DealOutcome]
    DEAL_OUTCOME_ABANDONED: _ClassVar[DealOutcome]
DRAW_SOURCE_UNSPECIFIED: DrawSource
DRAW_SOURCE_STOCK: DrawSource
DRAW_SOURCE_DISCARD: DrawSource
LEFT_OUT_REASON_UNSPECIFIED: LeftOutReason
LEFT_OUT_REASON_NO_COMMITMENT: LeftOutReason
LEFT_OUT_REASON_NO_REVEAL: LeftOutReason
LEFT_OUT_REASON_BAD_REVEAL: LeftOutReason
DEAL_OUTCOME_UNSPECIFIED: DealOutcome
DEAL_OUTCOME_WENT_OUT: DealOutcome
DEAL_OUTCOME_VOID: DealOutcome
DEAL_OUTCOME_ABANDONED: DealOutcome

class DealEvent(_message.Message):
    __slots__ = ("table_id", "deal_no", "announced", "commitments", "reveals", "started", "drawn", "played", "stock_rebuilt", "ended", "host_seed_revealed", "discard_returned")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    DEAL_NO_FIELD_NUMBER: _ClassVar[int]
    ANNOUNCED_FIELD_NUMBER: _ClassVar[int]
    COMMITMENTS_FIELD_NUMBER: _ClassVar[int]
    REVEALS_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    DRAWN_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    STOCK_REBUILT_FIELD_NUMBER: _ClassVar[int]
    ENDED_FIELD_NUMBER: _ClassVar[int]
    HOST_SEED_REVEALED_FIELD_NUMBER: _ClassVar[int]
    DISCARD_RETURNED_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    deal_no: int
    announced: DealAnnounced
    commitments: CommitmentsPublished
    reveals: SeedsRevealed
    started: DealStarted
    drawn: CardDrawn
    played: Played
    stock_rebuilt: StockRebuilt
    ended: DealEnded
    host_seed_revealed: HostSeedRevealed
    discard_returned: DiscardReturned
    def __init__(self, table_id: _Optional[str] = ..., deal_no: _Optional[int] = ..., announced: _Optional[_Union[DealAnnounced, _Mapping]] = ..., commitments: _Optional[_Union[CommitmentsPublished, _Mapping]] = ..., reveals: _Optional[_Union[SeedsRevealed, _Mapping]] = ..., started: _Optional[_Union[DealStarted, _Mapping]] = ..., drawn: _Optional[_Union[CardDrawn, _Mapping]] = ..., played: _Optional[_Union[Played, _Mapping]] = ..., stock_rebuilt: _Optional[_Union[StockRebuilt, _Mapping]] = ..., ended: _Optional[_Union[DealEnded, _Mapping]] = ..., host_seed_revealed: _Optional[_Union[HostSeedRevealed, _Mapping]] = ..., discard_returned: _Optional[_Union[DiscardReturned, _Mapping]] = ...) -> None: ...

class DealAnnounced(_message.Message):
    __slots__ = ("dealer_seat", "cutter_seat", "seats_in_play", "deck_size", "host_commitment", "ruleset", "private_setup")
    DEALER_SEAT_FIELD_NUMBER: _ClassVar[int]
    CUTTER_SEAT_FIELD_NUMBER: _ClassVar[int]
    SEATS_IN_PLAY_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    HOST_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_SETUP_FIELD_NUMBER: _ClassVar[int]
    dealer_seat: int
    cutter_seat: int
    seats_in_play: _containers.RepeatedScalarFieldContainer[int]
    deck_size: int
    host_commitment: bytes
    ruleset: _ruleset_pb2.Ruleset
    private_setup: PrivateDealSetup
    def __init__(self, dealer_seat: _Optional[int] = ..., cutter_seat: _Optional[int] = ..., seats_in_play: _Optional[_Iterable[int]] = ..., deck_size: _Optional[int] = ..., host_commitment: _Optional[bytes] = ..., ruleset: _Optional[_Union[_ruleset_pb2.Ruleset, _Mapping]] = ..., private_setup: _Optional[_Union[PrivateDealSetup, _Mapping]] = ...) -> None: ...

class PrivateDealSetup(_message.Message):
    __slots__ = ("signing_keys",)
    SIGNING_KEYS_FIELD_NUMBER: _ClassVar[int]
    signing_keys: _containers.RepeatedCompositeFieldContainer[PrivateSigningKey]
    def __init__(self, signing_keys: _Optional[_Iterable[_Union[PrivateSigningKey, _Mapping]]] = ...) -> None: ...

class PrivateSigningKey(_message.Message):
    __slots__ = ("seat", "key")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    seat: int
    key: bytes
    def __init__(self, seat: _Optional[int] = ..., key: _Optional[bytes] = ...) -> None: ...

class PrivatePosition(_message.Message):
    __slots__ = ("round", "position")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    round: int
    position: int
    def __init__(self, round: _Optional[int] = ..., position: _Optional[int] = ...) -> None: ...

class SeatCommitment(_message.Message):
    __slots__ = ("seat", "commitment", "host_played")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    HOST_PLAYED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    commitment: bytes
    host_played: bool
    def __init__(self, seat: _Optional[int] = ..., commitment: _Optional[bytes] = ..., host_played: _Optional[bool] = ...) -> None: ...

class CommitmentsPublished(_message.Message):
    __slots__ = ("commitments", "host_commitment")
    COMMITMENTS_FIELD_NUMBER: _ClassVar[int]
    HOST_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    commitments: _containers.RepeatedCompositeFieldContainer[SeatCommitment]
    host_commitment: bytes
    def __init__(self, commitments: _Optional[_Iterable[_Union[SeatCommitment, _Mapping]]] = ..., host_commitment: _Optional[bytes] = ...) -> None: ...

class SeatReveal(_message.Message):
    __slots__ = ("seat", "seed", "cut")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    CUT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    seed: bytes
    cut: int
    def __init__(self, seat: _Optional[int] = ..., seed: _Optional[bytes] = ..., cut: _Optional[int] = ...) -> None: ...

class LeftOutSeat(_message.Message):
    __slots__ = ("seat", "reason")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    reason: LeftOutReason
    def __init__(self, seat: _Optional[int] = ..., reason: _Optional[_Union[LeftOutReason, str]] = ...) -> None: ...

class SeedsRevealed(_message.Message):
    __slots__ = ("reveals", "left_out")
    REVEALS_FIELD_NUMBER: _ClassVar[int]
    LEFT_OUT_FIELD_NUMBER: _ClassVar[int]
    reveals: _containers.RepeatedCompositeFieldContainer[SeatReveal]
    left_out: _containers.RepeatedCompositeFieldContainer[LeftOutSeat]
    def __init__(self, reveals: _Optional[_Iterable[_Union[SeatReveal, _Mapping]]] = ..., left_out: _Optional[_Iterable[_Union[LeftOutSeat, _Mapping]]] = ...) -> None: ...

class DealStarted(_message.Message):
    __slots__ = ("first_discard", "stock_count", "first_seat")
    FIRST_DISCARD_FIELD_NUMBER: _ClassVar[int]
    STOCK_COUNT_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEAT_FIELD_NUMBER: _ClassVar[int]
    first_discard: int
    stock_count: int
    first_seat: int
    def __init__(self, first_discard: _Optional[int] = ..., stock_count: _Optional[int] = ..., first_seat: _Optional[int] = ...) -> None: ...

class CardDrawn(_message.Message):
    __slots__ = ("seat", "source", "card", "position")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    source: DrawSource
    card: int
    position: PrivatePosition
    def __init__(self, seat: _Optional[int] = ..., source: _Optional[_Union[DrawSource, str]] = ..., card: _Optional[int] = ..., position: _Optional[_Union[PrivatePosition, _Mapping]] = ...) -> None: ...

class Played(_message.Message):
    __slots__ = ("seat", "operations", "discard", "opened", "went_out", "new_meld_ids")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    OPERATIONS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    OPENED_FIELD_NUMBER: _ClassVar[int]
    WENT_OUT_FIELD_NUMBER: _ClassVar[int]
    NEW_MELD_IDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    operations: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Operation]
    discard: int
    opened: bool
    went_out: bool
    new_meld_ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., operations: _Optional[_Iterable[_Union[_cards_pb2.Operation, _Mapping]]] = ..., discard: _Optional[int] = ..., opened: _Optional[bool] = ..., went_out: _Optional[bool] = ..., new_meld_ids: _Optional[_Iterable[int]] = ...) -> None: ...

class DiscardReturned(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: int
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[int] = ...) -> None: ...

class StockRebuilt(_message.Message):
    __slots__ = ("rebuild_no", "stock_count")
    REBUILD_NO_FIELD_NUMBER: _ClassVar[int]
    STOCK_COUNT_FIELD_NUMBER: _ClassVar[int]
    rebuild_no: int
    stock_count: int
    def __init__(self, rebuild_no: _Optional[int] = ..., stock_count: _Optional[int] = ...) -> None: ...

class SeatHand(_message.Message):
    __slots__ = ("seat", "cards", "opened", "penalty")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    OPENED_FIELD_NUMBER: _ClassVar[int]
    PENALTY_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[int]
    opened: bool
    penalty: int
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[int]] = ..., opened: _Optional[bool] = ..., penalty: _Optional[int] = ...) -> None: ...

class DealEnded(_message.Message):
    __slots__ = ("outcome", "closer_seat", "closed_in_one_turn", "hands", "void_reason")
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    CLOSER_SEAT_FIELD_NUMBER: _ClassVar[int]
    CLOSED_IN_ONE_TURN_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    VOID_REASON_FIELD_NUMBER: _ClassVar[int]
    outcome: DealOutcome
    closer_seat: int
    closed_in_one_turn: bool
    hands: _containers.RepeatedCompositeFieldContainer[SeatHand]
    void_reason: str
    def __init__(self, outcome: _Optional[_Union[DealOutcome, str]] = ..., closer_seat: _Optional[int] = ..., closed_in_one_turn: _Optional[bool] = ..., hands: _Optional[_Iterable[_Union[SeatHand, _Mapping]]] = ..., void_reason: _Optional[str] = ...) -> None: ...

class HostSeedRevealed(_message.Message):
    __slots__ = ("host_seed",)
    HOST_SEED_FIELD_NUMBER: _ClassVar[int]
    host_seed: bytes
    def __init__(self, host_seed: _Optional[bytes] = ...) -> None: ...

class PrivateDealEvent(_message.Message):
    __slots__ = ("table_id", "deal_no", "hand_dealt", "stock_card_drawn")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    DEAL_NO_FIELD_NUMBER: _ClassVar[int]
    HAND_DEALT_FIELD_NUMBER: _ClassVar[int]
    STOCK_CARD_DRAWN_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    deal_no: int
    hand_dealt: HandDealt
    stock_card_drawn: StockCardDrawn
    def __init__(self, table_id: _Optional[str] = ..., deal_no: _Optional[int] = ..., hand_dealt: _Optional[_Union[HandDealt, _Mapping]] = ..., stock_card_drawn: _Optional[_Union[StockCardDrawn, _Mapping]] = ...) -> None: ...

class HandDealt(_message.Message):
    __slots__ = ("cards", "positions")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    POSITIONS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[int]
    positions: _containers.RepeatedCompositeFieldContainer[PrivatePosition]
    def __init__(self, cards: _Optional[_Iterable[int]] = ..., positions: _Optional[_Iterable[_Union[PrivatePosition, _Mapping]]] = ...) -> None: ...

class StockCardDrawn(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: int
    def __init__(self, card: _Optional[int] = ...) -> None: ...
