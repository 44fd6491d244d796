"""Write tests/vectors/private_v1.json, the known answers of docs/PRIVATE_TABLES.md.

Run from the repository root: ``.venv/bin/python tests/vectors/make_private_v1.py``.
Every random scalar comes from ``seeded_scalars`` of a fixed label (in play they come from
``secrets``) and every signing key from a fixed seed, so the file only changes when the
protocol does; tests/test_private_vectors.py checks it and recomputes it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from scala40_net.private.audit import audit_deal
from scala40_net.private.elgamal import card_point, open_deck, share
from scala40_net.private.encoding import Writer
from scala40_net.private.group import base_times, seeded_scalars
from scala40_net.private.local import LocalDeal
from scala40_net.private.messages import Ed25519Signer, table_code
from scala40_net.private.proofs import KeyProof, ProofContext, ShareProof
from scala40_net.private.protocol import DealSetup, share_step, shuffle_step
from scala40_net.private.shuffle import (
    generators,
    prove_shuffle,
    random_permutation,
    reencrypt_and_permute,
)

OUT = Path(__file__).with_name("private_v1.json")


def label(text: str) -> bytes:
    return hashlib.sha256(text.encode("ascii")).digest()


def hexes(items: Any) -> list[str]:
    return [bytes(item).hex() for item in items]


def build_group() -> dict[str, Any]:
    h, hs = generators(4)
    return {
        "base": base_times(1).data.hex(),
        "card_points": [card_point(c).data.hex() for c in range(108)],
        "h": h.data.hex(),
        "h_i": hexes(hs),
        "seeded_scalars": {
            "seed": label("scalars").hex(),
            "first": [f"{seeded_scalars(label('scalars'))():064x}"],
        },
    }


def build_key_and_share() -> dict[str, Any]:
    draw = seeded_scalars(label("key and share"))
    secret = draw()
    public = base_times(secret)
    ctx = ProofContext("vector-table", 4, 1, b"key")
    proof = KeyProof.prove(ctx, secret, public, draw)
    ct = open_deck([12])[0].reencrypted(public, draw())
    d = share(secret, ct)
    share_ctx = ProofContext("vector-table", 4, 1, share_step(0, 5))
    share_proof = ShareProof.prove(share_ctx, secret, public, ct.a, d, draw)
    key_w, share_w = Writer(), Writer()
    proof.write(key_w)
    share_proof.write(share_w)
    return {
        "table_id": "vector-table", "deal_no": 4, "seat": 1,
        "secret": f"{secret:064x}", "public": public.data.hex(),
        "key_step": b"key".hex(), "key_proof": bytes(key_w).hex(),
        "ciphertext": bytes(ct).hex(), "card": 12,
        "share_step": share_ctx.step.hex(), "share": d.data.hex(),
        "share_proof": bytes(share_w).hex(),
    }


def build_shuffle() -> dict[str, Any]:
    draw = seeded_scalars(label("shuffle"))
    joint = base_times(draw()) + base_times(draw())
    deck = open_deck([3, 14, 25, 36, 52, 53, 60, 107])
    ctx = ProofContext("vector-table", 4, 2, shuffle_step(0, 0))
    psi = random_permutation(len(deck), draw)
    out, rand = reencrypt_and_permute(deck, joint, psi, draw)
    proof = prove_shuffle(ctx, joint, deck, out, psi, rand, draw)
    w = Writer()
    proof.write(w)
    return {
        "table_id": "vector-table", "deal_no": 4, "seat": 2, "step": ctx.step.hex(),
        "joint_key": joint.data.hex(), "input": hexes(deck), "permutation": psi,
        "reencryption": [f"{r:064x}" for r in rand], "output": hexes(out),
        "proof": bytes(w).hex(),
    }


def build_deal() -> dict[str, Any]:
    """A whole 2-seat, one-deck deal: keys, shuffles, cut, hands, first discard, draws, reveals."""
    setup = DealSetup("vector-deal", 1, (0, 1), dealer=1, deck_size=54)
    signers = {s: Ed25519Signer.from_seed(label(f"signer {s}")) for s in setup.seats}
    draws = {s: seeded_scalars(label(f"seat {s}")) for s in setup.seats}
    deal = LocalDeal(setup, signers, draws)
    deal.exchange_keys()
    deal.shuffle_all()
    deal.cut(20)
    hands = deal.deal_hands()
    first_discard = deal.first_discard()
    drawn = [deal.draw(0), deal.draw(1)]
    deal.reveal_all()
    audit = audit_deal(setup, deal.signing_keys, deal.transcript)
    return {
        "table_id": setup.table_id, "deal_no": setup.deal_no, "seats": list(setup.seats),
        "dealer": setup.dealer, "deck_size": setup.deck_size,
        "signing_seeds": {str(s): label(f"signer {s}").hex() for s in setup.seats},
        "signing_keys": {str(s): k.hex() for s, k in deal.signing_keys.items()},
        "table_code": table_code(setup.table_id, deal.signing_keys),
        "transcript": [m.hex() for m in deal.transcript],
        "deck": list(audit.deck),
        "hands": {str(s): cards for s, cards in hands.items()},
        "first_discard": first_discard,
        "drawn": drawn,
    }


def build() -> dict[str, Any]:
    return {
        "version": "scala40/private/v1",
        "about": "Known answers of docs/PRIVATE_TABLES.md; see its section 'Test vectors'.",
        "group": build_group(),
        "key_and_share": build_key_and_share(),
        "shuffle": build_shuffle(),
        "deal": build_deal(),
    }


def main() -> None:
    OUT.write_text(json.dumps(build(), indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
