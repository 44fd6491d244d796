"""The fair-deal computations of docs/FAIR_DEAL.md, one small pure function per section.

Everything a verifier in another language must reproduce bit for bit lives
here: byte encodings, commitments, the mix key, the HMAC stream, the sampler,
the shuffle, the cut, the deal mapping and stock rebuilds. No I/O, no clock,
no randomness of its own.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from scala40_net.cards import CARDS_PER_DECK

SEED_BYTES = 32
DIGEST_BYTES = 32
DECK_SIZES = (CARDS_PER_DECK, 2 * CARDS_PER_DECK)
CARDS_PER_HAND = 13

HOST_TAG = b"scala40/fair-deal/v1/host"
SEAT_TAG = b"scala40/fair-deal/v1/seat"
MIX_TAG = b"scala40/fair-deal/v1/mix"
STREAM_TAG = b"scala40/fair-deal/v1/stream"
REBUILD_TAG = b"scala40/fair-deal/v1/rebuild"

_WORD_SPACE = 1 << 32


# --- Notation -------------------------------------------------------------------------


def be16(value: int) -> bytes:
    return struct.pack(">H", value)


def be32(value: int) -> bytes:
    return struct.pack(">I", value)


def be64(value: int) -> bytes:
    return struct.pack(">Q", value)


def lp(data: bytes) -> bytes:
    """Length-prefixed bytes: ``be32(len(x)) || x``."""
    return be32(len(data)) + data


def text_bytes(text: str) -> bytes:
    """The bytes of a string such as the table id (Settled points: UTF-8, ASCII in practice)."""
    return text.encode("utf-8")


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def hmac_sha256(key: bytes, message: bytes) -> bytes:
    return hmac.digest(key, message, "sha256")


# --- Participants and values ----------------------------------------------------------


def host_commitment(table_id: str, deal_no: int, host_seed: bytes) -> bytes:
    """``C_host = H("…/host" || lp(table_id) || be32(deal_no) || s_host)``."""
    return sha256(HOST_TAG + lp(text_bytes(table_id)) + be32(deal_no) + host_seed)


def seat_commitment(table_id: str, deal_no: int, seat: int, seed: bytes, cut: int) -> bytes:
    """``C_i = H("…/seat" || lp(table_id) || be32(deal_no) || be32(i) || s_i || be16(cut_i))``."""
    return sha256(
        SEAT_TAG + lp(text_bytes(table_id)) + be32(deal_no) + be32(seat) + seed + be16(cut)
    )


def cut_is_valid(cut: int, *, is_cutter: bool, deck_size: int) -> bool:
    """The cutter's cut is in ``[1, N-1]``; every other seat's cut is 0."""
    if is_cutter:
        return 1 <= cut <= deck_size - 1
    return cut == 0


# --- Seats ----------------------------------------------------------------------------


def clockwise_from(after_seat: int, seats_in_play: Iterable[int]) -> list[int]:
    """Seats in play clockwise (ascending), starting with the first after ``after_seat``."""
    ordered = sorted(set(seats_in_play))
    later = [s for s in ordered if s > after_seat]
    earlier = [s for s in ordered if s <= after_seat]
    return later + earlier


def deal_order(dealer: int, seats_in_play: Iterable[int]) -> list[int]:
    """R2.3: the seats in the order they receive cards, from the dealer's left."""
    return clockwise_from(dealer, seats_in_play)


def cutter_seat(dealer: int, seats_in_play: Iterable[int]) -> int:
    """R2.2: the player on the dealer's right, the previous seat in play clockwise."""
    ordered = sorted(set(seats_in_play))
    earlier = [s for s in ordered if s < dealer]
    return earlier[-1] if earlier else ordered[-1]


# --- Deriving the deck: mix key -------------------------------------------------------


@dataclass(frozen=True)
class Reveal:
    """A seat's valid reveal: its table seat number, ``s_i`` and ``cut_i``."""

    seat: int
    seed: bytes
    cut: int


def mix_key(
    host_seed: bytes, table_id: str, deal_no: int, seats_in_play: int, reveals: Iterable[Reveal]
) -> bytes:
    """``K``: HMAC keyed by ``s_host`` over every valid reveal in ascending seat order.

    ``seats_in_play`` is ``n``, the number of seats in play, revealed or not.
    """
    message = bytearray(MIX_TAG + lp(text_bytes(table_id)) + be32(deal_no) + be32(seats_in_play))
    for reveal in sorted(reveals, key=lambda r: r.seat):
        message += be32(reveal.seat) + reveal.seed + be16(reveal.cut)
    return hmac_sha256(host_seed, bytes(message))


# --- Random stream and uniform integers -----------------------------------------------


def stream_block(key: bytes, k: int) -> bytes:
    """``block_k = HMAC(K, "…/stream" || be64(k))``."""
    return hmac_sha256(key, STREAM_TAG + be64(k))


