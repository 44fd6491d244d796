from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Suit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUIT_UNSPECIFIED: _ClassVar[Suit]
    SUIT_HEARTS: _ClassVar[Suit]
    SUIT_DIAMONDS: _ClassVar[Suit]
    SUIT_CLUBS: _ClassVar[Suit]
    SUIT_SPADES: _ClassVar[Suit]

class MeldKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MELD_KIND_UNSPECIFIED: _ClassVar[MeldKind]
    MELD_KIND_SEQUENCE: _ClassVar[MeldKind]
    MELD_KIND_GROUP: _ClassVar[MeldKind]
SUIT_UNSPECIFIED: Suit
SUIT_HEARTS: Suit
SUIT_DIAMONDS: Suit
SUIT_CLUBS: Suit
SUIT_SPADES: Suit
MELD_KIND_UNSPECIFIED: MeldKind
MELD_KIND_SEQUENCE: MeldKind
MELD_KIND_GROUP: MeldKind

class Face(_message.Message):
    __slots__ = ("rank", "suit")
    RANK_FIELD_NUMBER: _ClassVar[int]
    SUIT_FIELD_NUMBER: _ClassVar[int]
    rank: int
    suit: Suit
    def __init__(self, rank: _Optional[int] = ..., suit: _Optional[_Union[Suit, str]] = ...) -> None: ...

class JokerDeclaration(_message.Message):
    __slots__ = ("joker", "stands_for")
    JOKER_FIELD_NUMBER: _ClassVar[int]
    STANDS_FOR_FIELD_NUMBER: _ClassVar[int]
    joker: int
    stands_for: Face
    def __init__(self, joker: _Optional[int] = ..., stands_for: _Optional[_Union[Face, _Mapping]] = ...) -> None: ...

class TableMeld(_message.Message):
    __slots__ = ("meld_id", "kind", "cards", "joker", "laid_by_seat", "points")
    MELD_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    JOKER_FIELD_NUMBER: _ClassVar[int]
    LAID_BY_SEAT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    meld_id: int
    kind: MeldKind
    cards: _containers.RepeatedScalarFieldContainer[int]
    joker: JokerDeclaration
    laid_by_seat: int
    points: int
    def __init__(self, meld_id: _Optional[int] = ..., kind: _Optional[_Union[MeldKind, str]] = ..., cards: _Optional[_Iterable[int]] = ..., joker: _Optional[_Union[JokerDeclaration, _Mapping]] = ..., laid_by_seat: _Optional[int] = ..., points: _Optional[int] = ...) -> None: ...

class NewMeld(_message.Message):
    __slots__ = ("cards", "joker_as", "split")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    JOKER_AS_FIELD_NUMBER: _ClassVar[int]
    SPLIT_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[int]
    joker_as: Face
    split: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, cards: _Optional[_Iterable[int]] = ..., joker_as: _Optional[_Union[Face, _Mapping]] = ..., split: _Optional[_Iterable[int]] = ...) -> None: ...

class Attach(_message.Message):
    __slots__ = ("meld_id", "cards", "joker_as", "split")
    MELD_ID_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    JOKER_AS_FIELD_NUMBER: _ClassVar[int]
    SPLIT_FIELD_NUMBER: _ClassVar[int]
    meld_id: int
    cards: _containers.RepeatedScalarFieldContainer[int]
    joker_as: Face
    split: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, meld_id: _Optional[int] = ..., cards: _Optional[_Iterable[int]] = ..., joker_as: _Optional[_Union[Face, _Mapping]] = ..., split: _Optional[_Iterable[int]] = ...) -> None: ...

class SwapJoker(_message.Message):
    __slots__ = ("meld_id", "card")
    MELD_ID_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    meld_id: int
    card: int
    def __init__(self, meld_id: _Optional[int] = ..., card: _Optional[int] = ...) -> None: ...

class Operation(_message.Message):
    __slots__ = ("new_meld", "attach", "swap_joker")
    NEW_MELD_FIELD_NUMBER: _ClassVar[int]
    ATTACH_FIELD_NUMBER: _ClassVar[int]
    SWAP_JOKER_FIELD_NUMBER: _ClassVar[int]
    new_meld: NewMeld
    attach: Attach
    swap_joker: SwapJoker
    def __init__(self, new_meld: _Optional[_Union[NewMeld, _Mapping]] = ..., attach: _Optional[_Union[Attach, _Mapping]] = ..., swap_joker: _Optional[_Union[SwapJoker, _Mapping]] = ...) -> None: ...
