"""Fiat–Shamir transcripts and the two small proofs: knowledge of a key, a correct share.

A ``Transcript`` hashes labelled, length-prefixed items with SHA-512 and reads a challenge
scalar from them. ``KeyProof`` is a Schnorr proof of knowledge of a per-deal key (it stops
a seat from choosing its key after seeing the others', the rogue-key attack on the joint
key); ``ShareProof`` is a Chaum–Pedersen proof that a decryption share was made with the
seat's per-deal key. Both are sent compactly as (challenge, response).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from scala40_net.private.encoding import Reader, Writer
from scala40_net.private.group import G, L, Point, ScalarSource, base_times

PROTOCOL_TAG = b"scala40/private/v1"


class Transcript:
    """The hash a proof's challenges come from: every item labelled and length-prefixed."""

    def __init__(self, purpose: bytes) -> None:
        self._hash = hashlib.sha512()
        self.append(b"protocol", PROTOCOL_TAG)
        self.append(b"purpose", purpose)

    def append(self, label: bytes, data: bytes) -> None:
        """``u16(len label) || label || u32(len data) || data``."""
        self._hash.update(len(label).to_bytes(2, "big") + label)
        self._hash.update(len(data).to_bytes(4, "big") + data)

    def append_point(self, label: bytes, p: Point) -> None:
        self.append(label, p.data)

    def append_points(self, label: bytes, ps: list[Point] | tuple[Point, ...]) -> None:
        self.append(label, b"".join(p.data for p in ps))

    def challenge(self, label: bytes) -> int:
        """A scalar from the transcript so far (SHA-512 read little-endian, reduced mod L)."""
        fork = self._hash.copy()
        fork.update(b"challenge" + len(label).to_bytes(2, "big") + label)
        return int.from_bytes(fork.digest(), "little") % L


@dataclass(frozen=True)
class ProofContext:
    """What every proof is bound to: the table, the deal, the proving seat, the step."""

    table_id: str
    deal_no: int
    seat: int
    step: bytes

    def transcript(self, purpose: bytes) -> Transcript:
        t = Transcript(purpose)
        t.append(b"table", self.table_id.encode("utf-8"))
        t.append(b"deal", self.deal_no.to_bytes(4, "big"))
        t.append(b"seat", self.seat.to_bytes(4, "big"))
        t.append(b"step", self.step)
        return t


@dataclass(frozen=True)
class KeyProof:
    """Schnorr: ``t = w·G``, ``c = H(ctx, Y, t)``, ``s = w + c·x``; sent as (c, s)."""

    challenge: int
    response: int

    @staticmethod
    def prove(ctx: ProofContext, secret: int, public: Point, draw: ScalarSource) -> KeyProof:
        w = draw()
        t = base_times(w)
        c = _key_challenge(ctx, public, t)
        return KeyProof(c, (w + c * secret) % L)

    def holds(self, ctx: ProofContext, public: Point) -> bool:
        t = base_times(self.response) - self.challenge * public
        return _key_challenge(ctx, public, t) == self.challenge

    def write(self, w: Writer) -> None:
        w.scalar(self.challenge).scalar(self.response)

    @staticmethod
    def read(r: Reader) -> KeyProof:
        return KeyProof(r.scalar(), r.scalar())


def _key_challenge(ctx: ProofContext, public: Point, t: Point) -> int:
    tr = ctx.transcript(b"key")
    tr.append_point(b"G", G)
    tr.append_point(b"Y", public)
    tr.append_point(b"t", t)
    return tr.challenge(b"c")


@dataclass(frozen=True)
class ShareProof:
    """Chaum–Pedersen: ``log_G Y = log_A D``; ``t1 = w·G``, ``t2 = w·A``; sent as (c, s)."""

    challenge: int
    response: int

    @staticmethod
    def prove(
        ctx: ProofContext, secret: int, public: Point, a: Point, share: Point, draw: ScalarSource
    ) -> ShareProof:
        w = draw()
        c = _share_challenge(ctx, public, a, share, base_times(w), w * a)
        return ShareProof(c, (w + c * secret) % L)

    def holds(self, ctx: ProofContext, public: Point, a: Point, share: Point) -> bool:
        t1 = base_times(self.response) - self.challenge * public
        t2 = self.response * a - self.challenge * share
        return _share_challenge(ctx, public, a, share, t1, t2) == self.challenge

    def write(self, w: Writer) -> None:
        w.scalar(self.challenge).scalar(self.response)

    @staticmethod
    def read(r: Reader) -> ShareProof:
        return ShareProof(r.scalar(), r.scalar())


def _share_challenge(
    ctx: ProofContext, public: Point, a: Point, share: Point, t1: Point, t2: Point
) -> int:
    tr = ctx.transcript(b"share")
    for label, p in ((b"G", G), (b"Y", public), (b"A", a), (b"D", share), (b"t1", t1), (b"t2", t2)):
        tr.append_point(label, p)
    return tr.challenge(b"c")