class Stream:
    """The stream ``block_0 || block_1 || …`` of a key, read as consecutive be32 words."""

    def __init__(self, key: bytes) -> None:
        self._key = key
        self._next_block = 0
        self._words: tuple[int, ...] = ()
        self._position = 0
        self.words_read = 0

    def next_word(self) -> int:
        if self._position == len(self._words):
            self._words = struct.unpack(">8I", stream_block(self._key, self._next_block))
            self._next_block += 1
            self._position = 0
        word = self._words[self._position]
        self._position += 1
        self.words_read += 1
        return word


class WordSource(Protocol):
    """Anything that gives be32 words: a ``Stream``, or a stub in the tests."""

    def next_word(self) -> int: ...


def uniform(stream: WordSource, bound: int) -> int:
    """A uniform integer in ``[0, bound)`` by rejection: words at or above ``limit`` are skipped.

    ``uniform(1)`` still takes one word (it is always accepted), so every
    implementation reads the stream alike.
    """
    if not 1 <= bound <= _WORD_SPACE:
        raise ValueError(f"uniform bound {bound} is not in 1..2^32")
    limit = _WORD_SPACE - (_WORD_SPACE % bound)
    while True:
        word = stream.next_word()
        if word < limit:
            return word % bound


# --- Shuffle and cut ------------------------------------------------------------------


def shuffle(cards: Sequence[int], stream: WordSource) -> list[int]:
    """Fisher–Yates from the last position down to 1: ``j = uniform(i+1)``, swap ``i`` and ``j``."""
    deck = list(cards)
    for i in range(len(deck) - 1, 0, -1):
        j = uniform(stream, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def derived_cut(stream: WordSource, size: int) -> int:
    """``c = 1 + uniform(N-1)``: the cut when nobody chose one; in ``[1, N-1]``."""
    return 1 + uniform(stream, size - 1)


def cut(deck: Sequence[int], c: int) -> list[int]:
    """``deck[c:] || deck[:c]``; position 0 is the top."""
    return list(deck[c:]) + list(deck[:c])


# --- Deal -----------------------------------------------------------------------------


@dataclass(frozen=True)
class DealtCards:
    """Where every card of the cut deck goes (R2.3)."""

    hands: dict[int, list[int]]
    first_discard: int
    stock: list[int]


def deal_cards(deck: Sequence[int], dealer: int, seats_in_play: Iterable[int]) -> DealtCards:
    """Card ``k < 13n`` to the ``(k mod n)``-th seat from the dealer's left; then discard, stock."""
    order = deal_order(dealer, seats_in_play)
    n = len(order)
    hands: dict[int, list[int]] = {seat: [] for seat in order}
    for k in range(CARDS_PER_HAND * n):
        hands[order[k % n]].append(deck[k])
    dealt = CARDS_PER_HAND * n
    return DealtCards(hands=hands, first_discard=deck[dealt], stock=list(deck[dealt + 1 :]))


@dataclass(frozen=True)
class Derivation:
    """Every intermediate value of one deal's derivation, for the host, verifier and vectors."""

    mix_key: bytes
    shuffled: list[int]
    cut: int
    cut_chosen: bool
    deck: list[int]
    dealt: DealtCards


def derive_deal(
    *,
    host_seed: bytes,
    table_id: str,
    deal_no: int,
    dealer: int,
    cutter: int,
    seats_in_play: Sequence[int],
    deck_size: int,
    reveals: Iterable[Reveal],
) -> Derivation:
    """From the seeds to the dealt cards: mix key, shuffle, cut (chosen or derived), deal."""
    reveals = list(reveals)
    key = mix_key(host_seed, table_id, deal_no, len(seats_in_play), reveals)
    stream = Stream(key)
    shuffled = shuffle(range(deck_size), stream)
    cutter_reveal = next((r for r in reveals if r.seat == cutter), None)
    if cutter_reveal is not None:
        c, chosen = cutter_reveal.cut, True
    else:
        c, chosen = derived_cut(stream, deck_size), False
    deck = cut(shuffled, c)
    return Derivation(
        mix_key=key,
        shuffled=shuffled,
        cut=c,
        cut_chosen=chosen,
        deck=deck,
        dealt=deal_cards(deck, dealer, seats_in_play),
    )


# --- Rebuilt stock (R10.1) ------------------------------------------------------------


def rebuild_key(key: bytes, rebuild_no: int) -> bytes:
    """``K_r = HMAC(K, "…/rebuild" || be32(r))``."""
    return hmac_sha256(key, REBUILD_TAG + be32(rebuild_no))


def rebuild_stock(key: bytes, rebuild_no: int, discard_pile: Sequence[int]) -> list[int]:
    """The ``r``-th new stock from the discard pile (listed bottom first, top card last).

    The top card stays as the discard pile; the others are sorted by id,
    shuffled with the stream of ``K_r`` and cut with ``1 + uniform(M-1)``
    (no cut, and no word read for it, when ``M < 2``). Returns the stock, top first.
    """
    cards = sorted(discard_pile[:-1])
    stream = Stream(rebuild_key(key, rebuild_no))
    stock = shuffle(cards, stream)
    if len(stock) >= 2:
        stock = cut(stock, derived_cut(stream, len(stock)))
    return stock
