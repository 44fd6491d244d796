from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

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

class PlayerProof(_message.Message):
    __slots__ = ("public_key", "nonce", "signature")
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    NONCE_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    public_key: bytes
    nonce: bytes
    signature: bytes
    def __init__(self, public_key: _Optional[bytes] = ..., nonce: _Optional[bytes] = ..., signature: _Optional[bytes] = ...) -> None: ...
