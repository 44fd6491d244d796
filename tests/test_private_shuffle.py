"""The private deck's group, ciphertexts and proofs: what holds, and every way to cheat refused."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scala40_net.private.elgamal import (
    Ciphertext,
    card_of,
    card_point,
    open_deck,
    share,
    unmask,
)
from scala40_net.private.encoding import EncodingError, Reader, Writer
from scala40_net.private.group import (
    IDENTITY,
    GroupError,
    L,
    Point,
    base_times,
    random_scalar,
    scalar_from_bytes,
    seeded_scalars,
)
from scala40_net.private.proofs import KeyProof, ProofContext, ShareProof
from scala40_net.private.shuffle import (
    ShuffleProof,
    prove_shuffle,
    random_permutation,
    reencrypt_and_permute,
    shuffle_deck,
    shuffle_holds,
)

CTX = ProofContext("table-1", 3, 2, b"shuffle/test")


def keyed() -> tuple[int, Point]:
    x = random_scalar()
    return x, base_times(x)


def test_a_point_that_is_no_canonical_encoding_is_refused() -> None:
    with pytest.raises(GroupError):
        Point.from_bytes(b"\xff" * 32)  # not reduced
    with pytest.raises(GroupError):
        Point.from_bytes(bytes(31))
    # An Ed25519 encoding of a small-order point is no ristretto255 point.
    with pytest.raises(GroupError):
        Point.from_bytes(bytes([1]) + bytes(31))
    assert Point.from_bytes(bytes(32)) == IDENTITY


def test_a_scalar_not_reduced_is_refused() -> None:
    with pytest.raises(GroupError):
        scalar_from_bytes(L.to_bytes(32, "little"))
    with pytest.raises(EncodingError):
        Reader(L.to_bytes(32, "little")).scalar()


def test_every_card_of_two_decks_has_its_own_element() -> None:
    points = {card_point(c) for c in range(108)}
    assert len(points) == 108
    assert all(card_of(card_point(c), 108) == c for c in range(108))


def test_a_card_opened_with_every_share_is_the_card_encrypted() -> None:
    keys = [keyed() for _ in range(3)]
    joint = keys[0][1] + keys[1][1] + keys[2][1]
    ct = open_deck([41])[0].reencrypted(joint, random_scalar())
    assert card_of(unmask(ct, [share(x, ct) for x, _ in keys]), 108) == 41
    assert unmask(ct, [share(x, ct) for x, _ in keys[:2]]) != card_point(41)


def test_a_key_proof_holds_for_its_key_and_context_only() -> None:
    x, y = keyed()
    proof = KeyProof.prove(CTX, x, y, random_scalar)
    assert proof.holds(CTX, y)
    assert not proof.holds(ProofContext("table-1", 3, 1, b"shuffle/test"), y)
    assert not proof.holds(CTX, base_times(x + 1))


def test_a_share_proof_refuses_a_wrong_share() -> None:
    x, y = keyed()
    ct = open_deck([7])[0].reencrypted(y, random_scalar())
    d = share(x, ct)
    proof = ShareProof.prove(CTX, x, y, ct.a, d, random_scalar)
    assert proof.holds(CTX, y, ct.a, d)
    assert not proof.holds(CTX, y, ct.a, d + base_times(1))
    assert not proof.holds(ProofContext("table-1", 4, 2, b"shuffle/test"), y, ct.a, d)
    wrong = ShareProof.prove(CTX, x + 1, y, ct.a, share(x + 1, ct), random_scalar)
    assert not wrong.holds(CTX, y, ct.a, share(x + 1, ct))


def shuffled(n: int = 12) -> tuple[Point, tuple[Ciphertext, ...], tuple[Ciphertext, ...],
                                     ShuffleProof, int]:
    x, y = keyed()
    deck = open_deck(range(n))
    out, proof = shuffle_deck(CTX, y, deck, random_scalar)
    return y, deck, out, proof, x


def test_an_honest_shuffle_is_every_card_once_and_its_proof_holds() -> None:
    y, deck, out, proof, x = shuffled()
    assert shuffle_holds(CTX, y, deck, out, proof)
    assert sorted(card_of(unmask(ct, [share(x, ct)]), 108) for ct in out) == list(range(12))


def test_the_proof_is_bound_to_the_table_the_deal_the_seat_and_both_decks() -> None:
    y, deck, out, proof, _ = shuffled()
    for other in (
        ProofContext("table-2", 3, 2, b"shuffle/test"),
        ProofContext("table-1", 4, 2, b"shuffle/test"),
        ProofContext("table-1", 3, 1, b"shuffle/test"),
        ProofContext("table-1", 3, 2, b"shuffle/other"),
    ):
        assert not shuffle_holds(other, y, deck, out, proof)
    assert not shuffle_holds(CTX, y, open_deck(range(1, 13)), out, proof)
    assert not shuffle_holds(CTX, y + base_times(1), deck, out, proof)


def cheat(
    deck: tuple[Ciphertext, ...], y: Point, change: str
) -> tuple[tuple[Ciphertext, ...], ShuffleProof]:
    """A shuffler's output that is not a permutation of ``deck``, proved as if it were."""
    n = len(deck)
    psi = random_permutation(n, random_scalar)
    out, rand = reencrypt_and_permute(deck, y, psi, random_scalar)
    cards = list(out)
    if change == "swap":
        cards[0], cards[1] = cards[1], cards[0]
    elif change == "substitute":
        cards[3] = open_deck([90])[0].reencrypted(y, random_scalar())
    elif change == "duplicate":
        cards[5] = cards[4].reencrypted(y, random_scalar())
    elif change == "drop":
        cards = cards[:-1]
    forged = tuple(cards)
    proof = prove_shuffle(CTX, y, deck, forged if change != "drop" else out, psi, rand,
                          random_scalar)
    return forged, proof


