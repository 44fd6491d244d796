from scala40_net.pb import deal_pb2 as _deal_pb2
from scala40_net.pb import lobby_pb2 as _lobby_pb2
from scala40_net.pb import ruleset_pb2 as _ruleset_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetJoinChallengeRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetJoinChallengeResponse(_message.Message):
    __slots__ = ("nonce", "expires_in_seconds")
    NONCE_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_IN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    nonce: bytes
    expires_in_seconds: int
    def __init__(self, nonce: _Optional[bytes] = ..., expires_in_seconds: _Optional[int] = ...) -> None: ...

class ListMatchesRequest(_message.Message):
    __slots__ = ("key_fingerprint", "limit")
    KEY_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    key_fingerprint: str
    limit: int
    def __init__(self, key_fingerprint: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class ListMatchesResponse(_message.Message):
    __slots__ = ("matches",)
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[PastMatch]
    def __init__(self, matches: _Optional[_Iterable[_Union[PastMatch, _Mapping]]] = ...) -> None: ...

class GetMatchRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class GetMatchResponse(_message.Message):
    __slots__ = ("match", "deal_records")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    DEAL_RECORDS_FIELD_NUMBER: _ClassVar[int]
    match: PastMatch
    deal_records: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, match: _Optional[_Union[PastMatch, _Mapping]] = ..., deal_records: _Optional[_Iterable[bytes]] = ...) -> None: ...

class PastMatch(_message.Message):
    __slots__ = ("match_id", "table_id", "match_no", "table_name", "finished_unix_ms", "preset", "ruleset", "players", "deal_count", "deals", "winners")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_NO_FIELD_NUMBER: _ClassVar[int]
    TABLE_NAME_FIELD_NUMBER: _ClassVar[int]
    FINISHED_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    PRESET_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    DEAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    table_id: str
    match_no: int
    table_name: str
    finished_unix_ms: int
    preset: _ruleset_pb2.Preset
    ruleset: _ruleset_pb2.RulesetOptions
    players: _containers.RepeatedCompositeFieldContainer[MatchPlayer]
    deal_count: int
    deals: _containers.RepeatedCompositeFieldContainer[PastDeal]
    winners: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, match_id: _Optional[str] = ..., table_id: _Optional[str] = ..., match_no: _Optional[int] = ..., table_name: _Optional[str] = ..., finished_unix_ms: _Optional[int] = ..., preset: _Optional[_Union[_ruleset_pb2.Preset, str]] = ..., ruleset: _Optional[_Union[_ruleset_pb2.RulesetOptions, _Mapping]] = ..., players: _Optional[_Iterable[_Union[MatchPlayer, _Mapping]]] = ..., deal_count: _Optional[int] = ..., deals: _Optional[_Iterable[_Union[PastDeal, _Mapping]]] = ..., winners: _Optional[_Iterable[int]] = ...) -> None: ...

class MatchPlayer(_message.Message):
    __slots__ = ("seat", "name", "key_fingerprint", "bot_level", "total", "place", "left", "deals_played", "deals_opened", "deals_closed", "closed_in_hand", "penalty_points", "rating_before", "rating_after")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    KEY_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    LEFT_FIELD_NUMBER: _ClassVar[int]
    DEALS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    DEALS_OPENED_FIELD_NUMBER: _ClassVar[int]
    DEALS_CLOSED_FIELD_NUMBER: _ClassVar[int]
    CLOSED_IN_HAND_FIELD_NUMBER: _ClassVar[int]
    PENALTY_POINTS_FIELD_NUMBER: _ClassVar[int]
    RATING_BEFORE_FIELD_NUMBER: _ClassVar[int]
    RATING_AFTER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    key_fingerprint: str
    bot_level: _lobby_pb2.BotLevel
    total: int
    place: int
    left: bool
    deals_played: int
    deals_opened: int
    deals_closed: int
    closed_in_hand: int
    penalty_points: int
    rating_before: float
    rating_after: float
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ..., key_fingerprint: _Optional[str] = ..., bot_level: _Optional[_Union[_lobby_pb2.BotLevel, str]] = ..., total: _Optional[int] = ..., place: _Optional[int] = ..., left: _Optional[bool] = ..., deals_played: _Optional[int] = ..., deals_opened: _Optional[int] = ..., deals_closed: _Optional[int] = ..., closed_in_hand: _Optional[int] = ..., penalty_points: _Optional[int] = ..., rating_before: _Optional[float] = ..., rating_after: _Optional[float] = ...) -> None: ...

class PastDeal(_message.Message):
    __slots__ = ("deal_no", "outcome", "closer_seat", "closed_in_one_turn", "seats")
    DEAL_NO_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    CLOSER_SEAT_FIELD_NUMBER: _ClassVar[int]
    CLOSED_IN_ONE_TURN_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    deal_no: int
    outcome: _deal_pb2.DealOutcome
    closer_seat: int
    closed_in_one_turn: bool
    seats: _containers.RepeatedCompositeFieldContainer[PastDealSeat]
    def __init__(self, deal_no: _Optional[int] = ..., outcome: _Optional[_Union[_deal_pb2.DealOutcome, str]] = ..., closer_seat: _Optional[int] = ..., closed_in_one_turn: _Optional[bool] = ..., seats: _Optional[_Iterable[_Union[PastDealSeat, _Mapping]]] = ...) -> None: ...

class PastDealSeat(_message.Message):
    __slots__ = ("seat", "penalty", "opened")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PENALTY_FIELD_NUMBER: _ClassVar[int]
    OPENED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    penalty: int
    opened: bool
    def __init__(self, seat: _Optional[int] = ..., penalty: _Optional[int] = ..., opened: _Optional[bool] = ...) -> None: ...

class GetStandingsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetStandingsResponse(_message.Message):
    __slots__ = ("standings", "model")
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    standings: _containers.RepeatedCompositeFieldContainer[Standing]
    model: str
    def __init__(self, standings: _Optional[_Iterable[_Union[Standing, _Mapping]]] = ..., model: _Optional[str] = ...) -> None: ...

class Standing(_message.Message):
    __slots__ = ("rank", "name", "key_fingerprint", "bot_level", "rating", "mu", "sigma", "matches", "wins", "deals_played", "deals_opened", "penalty_points", "closed_in_hand")
    RANK_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    KEY_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    DEALS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    DEALS_OPENED_FIELD_NUMBER: _ClassVar[int]
    PENALTY_POINTS_FIELD_NUMBER: _ClassVar[int]
    CLOSED_IN_HAND_FIELD_NUMBER: _ClassVar[int]
    rank: int
    name: str
    key_fingerprint: str
    bot_level: _lobby_pb2.BotLevel
    rating: float
    mu: float
    sigma: float
    matches: int
    wins: int
    deals_played: int
    deals_opened: int
    penalty_points: int
    closed_in_hand: int
    def __init__(self, rank: _Optional[int] = ..., name: _Optional[str] = ..., key_fingerprint: _Optional[str] = ..., bot_level: _Optional[_Union[_lobby_pb2.BotLevel, str]] = ..., rating: _Optional[float] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., matches: _Optional[int] = ..., wins: _Optional[int] = ..., deals_played: _Optional[int] = ..., deals_opened: _Optional[int] = ..., penalty_points: _Optional[int] = ..., closed_in_hand: _Optional[int] = ...) -> None: ...
