"""The private protocol's messages: their bodies, the signed envelope, the signer, the table code.

Every message is an ``Envelope``: the table, the deal, its author seat, the author's own
sequence number and the hash of the author's previous message (each seat's messages form a
chain), the heads of the other seats' chains as the author had them (``seen``: what it
answers), the kind and the body; signed by the author's key over all of it. The host only
relays envelopes, so it can withhold or reorder them but cannot make or change one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property
from typing import Protocol

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from scala40_net.private.elgamal import Deck, read_deck, write_deck
from scala40_net.private.encoding import EncodingError, Reader, Writer
from scala40_net.private.group import Point
from scala40_net.private.proofs import KeyProof, ShareProof
from scala40_net.private.shuffle import ShuffleProof

ENVELOPE_MAGIC = b"S40P\x01"
SIGNED_TAG = b"scala40/private/v1/message"
GENESIS_TAG = b"scala40/private/v1/genesis"
SETUP_TAG = b"scala40/private/v1/setup"
TABLE_CODE_TAG = b"scala40/private/v1/table-code"
SIGNATURE_BYTES = 64
HASH_BYTES = 32
#: ``SharesBody.recipient`` of a card opened to everyone (laid, discarded, the first discard).
EVERYONE = 0xFF


class Kind(IntEnum):
    """What a message says."""

    KEY = 1  # a seat's per-deal public key, with its proof of knowledge
    SHUFFLE = 2  # a seat's re-encrypted, permuted deck, with its shuffle proof
    CUT = 3  # the cutter's cut of the shuffled deck (R2.2)
    SHARES = 4  # decryption shares, with their proofs, opening cards to a seat or everyone
    REVEAL = 5  # a seat's per-deal secret key, at the deal's end
    HEADS = 6  # nothing but the envelope's heads: what its author has seen, to show a gap


@dataclass(frozen=True)
class KeyBody:
    public: Point
    proof: KeyProof

    def __bytes__(self) -> bytes:
        w = Writer().point(self.public)
        self.proof.write(w)
        return bytes(w)

    @staticmethod
    def read(r: Reader) -> KeyBody:
        return KeyBody(r.point(), KeyProof.read(r))


@dataclass(frozen=True)
class ShuffleBody:
    """Shuffle ``index`` (its place in the seats' order) of deck ``round`` (0: the deal).

    The first shuffle of a rebuilt stock (``round`` ≥ 1, ``index`` 0) names the public
    discards it starts from (``cards``, sorted by id, encrypted openly); every other
    shuffle starts from the previous one's deck and names no cards.
    """

    round: int
    index: int
    cards: tuple[int, ...]
    input_digest: bytes
    deck: Deck
    proof: ShuffleProof

    def __bytes__(self) -> bytes:
        w = Writer().u16(self.round).u8(self.index).u16(len(self.cards))
        for card in self.cards:
            w.u16(card)
        w.raw(self.input_digest)
        write_deck(w, self.deck)
        self.proof.write(w)
        return bytes(w)

    @staticmethod
    def read(r: Reader) -> ShuffleBody:
        round_, index = r.u16(), r.u8()
        cards = tuple(r.u16() for _ in range(r.u16()))
        digest = r.raw(HASH_BYTES)
        return ShuffleBody(round_, index, cards, digest, read_deck(r), ShuffleProof.read(r))


@dataclass(frozen=True)
class CutBody:
    cut: int

    def __bytes__(self) -> bytes:
        return bytes(Writer().u16(self.cut))

    @staticmethod
    def read(r: Reader) -> CutBody:
        return CutBody(r.u16())


@dataclass(frozen=True)
class Share:
    """The author's share of the card at ``position`` of deck ``round``, with its proof."""

    position: int
    share: Point
    proof: ShareProof


@dataclass(frozen=True)
class SharesBody:
    """Shares of deck ``round`` opening its cards to ``recipient`` (a seat, or ``EVERYONE``)."""

    round: int
    recipient: int
    shares: tuple[Share, ...]

    def __bytes__(self) -> bytes:
        w = Writer().u16(self.round).u8(self.recipient).u16(len(self.shares))
        for s in self.shares:
            w.u16(s.position).point(s.share)
            s.proof.write(w)
        return bytes(w)

    @staticmethod
    def read(r: Reader) -> SharesBody:
        round_, recipient, count = r.u16(), r.u8(), r.u16()
        shares = tuple(Share(r.u16(), r.point(), ShareProof.read(r)) for _ in range(count))
        return SharesBody(round_, recipient, shares)


@dataclass(frozen=True)
class RevealBody:
    secret: int

    def __bytes__(self) -> bytes:
        return bytes(Writer().scalar(self.secret))

    @staticmethod
    def read(r: Reader) -> RevealBody:
        return RevealBody(r.scalar())


@dataclass(frozen=True)
class HeadsBody:
    """Empty: the envelope's ``seen`` is the message (a seat waiting on a share asks with
    one, and every seat answers with one, so a message the relay withheld shows)."""

    def __bytes__(self) -> bytes:
        return b""

    @staticmethod
    def read(r: Reader) -> HeadsBody:
        return HeadsBody()


Body = KeyBody | ShuffleBody | CutBody | SharesBody | RevealBody | HeadsBody
_READERS: dict[Kind, Callable[[Reader], Body]] = {
    Kind.KEY: KeyBody.read,
    Kind.SHUFFLE: ShuffleBody.read,
    Kind.CUT: CutBody.read,
    Kind.SHARES: SharesBody.read,
    Kind.REVEAL: RevealBody.read,
    Kind.HEADS: HeadsBody.read,
}
_KINDS: dict[type, Kind] = {
    KeyBody: Kind.KEY,
    ShuffleBody: Kind.SHUFFLE,
    CutBody: Kind.CUT,
    SharesBody: Kind.SHARES,
    RevealBody: Kind.REVEAL,
    HeadsBody: Kind.HEADS,
}


def kind_of(body: Body) -> Kind:
    return _KINDS[type(body)]


def read_body(kind: Kind, data: bytes) -> Body:
    r = Reader(data)
    body = _READERS[kind](r)
    r.end()
    return body


class Signer(Protocol):
    """Whatever signs a seat's messages: a per-match Ed25519 key, or the player's identity key."""

    def public_key(self) -> bytes: ...

    def sign(self, message: bytes) -> bytes: ...


class Ed25519Signer:
    """A seat's Ed25519 key for the match."""

    def __init__(self, key: Ed25519PrivateKey | None = None) -> None:
        self._key = key or Ed25519PrivateKey.generate()

    @staticmethod
    def from_seed(seed: bytes) -> Ed25519Signer:
        """A key from 32 fixed bytes: for the known-answer vectors."""
        return Ed25519Signer(Ed25519PrivateKey.from_private_bytes(seed))

    def public_key(self) -> bytes:
        return self._key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )

    def sign(self, message: bytes) -> bytes:
        return self._key.sign(message)

    def private_bytes(self) -> bytes:
        """The 32-byte private seed: only ever handed to a stand-in (``HandToStandIn``)."""
        return self._key.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )


def signature_holds(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """Ed25519 verification (RFC 8032) of ``signature`` on ``message``."""
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


@dataclass(frozen=True)
class Head:
    """How far a seat's chain went: its message count and the last one's hash."""

    seat: int
    count: int
    digest: bytes


def setup_digest(
    table_id: str, deal_no: int, dealer: int, deck_size: int, keys: Mapping[int, bytes]
) -> bytes:
    """The deal's setup as its host announced it, every seat in play with its signing key:
    ``SHA-256(tag || text(table) || u32(deal) || u8(dealer) || u16(deck size) || u8(n) ||
    (u8 seat || key) by seat)``. Every chain starts from it (``genesis``), so a seat shown
    another setup than the others is found at the first message that crosses."""
    w = Writer().raw(SETUP_TAG).text(table_id).u32(deal_no).u8(dealer).u16(deck_size)
    w.u8(len(keys))
    for seat in sorted(keys):
        w.u8(seat).raw(keys[seat])
    return hashlib.sha256(bytes(w)).digest()


def genesis(setup: bytes, seat: int) -> bytes:
    """The ``prev`` of a seat's first message of a deal: ``SHA-256(tag || setup digest ||
    u8(seat))``."""
    w = Writer().raw(GENESIS_TAG).raw(setup).u8(seat)
    return hashlib.sha256(bytes(w)).digest()


@dataclass(frozen=True)
class Envelope:
    """One signed message; ``digest`` is SHA-256 of its whole bytes, signature included."""

    table_id: str
    deal_no: int
    author: int
    seq: int
    prev: bytes
    seen: tuple[Head, ...]
    kind: Kind
    body_bytes: bytes
    signature: bytes

    # Each is made once an envelope (it is frozen): a message is checked, journaled and
    # relayed by several readers of one process, each asking for them again.
    @cached_property
    def _signed(self) -> bytes:
        return signed_bytes(
            self.table_id, self.deal_no, self.author, self.seq, self.prev, self.seen,
            self.kind, self.body_bytes,
        )

    def signed_part(self) -> bytes:
        return self._signed

    @cached_property
    def _whole(self) -> bytes:
        return self._signed[len(SIGNED_TAG) :] + self.signature

    def __bytes__(self) -> bytes:
        return self._whole

    @cached_property
    def digest(self) -> bytes:
        return hashlib.sha256(self._whole).digest()

    @cached_property
    def _body(self) -> Body:
        return read_body(self.kind, self.body_bytes)

    def body(self) -> Body:
        return self._body

    @staticmethod
    def parse(data: bytes) -> Envelope:
        """The envelope ``data`` holds (EncodingError when it does not read as one)."""
        r = Reader(data)
        if r.raw(len(ENVELOPE_MAGIC)) != ENVELOPE_MAGIC:
            raise EncodingError("not a private-table message (magic)")
        table_id, deal_no, author, seq = r.text(), r.u32(), r.u8(), r.u32()
        prev = r.raw(HASH_BYTES)
        seen = tuple(Head(r.u8(), r.u32(), r.raw(HASH_BYTES)) for _ in range(r.u8()))
        try:
            kind = Kind(r.u8())
        except ValueError as exc:
            raise EncodingError("unknown message kind") from exc
        body_bytes = r.blob()
        signature = r.raw(SIGNATURE_BYTES)
        r.end()
        return Envelope(table_id, deal_no, author, seq, prev, seen, kind, body_bytes, signature)


def signed_bytes(
    table_id: str, deal_no: int, author: int, seq: int, prev: bytes, seen: tuple[Head, ...],
    kind: Kind, body_bytes: bytes,
) -> bytes:
    """What the author signs: the tag, then every field of the envelope but the signature."""
    w = Writer().raw(SIGNED_TAG).raw(ENVELOPE_MAGIC).text(table_id).u32(deal_no)
    w.u8(author).u32(seq).raw(prev).u8(len(seen))
    for head in seen:
        w.u8(head.seat).u32(head.count).raw(head.digest)
    w.u8(int(kind)).blob(body_bytes)
    return bytes(w)


def seal(
    signer: Signer, table_id: str, deal_no: int, author: int, seq: int, prev: bytes,
    seen: tuple[Head, ...], body: Body,
) -> Envelope:
    """The envelope of ``body``, signed."""
    kind = kind_of(body)
    data = bytes(body)
    signature = signer.sign(signed_bytes(table_id, deal_no, author, seq, prev, seen, kind, data))
    return Envelope(table_id, deal_no, author, seq, prev, seen, kind, data, signature)


def table_code(table_id: str, keys: dict[int, bytes]) -> str:
    """Twenty digits from every seat's signing key, for the players to compare aloud.

    ``SHA-256(tag || text(table) || (u8 seat || key) by seat)``, its first 9 bytes read as
    a big-endian integer mod 10^20, in five groups of four: 66 bits, so a relay that
    showed seats different keys would need ~2^33 tries to make their codes agree.
    """
    w = Writer().raw(TABLE_CODE_TAG).text(table_id)
    for seat in sorted(keys):
        w.u8(seat).raw(keys[seat])
    number = int.from_bytes(hashlib.sha256(bytes(w)).digest()[:9], "big") % 10**20
    digits = f"{number:020d}"
    return " ".join(digits[i : i + 4] for i in range(0, 20, 4))
