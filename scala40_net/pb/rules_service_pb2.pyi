from scala40_net.pb import cards_pb2 as _cards_pb2
from scala40_net.pb import ruleset_pb2 as _ruleset_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ProposedMeld(_message.Message):
    __slots__ = ("cards", "joker_as", "split")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    JOKER_AS_FIELD_NUMBER: _ClassVar[int]
    SPLIT_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[int]
    joker_as: _cards_pb2.Face
    split: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, cards: _Optional[_Iterable[int]] = ..., joker_as: _Optional[_Union[_cards_pb2.Face, _Mapping]] = ..., split: _Optional[_Iterable[int]] = ...) -> None: ...

class CheckMeldsRequest(_message.Message):
    __slots__ = ("ruleset", "melds")
    RULESET_FIELD_NUMBER: _ClassVar[int]
    MELDS_FIELD_NUMBER: _ClassVar[int]
    ruleset: _ruleset_pb2.Ruleset
    melds: _containers.RepeatedCompositeFieldContainer[ProposedMeld]
    def __init__(self, ruleset: _Optional[_Union[_ruleset_pb2.Ruleset, _Mapping]] = ..., melds: _Optional[_Iterable[_Union[ProposedMeld, _Mapping]]] = ...) -> None: ...

class MeldCheck(_message.Message):
    __slots__ = ("valid", "kind", "points", "joker", "rule", "reason", "split")
    VALID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    JOKER_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SPLIT_FIELD_NUMBER: _ClassVar[int]
    valid: bool
    kind: _cards_pb2.MeldKind
    points: int
    joker: _cards_pb2.JokerDeclaration
    rule: str
    reason: str
    split: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, valid: _Optional[bool] = ..., kind: _Optional[_Union[_cards_pb2.MeldKind, str]] = ..., points: _Optional[int] = ..., joker: _Optional[_Union[_cards_pb2.JokerDeclaration, _Mapping]] = ..., rule: _Optional[str] = ..., reason: _Optional[str] = ..., split: _Optional[_Iterable[int]] = ...) -> None: ...

class CheckMeldsResponse(_message.Message):
    __slots__ = ("melds", "total_points", "opening_points", "would_open", "rule", "reason")
    MELDS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_POINTS_FIELD_NUMBER: _ClassVar[int]
    OPENING_POINTS_FIELD_NUMBER: _ClassVar[int]
    WOULD_OPEN_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    melds: _containers.RepeatedCompositeFieldContainer[MeldCheck]
    total_points: int
    opening_points: int
    would_open: bool
    rule: str
    reason: str
    def __init__(self, melds: _Optional[_Iterable[_Union[MeldCheck, _Mapping]]] = ..., total_points: _Optional[int] = ..., opening_points: _Optional[int] = ..., would_open: _Optional[bool] = ..., rule: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...
