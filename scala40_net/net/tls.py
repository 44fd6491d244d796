"""TLS bound to the host's identity: one fingerprint names the host for its link and its deals.

The host's certificate is self-signed with an ECDSA P-256 key (gRPC's TLS stack
does not sign handshakes with Ed25519) and carries one extension, under an
OID of the UUID arc 2.25, that binds it to the host's Ed25519 deal-signing
identity: the identity's 32-byte public key and its signature over
``"scala40/tls-binding/v1" || SubjectPublicKeyInfo``. A client fetches the
certificate, checks that signature, computes the identity's fingerprint
(``fairdeal.identity.fingerprint``) and compares it with the one it pins (an
invite, or the one remembered on first use); only then does it open the gRPC
channel, with exactly that certificate as its only root. So the fingerprint a
player checks says both "this is the host I was invited to" and "these deal
records are signed by it" (docs/PROTOCOL.md "TLS and pinning").
"""

from __future__ import annotations

import asyncio
import datetime
import socket
import ssl
from dataclasses import dataclass

import grpc
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.x509.oid import NameOID

from scala40_net.fairdeal.identity import (
    PUBLIC_KEY_BYTES,
    SIGNATURE_BYTES,
    TLS_BINDING_TAG,
    HostIdentity,
    fingerprint,
)

BINDING_OID = x509.ObjectIdentifier("2.25.209438493393059630376590821578280726629")
BINDING_BYTES = PUBLIC_KEY_BYTES + SIGNATURE_BYTES  # the extension's value, 96 bytes
# The name in the certificate, and the one clients check it against (an address may change,
# the certificate does not): every client sets it as the TLS target name.
HOST_NAME = "scala40-host"
CONNECT_TIMEOUT = 10.0
CHECK_TIMEOUT = 3.0  # a look at who answers, after a call failed: short, as the call waited


class PinError(Exception):
    """The host's certificate is not bound to the fingerprint expected (or to any).

    ``found``: the fingerprint the host proved ("" when its certificate binds none);
    ``expected``: the one pinned ("" when none was, for a certificate that binds none).
    """

    def __init__(self, detail: str, found: str = "", expected: str = "") -> None:
        super().__init__(detail)
        self.found = found
        self.expected = expected


@dataclass(frozen=True)
class HostCertificate:
    """What a client learned of a host from its certificate, before any call."""

    pem: bytes
    fingerprint: str  # the Ed25519 identity's, the one the fair deal signs with


def make_certificate(identity: HostIdentity) -> tuple[bytes, bytes]:
    """A new TLS key and self-signed certificate bound to ``identity``: (key PEM, cert PEM)."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    certificate = build_certificate(key, binding_value(identity, key.public_key()), now)
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return key_pem, certificate.public_bytes(serialization.Encoding.PEM)


def binding_value(identity: HostIdentity, tls_key: ec.EllipticCurvePublicKey) -> bytes:
    """The extension's value: the identity's public key and its signature over the TLS key.

    These 96 bytes are the extension's ``extnValue`` contents as they are (RFC 5280
    ``OCTET STRING``), with no DER type of their own inside.
    """
    spki = tls_key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return identity.public_key + identity.sign_tls_binding(spki)


def build_certificate(
    key: ec.EllipticCurvePrivateKey, binding: bytes | None, now: datetime.datetime
) -> x509.Certificate:
    """The host's self-signed certificate for ``key``, carrying ``binding`` (None: none)."""
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, HOST_NAME)])
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        # Pinned, never checked against a calendar by our clients: long-lived on purpose.
        .not_valid_after(now + datetime.timedelta(days=365 * 30))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(HOST_NAME)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
    )
    if binding is not None:
        builder = builder.add_extension(
            x509.UnrecognizedExtension(BINDING_OID, binding), critical=False
        )
    return builder.sign(key, hashes.SHA256())


