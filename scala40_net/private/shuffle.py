"""The verifiable shuffle: re-encrypt and permute a deck, with a Terelius–Wikström proof.

Written from the pseudo-code of Haenni, Locher, Koenig and Dubuis, "Pseudo-Code Algorithms
for Verifiable Re-Encryption Mix-Nets" (FC 2017, LNCS 10323), algorithms GenShuffleProof
and CheckShuffleProof, in this group's additive notation and with our ciphertexts
``(A, B) = (r·G, M + r·Y)`` (the paper writes ``(m·pk^r, g^r)``). Output card ``i`` is input
card ``ψ(i)`` re-encrypted with ``r'_i``. The proof is sent as (challenge, responses), the
commitments ``t`` recomputed by the verifier, which is the same proof in compact form.

The Fiat–Shamir transcript binds, in this order: the protocol, the purpose, the table, the
deal, the shuffling seat, the step (which shuffle of which deck), the generators' count,
the joint key, the input deck, the output deck, the permutation commitment ``c``; the
challenges ``u_i`` are read there; then the commitment chain ``ĉ`` and every ``t`` value,
and the challenge ``c`` is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from scala40_net.private.elgamal import Ciphertext, Deck, deck_bytes
from scala40_net.private.encoding import Reader, Writer
from scala40_net.private.group import (
    G,
    L,
    Point,
    ScalarSource,
    base_times,
    hash_to_point,
    total,
    weighted,
)
from scala40_net.private.proofs import ProofContext, Transcript

GENERATOR_TAG = b"scala40/private/v1/generator"


@cache
def generators(n: int) -> tuple[Point, tuple[Point, ...]]:
    """``h`` and ``h_0 … h_{n-1}``: independent elements nobody knows a logarithm between."""
    h = hash_to_point(GENERATOR_TAG, b"h")
    return h, tuple(hash_to_point(GENERATOR_TAG, b"h_i", i.to_bytes(2, "big")) for i in range(n))


@cache
def _generators_total(n: int) -> Point:
    return total(generators(n)[1])


@dataclass(frozen=True)
class ShuffleProof:
    """``c`` (permutation commitment), ``ĉ`` (commitment chain), the challenge, the responses."""

    commitments: tuple[Point, ...]
    chain: tuple[Point, ...]
    challenge: int
    s1: int
    s2: int
    s3: int
    s4: int
    s_hat: tuple[int, ...]
    s_prime: tuple[int, ...]

    def write(self, w: Writer) -> None:
        w.points(self.commitments).points(self.chain).scalar(self.challenge)
        w.scalar(self.s1).scalar(self.s2).scalar(self.s3).scalar(self.s4)
        w.scalars(self.s_hat).scalars(self.s_prime)

    @staticmethod
    def read(r: Reader) -> ShuffleProof:
        commitments = tuple(r.points())
        chain = tuple(r.points())
        challenge = r.scalar()
        s1, s2, s3, s4 = r.scalar(), r.scalar(), r.scalar(), r.scalar()
        return ShuffleProof(
            commitments, chain, challenge, s1, s2, s3, s4, tuple(r.scalars()), tuple(r.scalars())
        )


def random_permutation(n: int, draw: ScalarSource) -> list[int]:
    """Fisher–Yates with indices from ``draw`` (its bias below 2^-240 is negligible)."""
    psi = list(range(n))
    for i in range(n - 1, 0, -1):
        j = draw() % (i + 1)
        psi[i], psi[j] = psi[j], psi[i]
    return psi


def reencrypt_and_permute(
    deck: Sequence[Ciphertext], joint_key: Point, psi: Sequence[int], draw: ScalarSource
) -> tuple[Deck, list[int]]:
    """Output ``i`` = input ``ψ(i)`` re-encrypted; returns the deck and the ``r'_i``."""
    rand = [draw() for _ in deck]
    out = tuple(deck[psi[i]].reencrypted(joint_key, rand[i]) for i in range(len(deck)))
    return out, rand


def _opening(
    ctx: ProofContext, joint_key: Point, deck: Sequence[Ciphertext], out: Sequence[Ciphertext],
    commitments: Sequence[Point],
) -> tuple[Transcript, list[int]]:
    n = len(deck)
    tr = ctx.transcript(b"shuffle")
    tr.append(b"N", n.to_bytes(4, "big"))
    tr.append_point(b"Y", joint_key)
    tr.append(b"input", deck_bytes(deck))
    tr.append(b"output", deck_bytes(out))
    tr.append_points(b"c", tuple(commitments))
    u = [tr.challenge(b"u" + i.to_bytes(2, "big")) for i in range(n)]
    return tr, u


def _close(
    tr: Transcript, chain: Sequence[Point], t1: Point, t2: Point, t3: Point, t41: Point,
    t42: Point, t_hat: Sequence[Point],
) -> int:
    tr.append_points(b"c_hat", tuple(chain))
    for label, p in ((b"t1", t1), (b"t2", t2), (b"t3", t3), (b"t41", t41), (b"t42", t42)):
        tr.append_point(label, p)
    tr.append_points(b"t_hat", tuple(t_hat))
    return tr.challenge(b"c")


