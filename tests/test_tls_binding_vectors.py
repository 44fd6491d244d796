"""The TLS binding's known answers (tests/vectors/tls_binding_v1.json) and the project's pinning."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from scala40_net.fairdeal.identity import HostIdentity, fingerprint
from scala40_net.net import tls

VECTORS = json.loads((Path(__file__).parent / "vectors" / "tls_binding_v1.json").read_text())
CASES: list[dict[str, Any]] = VECTORS["cases"]


def _generator() -> Any:
    path = Path(__file__).parent / "vectors" / "make_tls_binding_v1.py"
    spec = importlib.util.spec_from_file_location("make_tls_binding_v1", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_file_says_its_format_and_covers_each_way_a_binding_fails() -> None:
    assert VECTORS["format"] == 1 and VECTORS["oid"] == tls.BINDING_OID.dotted_string
    assert [c["accepted"] for c in CASES] == [True, False, False, False, False]
    host = VECTORS["host_identity"]
    identity = HostIdentity.from_private_bytes(bytes.fromhex(host["ed25519_private_key"]))
    assert identity.public_key.hex() == host["public_key"]
    assert fingerprint(identity.public_key) == host["fingerprint"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_projects_pinning_accepts_or_refuses_each_certificate(case: dict[str, Any]) -> None:
    der = bytes.fromhex(case["certificate_der"])
    for form in (der, case["certificate_pem"].encode("ascii")):
        if case["accepted"]:
            found = tls.bound_fingerprint(form)
            assert found == case["named_fingerprint"] == case["pinned_fingerprint"]
            tls.check_pin(tls.HostCertificate(case["certificate_pem"].encode(), found), found)
            continue
        try:
            found = tls.bound_fingerprint(form)
        except tls.PinError:
            continue  # refused before any pin is looked at: the binding itself is wrong
        # A valid binding to another identity: the pin refuses it, naming both.
        assert found == case["named_fingerprint"] != case["pinned_fingerprint"]
        with pytest.raises(tls.PinError) as refused:
            tls.check_pin(tls.HostCertificate(b"", found), case["pinned_fingerprint"])
        assert (refused.value.found, refused.value.expected) == (found, case["pinned_fingerprint"])


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_each_certificate_holds_what_the_vector_says(case: dict[str, Any]) -> None:
    certificate = x509.load_der_x509_certificate(bytes.fromhex(case["certificate_der"]))
    spki = certificate.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    assert spki.hex() == case["spki"]
    try:
        value = certificate.extensions.get_extension_for_oid(tls.BINDING_OID).value
    except x509.ExtensionNotFound:
        assert case["extension_value"] is None
        return
    # extnValue's contents are the value as it is: no DER type of its own inside.
    assert isinstance(value, x509.UnrecognizedExtension)
    assert value.value.hex() == case["extension_value"]
    if case["named_identity"] is not None:
        assert value.value[:32].hex() == case["named_identity"]


def test_the_keys_and_bindings_are_the_generators() -> None:
    # Ed25519 signs deterministically and the keys come from labels: only the certificates'
    # own ECDSA signatures change from one run of the generator to the next.
    fresh = _generator().build()
    assert fresh["host_identity"] == VECTORS["host_identity"]
    for made, kept in zip(fresh["cases"], CASES, strict=True):
        for field in ("name", "spki", "extension_value", "named_fingerprint", "accepted"):
            assert made[field] == kept[field], (kept["name"], field)
