from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Preset(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PRESET_UNSPECIFIED: _ClassVar[Preset]
    PRESET_CLASSIC: _ClassVar[Preset]
    PRESET_TRADIZIONALE: _ClassVar[Preset]
    PRESET_SEMPLICE: _ClassVar[Preset]

class DiscardPickup(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DISCARD_PICKUP_UNSPECIFIED: _ClassVar[DiscardPickup]
    DISCARD_PICKUP_CLASSIC: _ClassVar[DiscardPickup]
    DISCARD_PICKUP_FREE: _ClassVar[DiscardPickup]
    DISCARD_PICKUP_OPEN_WITH_IT: _ClassVar[DiscardPickup]

class DiscardAttachable(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DISCARD_ATTACHABLE_UNSPECIFIED: _ClassVar[DiscardAttachable]
    DISCARD_ATTACHABLE_CLASSIC: _ClassVar[DiscardAttachable]
    DISCARD_ATTACHABLE_NEVER: _ClassVar[DiscardAttachable]
    DISCARD_ATTACHABLE_FREE: _ClassVar[DiscardAttachable]
    DISCARD_ATTACHABLE_AGREED: _ClassVar[DiscardAttachable]

class JokerSwap(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    JOKER_SWAP_UNSPECIFIED: _ClassVar[JokerSwap]
    JOKER_SWAP_ANY_OPENED: _ClassVar[JokerSwap]
    JOKER_SWAP_OWNER: _ClassVar[JokerSwap]

class FirstTurnClose(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FIRST_TURN_CLOSE_UNSPECIFIED: _ClassVar[FirstTurnClose]
    FIRST_TURN_CLOSE_NEVER: _ClassVar[FirstTurnClose]
    FIRST_TURN_CLOSE_NOT_AFTER_PICKUP: _ClassVar[FirstTurnClose]
    FIRST_TURN_CLOSE_ALLOWED: _ClassVar[FirstTurnClose]

class LoneAce(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LONE_ACE_UNSPECIFIED: _ClassVar[LoneAce]
    LONE_ACE_ALWAYS: _ClassVar[LoneAce]
    LONE_ACE_AT_99: _ClassVar[LoneAce]
    LONE_ACE_NEVER: _ClassVar[LoneAce]
    LONE_ACE_SINGLE: _ClassVar[LoneAce]

class UnopenedPenalty(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNOPENED_PENALTY_UNSPECIFIED: _ClassVar[UnopenedPenalty]
    UNOPENED_PENALTY_FLAT100: _ClassVar[UnopenedPenalty]
    UNOPENED_PENALTY_DOUBLE: _ClassVar[UnopenedPenalty]
    UNOPENED_PENALTY_HAND: _ClassVar[UnopenedPenalty]

class MatchMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_MODE_UNSPECIFIED: _ClassVar[MatchMode]
    MATCH_MODE_POINTS: _ClassVar[MatchMode]
    MATCH_MODE_DEALS: _ClassVar[MatchMode]

class RientroProgression(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RIENTRO_PROGRESSION_UNSPECIFIED: _ClassVar[RientroProgression]
    RIENTRO_PROGRESSION_LINEAR: _ClassVar[RientroProgression]
    RIENTRO_PROGRESSION_DOUBLING: _ClassVar[RientroProgression]
PRESET_UNSPECIFIED: Preset
PRESET_CLASSIC: Preset
PRESET_TRADIZIONALE: Preset
PRESET_SEMPLICE: Preset
DISCARD_PICKUP_UNSPECIFIED: DiscardPickup
DISCARD_PICKUP_CLASSIC: DiscardPickup
DISCARD_PICKUP_FREE: DiscardPickup
DISCARD_PICKUP_OPEN_WITH_IT: DiscardPickup
DISCARD_ATTACHABLE_UNSPECIFIED: DiscardAttachable
DISCARD_ATTACHABLE_CLASSIC: DiscardAttachable
DISCARD_ATTACHABLE_NEVER: DiscardAttachable
DISCARD_ATTACHABLE_FREE: DiscardAttachable
DISCARD_ATTACHABLE_AGREED: DiscardAttachable
JOKER_SWAP_UNSPECIFIED: JokerSwap
JOKER_SWAP_ANY_OPENED: JokerSwap
JOKER_SWAP_OWNER: JokerSwap
FIRST_TURN_CLOSE_UNSPECIFIED: FirstTurnClose
FIRST_TURN_CLOSE_NEVER: FirstTurnClose
FIRST_TURN_CLOSE_NOT_AFTER_PICKUP: FirstTurnClose
FIRST_TURN_CLOSE_ALLOWED: FirstTurnClose
LONE_ACE_UNSPECIFIED: LoneAce
LONE_ACE_ALWAYS: LoneAce
LONE_ACE_AT_99: LoneAce
LONE_ACE_NEVER: LoneAce
LONE_ACE_SINGLE: LoneAce
UNOPENED_PENALTY_UNSPECIFIED: UnopenedPenalty
UNOPENED_PENALTY_FLAT100: UnopenedPenalty
UNOPENED_PENALTY_DOUBLE: UnopenedPenalty
UNOPENED_PENALTY_HAND: UnopenedPenalty
MATCH_MODE_UNSPECIFIED: MatchMode
MATCH_MODE_POINTS: MatchMode
MATCH_MODE_DEALS: MatchMode
RIENTRO_PROGRESSION_UNSPECIFIED: RientroProgression
RIENTRO_PROGRESSION_LINEAR: RientroProgression
RIENTRO_PROGRESSION_DOUBLING: RientroProgression

class RulesetOptions(_message.Message):
    __slots__ = ("decks", "max_players", "discard_pickup", "discard_attachable", "close_without_discard", "unopened_penalty", "opening_points", "max_run", "closer_bonus", "stall_rebuilds", "match_mode", "bust_at", "deals_in_match", "rientro", "rientro_fee", "rientro_progression", "rientro_max", "pairs", "rientro_pays_closer", "joker_swap", "first_turn_close", "closing_in_hand_double", "lone_ace")
    DECKS_FIELD_NUMBER: _ClassVar[int]
    MAX_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PICKUP_FIELD_NUMBER: _ClassVar[int]
    DISCARD_ATTACHABLE_FIELD_NUMBER: _ClassVar[int]
    CLOSE_WITHOUT_DISCARD_FIELD_NUMBER: _ClassVar[int]
    UNOPENED_PENALTY_FIELD_NUMBER: _ClassVar[int]
    OPENING_POINTS_FIELD_NUMBER: _ClassVar[int]
    MAX_RUN_FIELD_NUMBER: _ClassVar[int]
    CLOSER_BONUS_FIELD_NUMBER: _ClassVar[int]
    STALL_REBUILDS_FIELD_NUMBER: _ClassVar[int]
    MATCH_MODE_FIELD_NUMBER: _ClassVar[int]
    BUST_AT_FIELD_NUMBER: _ClassVar[int]
    DEALS_IN_MATCH_FIELD_NUMBER: _ClassVar[int]
    RIENTRO_FIELD_NUMBER: _ClassVar[int]
    RIENTRO_FEE_FIELD_NUMBER: _ClassVar[int]
    RIENTRO_PROGRESSION_FIELD_NUMBER: _ClassVar[int]
    RIENTRO_MAX_FIELD_NUMBER: _ClassVar[int]
    PAIRS_FIELD_NUMBER: _ClassVar[int]
    RIENTRO_PAYS_CLOSER_FIELD_NUMBER: _ClassVar[int]
    JOKER_SWAP_FIELD_NUMBER: _ClassVar[int]
    FIRST_TURN_CLOSE_FIELD_NUMBER: _ClassVar[int]
    CLOSING_IN_HAND_DOUBLE_FIELD_NUMBER: _ClassVar[int]
    LONE_ACE_FIELD_NUMBER: _ClassVar[int]
    decks: int
    max_players: int
    discard_pickup: DiscardPickup
    discard_attachable: DiscardAttachable
    close_without_discard: bool
    unopened_penalty: UnopenedPenalty
    opening_points: int
    max_run: int
    closer_bonus: int
    stall_rebuilds: int
    match_mode: MatchMode
    bust_at: int
    deals_in_match: int
    rientro: bool
    rientro_fee: int
    rientro_progression: RientroProgression
    rientro_max: int
    pairs: bool
    rientro_pays_closer: bool
    joker_swap: JokerSwap
    first_turn_close: FirstTurnClose
    closing_in_hand_double: bool
    lone_ace: LoneAce
    def __init__(self, decks: _Optional[int] = ..., max_players: _Optional[int] = ..., discard_pickup: _Optional[_Union[DiscardPickup, str]] = ..., discard_attachable: _Optional[_Union[DiscardAttachable, str]] = ..., close_without_discard: _Optional[bool] = ..., unopened_penalty: _Optional[_Union[UnopenedPenalty, str]] = ..., opening_points: _Optional[int] = ..., max_run: _Optional[int] = ..., closer_bonus: _Optional[int] = ..., stall_rebuilds: _Optional[int] = ..., match_mode: _Optional[_Union[MatchMode, str]] = ..., bust_at: _Optional[int] = ..., deals_in_match: _Optional[int] = ..., rientro: _Optional[bool] = ..., rientro_fee: _Optional[int] = ..., rientro_progression: _Optional[_Union[RientroProgression, str]] = ..., rientro_max: _Optional[int] = ..., pairs: _Optional[bool] = ..., rientro_pays_closer: _Optional[bool] = ..., joker_swap: _Optional[_Union[JokerSwap, str]] = ..., first_turn_close: _Optional[_Union[FirstTurnClose, str]] = ..., closing_in_hand_double: _Optional[bool] = ..., lone_ace: _Optional[_Union[LoneAce, str]] = ...) -> None: ...

class Ruleset(_message.Message):
    __slots__ = ("preset", "options")
    PRESET_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    preset: Preset
    options: RulesetOptions
    def __init__(self, preset: _Optional[_Union[Preset, str]] = ..., options: _Optional[_Union[RulesetOptions, _Mapping]] = ...) -> None: ...
