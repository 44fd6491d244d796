"""The ristretto255 group (prime order, via rbcl's libsodium): points, scalars, hashing to both.

Every point read from the wire goes through ``Point.read`` (or ``Point.from_bytes``), which
refuses a non-canonical encoding; ristretto255 has prime order ``L``, so a valid encoding is
a group element with no cofactor to clear. Scalars are Python ints reduced mod ``L``.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Iterable, Sequence

from rbcl.rbcl import (
    crypto_core_ristretto255_add,
    crypto_core_ristretto255_from_hash,
    crypto_core_ristretto255_is_valid_point,
    crypto_core_ristretto255_sub,
    crypto_scalarmult_ristretto255_allow_scalar_zero,
    crypto_scalarmult_ristretto255_base_allow_scalar_zero,
)

#: The order of the group: 2^252 + 27742317777372353535851937790883648493.
L = 2**252 + 27742317777372353535851937790883648493
POINT_BYTES = 32
SCALAR_BYTES = 32


class GroupError(ValueError):
    """Bytes that are not a canonical ristretto255 point or a reduced scalar."""


def scalar_bytes(k: int) -> bytes:
    """A scalar's 32-byte little-endian encoding (reduced mod ``L``)."""
    return (k % L).to_bytes(SCALAR_BYTES, "little")


def scalar_from_bytes(data: bytes) -> int:
    """A scalar from its 32-byte encoding; an unreduced one is refused (one encoding each)."""
    if len(data) != SCALAR_BYTES:
        raise GroupError(f"a scalar is {SCALAR_BYTES} bytes, not {len(data)}")
    k = int.from_bytes(data, "little")
    if k >= L:
        raise GroupError("a scalar must be reduced mod L")
    return k


class Point:
    """A ristretto255 element by its canonical 32-byte encoding; ``+``, ``-``, ``k * P``."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    @staticmethod
    def from_bytes(data: bytes) -> Point:
        """The point ``data`` encodes, refused unless it is canonical (the identity is valid)."""
        if len(data) != POINT_BYTES:
            raise GroupError(f"a point is {POINT_BYTES} bytes, not {len(data)}")
        if data != IDENTITY_BYTES and not crypto_core_ristretto255_is_valid_point(data):
            raise GroupError("not a canonical ristretto255 point")
        return Point(bytes(data))

    def __add__(self, other: Point) -> Point:
        return Point(crypto_core_ristretto255_add(self.data, other.data))

    def __sub__(self, other: Point) -> Point:
        return Point(crypto_core_ristretto255_sub(self.data, other.data))

    def __neg__(self) -> Point:
        return IDENTITY - self

    def __rmul__(self, k: int) -> Point:
        return Point(crypto_scalarmult_ristretto255_allow_scalar_zero(scalar_bytes(k), self.data))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Point) and secrets.compare_digest(self.data, other.data)

    def __hash__(self) -> int:
        return hash(self.data)

    def __bytes__(self) -> bytes:
        return self.data

    def __repr__(self) -> str:
        return f"Point({self.data.hex()[:16]}…)"


IDENTITY_BYTES = bytes(POINT_BYTES)
IDENTITY = Point(IDENTITY_BYTES)


def base_times(k: int) -> Point:
    """``k·G``, the generator's multiple (faster than ``k * G``)."""
    return Point(crypto_scalarmult_ristretto255_base_allow_scalar_zero(scalar_bytes(k)))


G = base_times(1)


def hash_to_point(tag: bytes, *parts: bytes) -> Point:
    """``from_hash(SHA-512(tag || parts…))``: an element nobody knows the logarithm of."""
    digest = hashlib.sha512(tag + b"".join(parts)).digest()
    return Point(crypto_core_ristretto255_from_hash(digest))


def total(points: Iterable[Point]) -> Point:
    """The sum of ``points`` (the identity when there are none)."""
    acc = IDENTITY
    for p in points:
        acc = acc + p
    return acc


def weighted(points: Sequence[Point], scalars: Sequence[int]) -> Point:
    """``Σ k_i·P_i`` (a multi-exponentiation, done term by term; the identity's terms, as
    in a deck encrypted openly, cost nothing)."""
    if len(points) != len(scalars):
        raise ValueError("as many scalars as points")
    return total(
        k * p for p, k in zip(points, scalars, strict=True) if p.data != IDENTITY_BYTES and k % L
    )


#: Where fresh scalars come from: ``secrets`` in play, a seeded stream for the vectors.
ScalarSource = Callable[[], int]


def random_scalar() -> int:
    """A uniform non-zero scalar from the OS's CSPRNG."""
    while True:
        k = secrets.randbelow(L)
        if k:
            return k


def seeded_scalars(seed: bytes) -> ScalarSource:
    """A deterministic scalar stream (SHA-512 of seed and counter, reduced): for vectors only."""
    counter = 0

    def draw() -> int:
        nonlocal counter
        while True:
            counter += 1
            block = b"scala40/private/v1/seeded" + seed + counter.to_bytes(8, "big")
            k = int.from_bytes(hashlib.sha512(block).digest(), "little") % L
            if k:
                return k

    return draw
