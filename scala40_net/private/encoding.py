"""The private protocol's bytes: big-endian integers, length-prefixed strings, points, scalars.

One encoding for the signed messages, the proofs' transcripts and the vectors, so a client in
another language reads and writes exactly these bytes (docs/PRIVATE_TABLES.md, "Bytes").
"""

from __future__ import annotations

from scala40_net.private.group import (
    POINT_BYTES,
    SCALAR_BYTES,
    GroupError,
    Point,
    scalar_bytes,
    scalar_from_bytes,
)


class EncodingError(ValueError):
    """Bytes that do not read as the message they claim to be."""


class Writer:
    """Appends fields; ``bytes()`` of it is the encoding."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def u8(self, value: int) -> Writer:
        self._parts.append(value.to_bytes(1, "big"))
        return self

    def u16(self, value: int) -> Writer:
        self._parts.append(value.to_bytes(2, "big"))
        return self

    def u32(self, value: int) -> Writer:
        self._parts.append(value.to_bytes(4, "big"))
        return self

    def raw(self, data: bytes) -> Writer:
        self._parts.append(data)
        return self

    def blob(self, data: bytes) -> Writer:
        """``u32(len) || data``."""
        return self.u32(len(data)).raw(data)

    def text(self, value: str) -> Writer:
        """``u16(len) || utf-8``."""
        data = value.encode("utf-8")
        return self.u16(len(data)).raw(data)

    def point(self, p: Point) -> Writer:
        return self.raw(p.data)

    def scalar(self, k: int) -> Writer:
        return self.raw(scalar_bytes(k))

    def points(self, ps: list[Point] | tuple[Point, ...]) -> Writer:
        """``u16(count) || points``."""
        self.u16(len(ps))
        self._parts.extend(p.data for p in ps)
        return self

    def scalars(self, ks: list[int] | tuple[int, ...]) -> Writer:
        """``u16(count) || scalars``."""
        self.u16(len(ks))
        self._parts.extend(scalar_bytes(k) for k in ks)
        return self

    def __bytes__(self) -> bytes:
        return b"".join(self._parts)


class Reader:
    """Reads the fields a ``Writer`` wrote; every point is validated as it is read."""

    def __init__(self, data: bytes) -> None:
        self._data = memoryview(data)
        self._at = 0

    def _take(self, n: int) -> bytes:
        if self._at + n > len(self._data):
            raise EncodingError("the message ends too early")
        chunk = bytes(self._data[self._at : self._at + n])
        self._at += n
        return chunk

    def u8(self) -> int:
        return self._take(1)[0]

    def u16(self) -> int:
        return int.from_bytes(self._take(2), "big")

    def u32(self) -> int:
        return int.from_bytes(self._take(4), "big")

    def raw(self, n: int) -> bytes:
        return self._take(n)

    def blob(self) -> bytes:
        return self._take(self.u32())

    def text(self) -> str:
        try:
            return self._take(self.u16()).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise EncodingError("a text field is not UTF-8") from exc

    def point(self) -> Point:
        try:
            return Point.from_bytes(self._take(POINT_BYTES))
        except GroupError as exc:
            raise EncodingError(str(exc)) from exc

    def scalar(self) -> int:
        try:
            return scalar_from_bytes(self._take(SCALAR_BYTES))
        except GroupError as exc:
            raise EncodingError(str(exc)) from exc

    def points(self) -> list[Point]:
        return [self.point() for _ in range(self.u16())]

    def scalars(self) -> list[int]:
        return [self.scalar() for _ in range(self.u16())]

    def end(self) -> None:
        """Refuse trailing bytes: one message has one encoding."""
        if self._at != len(self._data):
            raise EncodingError("bytes left over after the message")
