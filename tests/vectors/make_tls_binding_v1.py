"""Write tests/vectors/tls_binding_v1.json: known answers of the TLS binding (PROTOCOL.md).

Run from the repository root: ``.venv/bin/python tests/vectors/make_tls_binding_v1.py``.
Every key comes from a fixed label (SHA-256 of it), so the identities, their
fingerprints and the certificates' public keys are the same on every run; an
ECDSA signature is not (a random nonce), so the certificates are made once and
committed, and tests/test_tls_binding_vectors.py checks each against the rules.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from scala40_net.fairdeal.identity import HostIdentity, fingerprint
from scala40_net.net import tls

OUT = Path(__file__).with_name("tls_binding_v1.json")
FORMAT = 1
# A fixed date, so that only the signatures differ from one run to the next.
MADE = datetime.datetime(2026, 12, 2, tzinfo=datetime.UTC)
P256_ORDER = int("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551", 16)


def seed(label: str) -> bytes:
    return hashlib.sha256(label.encode("ascii")).digest()


def identity(label: str) -> HostIdentity:
    return HostIdentity.from_private_bytes(seed(label))


def tls_key(label: str) -> ec.EllipticCurvePrivateKey:
    return ec.derive_private_key(int.from_bytes(seed(label)) % (P256_ORDER - 1) + 1, ec.SECP256R1())


def spki(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def case(
    name: str,
    key: ec.EllipticCurvePrivateKey,
    binding: bytes | None,
    pinned: HostIdentity,
    named: HostIdentity | None,
    accepted: bool,
    why: str,
) -> dict[str, Any]:
    der = tls.build_certificate(key, binding, MADE).public_bytes(serialization.Encoding.DER)
    certificate = x509.load_der_x509_certificate(der)
    return {
        "name": name,
        "certificate_pem": certificate.public_bytes(serialization.Encoding.PEM).decode("ascii"),
        "certificate_der": der.hex(),
        "spki": spki(key).hex(),
        "extension_value": binding.hex() if binding is not None else None,
        "named_identity": named.public_key.hex() if named is not None else None,
        "named_fingerprint": fingerprint(named.public_key) if named is not None else None,
        "pinned_fingerprint": pinned.fingerprint,
        "accepted": accepted,
        "why": why,
    }


def build() -> dict[str, Any]:
    host, stranger = identity("tls vectors: the host"), identity("tls vectors: another host")
    key = tls_key("tls vectors: the host's TLS key")
    other_key = tls_key("tls vectors: another TLS key")
    good = tls.binding_value(host, key.public_key())
    return {
        "version": "scala40/tls-binding/v1",
        "format": FORMAT,
        "about": "Known answers of docs/PROTOCOL.md 'TLS and pinning'; see its 'Test vectors'.",
        "oid": tls.BINDING_OID.dotted_string,
        "tag": tls.TLS_BINDING_TAG.decode("ascii"),
        "host_identity": {
            "ed25519_private_key": seed("tls vectors: the host").hex(),
            "public_key": host.public_key.hex(),
            "fingerprint": host.fingerprint,
        },
        "cases": [
            case(
                "bound to the host", key, good, host, host, True,
                "the signature verifies over the tag and this certificate's SPKI, and the "
                "named identity's fingerprint is the one pinned",
            ),
            case(
                "a bad binding", other_key, good, host, host, False,
                "the host's binding copied from another certificate: its signature is over "
                "that certificate's SPKI, not this one's",
            ),
            case(
                "another identity's binding", other_key,
                tls.binding_value(stranger, other_key.public_key()), host, stranger, False,
                "a valid binding, to another identity: its fingerprint is not the one pinned",
            ),
            case(
                "the value wrapped in a DER OCTET STRING", key, bytes([0x04, 0x60]) + good,
                host, None, False,
                "extnValue holds 98 bytes (04 60 and the 96): the 96 raw bytes are the "
                "whole value, with no inner DER type",
            ),
            case(
                "no binding", key, None, host, None, False,
                "a certificate without the extension is not a Scala 40 host's",
            ),
        ],
    }  # fmt: skip


def main() -> None:
    OUT.write_text(json.dumps(build(), indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