@pytest.mark.parametrize("change", ["swap", "substitute", "duplicate", "drop"])
def test_a_shuffle_that_changes_a_card_is_refused(change: str) -> None:
    _, y = keyed()
    deck = open_deck(range(10))
    forged, proof = cheat(deck, y, change)
    assert not shuffle_holds(CTX, y, deck, forged, proof)


def test_a_proof_with_any_part_changed_is_refused() -> None:
    y, deck, out, proof, _ = shuffled(6)
    one = base_times(1)
    changed = [
        replace(proof, challenge=(proof.challenge + 1) % L),
        *(replace(proof, **{name: (getattr(proof, name) + 1) % L})
          for name in ("s1", "s2", "s3", "s4")),
        *(replace(proof, s_hat=tuple((v + (k == i)) % L for k, v in enumerate(proof.s_hat)))
          for i in range(6)),
        *(replace(proof, s_prime=tuple((v + (k == i)) % L for k, v in enumerate(proof.s_prime)))
          for i in range(6)),
        *(replace(proof, chain=tuple(p + one if k == i else p for k, p in enumerate(proof.chain)))
          for i in range(6)),
        *(replace(proof, commitments=tuple(p + one if k == i else p
                                           for k, p in enumerate(proof.commitments)))
          for i in range(6)),
        replace(proof, s_hat=proof.s_hat[:-1]),
    ]
    for bad in changed:
        assert not shuffle_holds(CTX, y, deck, out, bad)


def test_a_proof_reads_back_as_it_was_written() -> None:
    _, _, _, proof, _ = shuffled(5)
    w = Writer()
    proof.write(w)
    r = Reader(bytes(w))
    assert ShuffleProof.read(r) == proof
    r.end()


@settings(max_examples=15, deadline=None)
@given(n=st.integers(2, 9), seed=st.binary(min_size=4, max_size=4), i=st.integers(0, 8),
       j=st.integers(0, 8))
def test_honest_shuffles_hold_and_two_cards_swapped_never_do(
    n: int, seed: bytes, i: int, j: int
) -> None:
    draw = seeded_scalars(seed)
    y = base_times(draw())
    deck = open_deck(range(20, 20 + n))
    out, proof = shuffle_deck(CTX, y, deck, draw)
    assert shuffle_holds(CTX, y, deck, out, proof)
    i, j = i % n, j % n
    if i != j:
        swapped = list(out)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        assert not shuffle_holds(CTX, y, deck, tuple(swapped), proof)