def bound_fingerprint(certificate_pem_or_der: bytes) -> str:
    """The fingerprint of the identity the certificate is bound to; ``PinError`` if none is."""
    try:
        if certificate_pem_or_der.lstrip().startswith(b"-----"):
            certificate = x509.load_pem_x509_certificate(certificate_pem_or_der)
        else:
            certificate = x509.load_der_x509_certificate(certificate_pem_or_der)
        binding = certificate.extensions.get_extension_for_oid(BINDING_OID).value
    except (ValueError, x509.ExtensionNotFound) as error:
        raise PinError(f"the host's certificate is not a Scala 40 host's ({error})") from None
    raw = binding.value if isinstance(binding, x509.UnrecognizedExtension) else b""
    if len(raw) != BINDING_BYTES:
        # The 96 bytes are extnValue's contents as they are: no inner DER type, nothing else.
        raise PinError(f"the host's certificate has a malformed binding ({len(raw)} bytes, not 96)")
    identity, signature = raw[:PUBLIC_KEY_BYTES], raw[PUBLIC_KEY_BYTES:]
    spki = certificate.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    try:
        Ed25519PublicKey.from_public_bytes(identity).verify(signature, TLS_BINDING_TAG + spki)
    except (ValueError, InvalidSignature):
        raise PinError("the host's certificate is not signed by the identity it names") from None
    return fingerprint(identity)


def _fetch_der(host: str, port: int, timeout: float = CONNECT_TIMEOUT) -> bytes:
    context = ssl.create_default_context()
    # Nothing is trusted yet: the certificate is judged by its binding and the pin, below.
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["h2"])
    with (
        socket.create_connection((host, port), timeout=timeout) as raw,
        context.wrap_socket(raw, server_hostname=HOST_NAME) as tls,
    ):
        der = tls.getpeercert(binary_form=True)
    if not der:
        raise PinError("the host sent no certificate")
    return der


async def fetch_certificate(
    host: str, port: int, timeout: float = CONNECT_TIMEOUT
) -> HostCertificate:
    """The host's certificate and the identity it is bound to (OSError if nobody answers)."""
    der = await asyncio.to_thread(_fetch_der, host, port, timeout)
    pem = x509.load_der_x509_certificate(der).public_bytes(serialization.Encoding.PEM)
    return HostCertificate(pem, bound_fingerprint(der))


def check_pin(found: HostCertificate, expected: str) -> None:
    """``PinError`` naming both fingerprints when the host is not the one expected."""
    if _normal(found.fingerprint) != _normal(expected):
        raise PinError(
            f"this host's fingerprint is {found.fingerprint}, not {expected.upper()}: "
            "it is not the host you were invited to (or it was given a new identity)",
            found.fingerprint,
            expected.upper(),
        )


def _normal(text: str) -> str:
    return text.replace("-", "").replace(" ", "").upper()


@dataclass(frozen=True)
class PinnedHost:
    """Where a pinned channel goes and the identity it trusts: what judges a failed call.

    gRPC says only "handshake failed" (and logs it) when another host answers at the
    address; ``check`` asks the host there itself, so a seat can tell a host that is down
    from one that is not the host it joined.
    """

    host: str
    port: int
    fingerprint: str
    # How long a check waits for whoever answers: one slower than that (a busy machine) is
    # taken for nobody, and the seat waits and asks again.
    check_timeout: float = CHECK_TIMEOUT

    async def check(self, timeout: float | None = None) -> None:
        """``PinError`` when the host answering there now is another one (or not a Scala 40
        host); OSError when nobody answers (within ``timeout``, else ``check_timeout``)."""
        try:
            wait = self.check_timeout if timeout is None else timeout
            found = await fetch_certificate(self.host, self.port, wait)
        except PinError as error:
            raise PinError(str(error), "", self.fingerprint.upper()) from None
        check_pin(found, self.fingerprint)


def secure_channel(
    target: str,
    certificate: HostCertificate,
    options: tuple[tuple[str, int | str], ...] = (),
) -> grpc.aio.Channel:
    """A channel that trusts exactly ``certificate`` (checked before, with ``check_pin``)."""
    credentials = grpc.ssl_channel_credentials(root_certificates=certificate.pem)
    return grpc.aio.secure_channel(
        target, credentials, options=(*options, ("grpc.ssl_target_name_override", HOST_NAME))
    )


async def pinned_channel(
    host: str,
    port: int,
    expected: str | None,
    options: tuple[tuple[str, int | str], ...] = (),
) -> tuple[grpc.aio.Channel, HostCertificate]:
    """Fetch the certificate, check it against ``expected`` (None: any bound one, for a
    first use the caller remembers), and open a channel to it."""
    found = await fetch_certificate(host, port)
    if expected is not None:
        check_pin(found, expected)
    target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return secure_channel(target, found, options), found