def prove_shuffle(
    ctx: ProofContext,
    joint_key: Point,
    deck: Sequence[Ciphertext],
    out: Sequence[Ciphertext],
    psi: Sequence[int],
    rand: Sequence[int],
    draw: ScalarSource,
) -> ShuffleProof:
    """GenShuffleProof: that ``out`` is ``deck`` permuted by ``ψ`` and re-encrypted by ``r'``."""
    n = len(deck)
    h, hs = generators(n)
    # GenPermutationCommitment: c_{ψ(i)} = r_{ψ(i)}·G + h_i.
    r = [0] * n
    commitments: list[Point] = [h] * n
    for i in range(n):
        j = psi[i]
        r[j] = draw()
        commitments[j] = base_times(r[j]) + hs[i]
    tr, u = _opening(ctx, joint_key, deck, out, commitments)
    u_prime = [u[psi[i]] for i in range(n)]
    # GenCommitmentChain: ĉ_i = r̂_i·G + u'_i·ĉ_{i-1}, ĉ_{-1} = h.
    r_hat = [draw() for _ in range(n)]
    chain: list[Point] = []
    previous = h
    for i in range(n):
        previous = base_times(r_hat[i]) + u_prime[i] * previous
        chain.append(previous)
    v = [1] * n
    for i in range(n - 2, -1, -1):
        v[i] = u_prime[i + 1] * v[i + 1] % L
    r_bar = sum(r) % L
    r_hat_sum = sum(a * b for a, b in zip(r_hat, v, strict=True)) % L
    r_tilde = sum(a * b for a, b in zip(r, u, strict=True)) % L
    r_prime = sum(a * b for a, b in zip(rand, u_prime, strict=True)) % L
    w1, w2, w3, w4 = draw(), draw(), draw(), draw()
    w_hat = [draw() for _ in range(n)]
    w_prime = [draw() for _ in range(n)]
    t1 = base_times(w1)
    t2 = base_times(w2)
    t3 = base_times(w3) + weighted(hs, w_prime)
    t41 = weighted([ct.b for ct in out], w_prime) - w4 * joint_key
    t42 = weighted([ct.a for ct in out], w_prime) - base_times(w4)
    before = [h, *chain[:-1]]
    t_hat = [base_times(w_hat[i]) + w_prime[i] * before[i] for i in range(n)]
    c = _close(tr, chain, t1, t2, t3, t41, t42, t_hat)
    return ShuffleProof(
        commitments=tuple(commitments),
        chain=tuple(chain),
        challenge=c,
        s1=(w1 + c * r_bar) % L,
        s2=(w2 + c * r_hat_sum) % L,
        s3=(w3 + c * r_tilde) % L,
        s4=(w4 + c * r_prime) % L,
        s_hat=tuple((w_hat[i] + c * r_hat[i]) % L for i in range(n)),
        s_prime=tuple((w_prime[i] + c * u_prime[i]) % L for i in range(n)),
    )


def shuffle_holds(
    ctx: ProofContext,
    joint_key: Point,
    deck: Sequence[Ciphertext],
    out: Sequence[Ciphertext],
    proof: ShuffleProof,
) -> bool:
    """CheckShuffleProof: recompute every ``t`` from the responses, and the challenge from them."""
    n = len(deck)
    if n < 2 or len(out) != n:
        return False
    sizes = (len(proof.commitments), len(proof.chain), len(proof.s_hat), len(proof.s_prime))
    if any(size != n for size in sizes):
        return False
    h, hs = generators(n)
    tr, u = _opening(ctx, joint_key, deck, out, proof.commitments)
    c = proof.challenge
    u_product = 1
    for x in u:
        u_product = u_product * x % L
    c_bar = total(proof.commitments) - _generators_total(n)
    c_hat = proof.chain[-1] - u_product * h
    c_tilde = weighted(proof.commitments, u)
    in_a = weighted([ct.a for ct in deck], u)
    in_b = weighted([ct.b for ct in deck], u)
    t1 = base_times(proof.s1) - c * c_bar
    t2 = base_times(proof.s2) - c * c_hat
    t3 = base_times(proof.s3) + weighted(hs, proof.s_prime) - c * c_tilde
    t41 = weighted([ct.b for ct in out], proof.s_prime) - proof.s4 * joint_key - c * in_b
    t42 = weighted([ct.a for ct in out], proof.s_prime) - base_times(proof.s4) - c * in_a
    before = [h, *proof.chain[:-1]]
    t_hat = [
        base_times(proof.s_hat[i]) + proof.s_prime[i] * before[i] - c * proof.chain[i]
        for i in range(n)
    ]
    return _close(tr, proof.chain, t1, t2, t3, t41, t42, t_hat) == c


def shuffle_deck(
    ctx: ProofContext, joint_key: Point, deck: Sequence[Ciphertext], draw: ScalarSource
) -> tuple[Deck, ShuffleProof]:
    """A seat's turn: a fresh permutation and re-encryption of ``deck``, with its proof."""
    psi = random_permutation(len(deck), draw)
    out, rand = reencrypt_and_permute(deck, joint_key, psi, draw)
    return out, prove_shuffle(ctx, joint_key, deck, out, psi, rand, draw)


__all__ = ["G", "ShuffleProof", "prove_shuffle", "shuffle_deck", "shuffle_holds"]
