"""The private tables' known answers (tests/vectors/private_v1.json), checked and recomputed."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from scala40_net.private.audit import audit_deal
from scala40_net.private.chain import ChainChecker
from scala40_net.private.elgamal import Ciphertext, card_of, card_point
from scala40_net.private.encoding import Reader
from scala40_net.private.group import Point, base_times
from scala40_net.private.messages import Envelope, signature_holds, table_code
from scala40_net.private.proofs import KeyProof, ProofContext, ShareProof
from scala40_net.private.protocol import DealSetup
from scala40_net.private.shuffle import ShuffleProof, shuffle_holds

VECTORS_DIR = Path(__file__).parent / "vectors"
VECTORS: dict[str, Any] = json.loads((VECTORS_DIR / "private_v1.json").read_text())


def point(text: str) -> Point:
    return Point.from_bytes(bytes.fromhex(text))


def ciphertext(text: str) -> Ciphertext:
    return Ciphertext.read(Reader(bytes.fromhex(text)))


def test_the_card_points_are_the_hash_of_each_card_id() -> None:
    group = VECTORS["group"]
    assert [card_point(c).data.hex() for c in range(108)] == group["card_points"]
    assert base_times(1).data.hex() == group["base"]


def test_the_key_proof_and_the_share_vector_hold() -> None:
    v = VECTORS["key_and_share"]
    public = point(v["public"])
    assert base_times(int(v["secret"], 16)) == public
    ctx = ProofContext(v["table_id"], v["deal_no"], v["seat"], bytes.fromhex(v["key_step"]))
    assert KeyProof.read(Reader(bytes.fromhex(v["key_proof"]))).holds(ctx, public)
    ct = ciphertext(v["ciphertext"])
    d = point(v["share"])
    share_ctx = ProofContext(v["table_id"], v["deal_no"], v["seat"],
                             bytes.fromhex(v["share_step"]))
    assert ShareProof.read(Reader(bytes.fromhex(v["share_proof"]))).holds(share_ctx, public,
                                                                           ct.a, d)
    # One seat's key, one share: the card is open.
    assert card_of(ct.b - d, 108) == v["card"]


def test_the_shuffle_vector_holds_and_is_its_permutation() -> None:
    v = VECTORS["shuffle"]
    joint = point(v["joint_key"])
    deck = tuple(ciphertext(c) for c in v["input"])
    out = tuple(ciphertext(c) for c in v["output"])
    ctx = ProofContext(v["table_id"], v["deal_no"], v["seat"], bytes.fromhex(v["step"]))
    proof = ShuffleProof.read(Reader(bytes.fromhex(v["proof"])))
    assert shuffle_holds(ctx, joint, deck, out, proof)
    for i, j in enumerate(v["permutation"]):
        assert out[i] == deck[j].reencrypted(joint, int(v["reencryption"][i], 16))


def test_the_deal_vector_signatures_chain_and_audit() -> None:
    v = VECTORS["deal"]
    keys = {int(s): bytes.fromhex(k) for s, k in v["signing_keys"].items()}
    assert table_code(v["table_id"], keys) == v["table_code"]
    for message in v["transcript"]:
        env = Envelope.parse(bytes.fromhex(message))
        assert signature_holds(keys[env.author], env.signed_part(), env.signature)
    setup = DealSetup(v["table_id"], v["deal_no"], tuple(v["seats"]), v["dealer"],
                      v["deck_size"])
    checker = ChainChecker(v["table_id"], v["deal_no"], keys, setup.digest(keys))
    for message in v["transcript"]:
        checker.accept(bytes.fromhex(message))
    audit = audit_deal(setup, keys, [bytes.fromhex(m) for m in v["transcript"]])
    assert list(audit.deck) == v["deck"]
    assert {str(s): cards for s, cards in audit.dealt.hands.items()} == v["hands"]
    assert audit.dealt.first_discard == v["first_discard"]
    assert audit.dealt.stock[:2] == v["drawn"]


def test_the_committed_vectors_are_what_the_generator_writes() -> None:
    path = VECTORS_DIR / "make_private_v1.py"
    spec = importlib.util.spec_from_file_location("make_private_v1", path)
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    assert generator.build() == VECTORS
