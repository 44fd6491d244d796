from scala40_net.pb import ruleset_pb2 as _ruleset_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TablePhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TABLE_PHASE_UNSPECIFIED: _ClassVar[TablePhase]
    TABLE_PHASE_WAITING: _ClassVar[TablePhase]
    TABLE_PHASE_PLAYING: _ClassVar[TablePhase]
    TABLE_PHASE_FINISHED: _ClassVar[TablePhase]

class AwayReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AWAY_REASON_UNSPECIFIED: _ClassVar[AwayReason]
    AWAY_REASON_TIMED_OUT: _ClassVar[AwayReason]
    AWAY_REASON_DISCONNECTED: _ClassVar[AwayReason]
    AWAY_REASON_HANDED_OVER: _ClassVar[AwayReason]
    AWAY_REASON_LEFT: _ClassVar[AwayReason]
    AWAY_REASON_STAND_IN: _ClassVar[AwayReason]

class BotLevel(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOT_LEVEL_UNSPECIFIED: _ClassVar[BotLevel]
    BOT_LEVEL_EASY: _ClassVar[BotLevel]
    BOT_LEVEL_MEDIUM: _ClassVar[BotLevel]
    BOT_LEVEL_HARD: _ClassVar[BotLevel]
    BOT_LEVEL_EXPERT: _ClassVar[BotLevel]
TABLE_PHASE_UNSPECIFIED: TablePhase
TABLE_PHASE_WAITING: TablePhase
TABLE_PHASE_PLAYING: TablePhase
TABLE_PHASE_FINISHED: TablePhase
AWAY_REASON_UNSPECIFIED: AwayReason
AWAY_REASON_TIMED_OUT: AwayReason
AWAY_REASON_DISCONNECTED: AwayReason
AWAY_REASON_HANDED_OVER: AwayReason
AWAY_REASON_LEFT: AwayReason
AWAY_REASON_STAND_IN: AwayReason
BOT_LEVEL_UNSPECIFIED: BotLevel
BOT_LEVEL_EASY: BotLevel
BOT_LEVEL_MEDIUM: BotLevel
BOT_LEVEL_HARD: BotLevel
BOT_LEVEL_EXPERT: BotLevel

class GetHostInfoRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetHostInfoResponse(_message.Message):
    __slots__ = ("host_public_key", "host_fingerprint", "version", "fair_deal_version", "contract_version")
    HOST_PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    HOST_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    FAIR_DEAL_VERSION_FIELD_NUMBER: _ClassVar[int]
    CONTRACT_VERSION_FIELD_NUMBER: _ClassVar[int]
    host_public_key: bytes
    host_fingerprint: str
    version: str
    fair_deal_version: int
    contract_version: int
    def __init__(self, host_public_key: _Optional[bytes] = ..., host_fingerprint: _Optional[str] = ..., version: _Optional[str] = ..., fair_deal_version: _Optional[int] = ..., contract_version: _Optional[int] = ...) -> None: ...

class CreateTableRequest(_message.Message):
    __slots__ = ("name", "ruleset", "seats", "password", "turn_seconds", "grace_seconds", "stand_in_level", "between_deals_seconds", "invited_keys", "private_cards")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    TURN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    GRACE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    STAND_IN_LEVEL_FIELD_NUMBER: _ClassVar[int]
    BETWEEN_DEALS_SECONDS_FIELD_NUMBER: _ClassVar[int]
    INVITED_KEYS_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_CARDS_FIELD_NUMBER: _ClassVar[int]
    name: str
    ruleset: _ruleset_pb2.Ruleset
    seats: int
    password: str
    turn_seconds: int
    grace_seconds: int
    stand_in_level: BotLevel
    between_deals_seconds: int
    invited_keys: _containers.RepeatedScalarFieldContainer[str]
    private_cards: bool
    def __init__(self, name: _Optional[str] = ..., ruleset: _Optional[_Union[_ruleset_pb2.Ruleset, _Mapping]] = ..., seats: _Optional[int] = ..., password: _Optional[str] = ..., turn_seconds: _Optional[int] = ..., grace_seconds: _Optional[int] = ..., stand_in_level: _Optional[_Union[BotLevel, str]] = ..., between_deals_seconds: _Optional[int] = ..., invited_keys: _Optional[_Iterable[str]] = ..., private_cards: _Optional[bool] = ...) -> None: ...

class CreateTableResponse(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class ListTablesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SeatInfo(_message.Message):
    __slots__ = ("seat", "taken", "name", "bot", "connected", "away", "decides_absences", "key_fingerprint", "private_signing_key", "host_bot")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    AWAY_FIELD_NUMBER: _ClassVar[int]
    DECIDES_ABSENCES_FIELD_NUMBER: _ClassVar[int]
    KEY_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_SIGNING_KEY_FIELD_NUMBER: _ClassVar[int]
    HOST_BOT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    taken: bool
    name: str
    bot: bool
    connected: bool
    away: AwayReason
    decides_absences: bool
    key_fingerprint: str
    private_signing_key: bytes
    host_bot: bool
    def __init__(self, seat: _Optional[int] = ..., taken: _Optional[bool] = ..., name: _Optional[str] = ..., bot: _Optional[bool] = ..., connected: _Optional[bool] = ..., away: _Optional[_Union[AwayReason, str]] = ..., decides_absences: _Optional[bool] = ..., key_fingerprint: _Optional[str] = ..., private_signing_key: _Optional[bytes] = ..., host_bot: _Optional[bool] = ...) -> None: ...

class TableSummary(_message.Message):
    __slots__ = ("table_id", "name", "ruleset", "preset", "seats", "phase", "has_password", "invited_only", "turn_seconds", "grace_seconds", "private_cards")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    PRESET_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    HAS_PASSWORD_FIELD_NUMBER: _ClassVar[int]
    INVITED_ONLY_FIELD_NUMBER: _ClassVar[int]
    TURN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    GRACE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_CARDS_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    name: str
    ruleset: _ruleset_pb2.RulesetOptions
    preset: _ruleset_pb2.Preset
    seats: _containers.RepeatedCompositeFieldContainer[SeatInfo]
    phase: TablePhase
    has_password: bool
    invited_only: bool
    turn_seconds: int
    grace_seconds: int
    private_cards: bool
    def __init__(self, table_id: _Optional[str] = ..., name: _Optional[str] = ..., ruleset: _Optional[_Union[_ruleset_pb2.RulesetOptions, _Mapping]] = ..., preset: _Optional[_Union[_ruleset_pb2.Preset, str]] = ..., seats: _Optional[_Iterable[_Union[SeatInfo, _Mapping]]] = ..., phase: _Optional[_Union[TablePhase, str]] = ..., has_password: _Optional[bool] = ..., invited_only: _Optional[bool] = ..., turn_seconds: _Optional[int] = ..., grace_seconds: _Optional[int] = ..., private_cards: _Optional[bool] = ...) -> None: ...

class ListTablesResponse(_message.Message):
    __slots__ = ("tables",)
    TABLES_FIELD_NUMBER: _ClassVar[int]
    tables: _containers.RepeatedCompositeFieldContainer[TableSummary]
    def __init__(self, tables: _Optional[_Iterable[_Union[TableSummary, _Mapping]]] = ...) -> None: ...

class JoinTableRequest(_message.Message):
    __slots__ = ("table_id", "player_name", "seat", "password", "proof", "private_signing_key")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    PROOF_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_SIGNING_KEY_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    player_name: str
    seat: int
    password: str
    proof: PlayerProof
    private_signing_key: bytes
    def __init__(self, table_id: _Optional[str] = ..., player_name: _Optional[str] = ..., seat: _Optional[int] = ..., password: _Optional[str] = ..., proof: _Optional[_Union[PlayerProof, _Mapping]] = ..., private_signing_key: _Optional[bytes] = ...) -> None: ...

class JoinTableResponse(_message.Message):
    __slots__ = ("seat", "seat_token")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    seat_token: str
    def __init__(self, seat: _Optional[int] = ..., seat_token: _Optional[str] = ...) -> None: ...

class LeaveTableRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class LeaveTableResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AddBotRequest(_message.Message):
    __slots__ = ("table_id", "seat", "level")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat: int
    level: BotLevel
    def __init__(self, table_id: _Optional[str] = ..., seat: _Optional[int] = ..., level: _Optional[_Union[BotLevel, str]] = ...) -> None: ...

class AddBotResponse(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class StartMatchRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class StartMatchResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SpectateTableRequest(_message.Message):
    __slots__ = ("table_id", "password")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    password: str
    def __init__(self, table_id: _Optional[str] = ..., password: _Optional[str] = ...) -> None: ...

class SpectateTableResponse(_message.Message):
    __slots__ = ("spectator_token",)
    SPECTATOR_TOKEN_FIELD_NUMBER: _ClassVar[int]
    spectator_token: str
    def __init__(self, spectator_token: _Optional[str] = ...) -> None: ...

class PlayerProof(_message.Message):
    __slots__ = ("public_key", "nonce", "signature")
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    NONCE_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    public_key: bytes
    nonce: bytes
    signature: bytes
    def __init__(self, public_key: _Optional[bytes] = ..., nonce: _Optional[bytes] = ..., signature: _Optional[bytes] = ...) -> None: ...
