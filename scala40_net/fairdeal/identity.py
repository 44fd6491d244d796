"""The host's long-lived Ed25519 identity: kept owner-only, shown as a fingerprint."""

from __future__ import annotations

from pathlib import Path
from typing import Self

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from scala40_net import secretfile
from scala40_net.fairdeal.chain import record_message
from scala40_net.fairdeal.spec import sha256

KEY_FILE_NAME = "host_identity_ed25519.pem"
TLS_BINDING_TAG = b"scala40/tls-binding/v1"
DERIVED_TAG = b"scala40/host-derived/v1"
PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64
FINGERPRINT_BYTES = 16


class IdentityError(secretfile.SecretFileError):
    """The identity key file cannot be used (unsafe permissions, unreadable, not a key)."""


def check_private(path: Path) -> None:
    """Refuse a key file that others than its owner may read or write (IdentityError)."""
    try:
        secretfile.check_private(path)
    except secretfile.SecretFileError as error:
        raise IdentityError(str(error)) from None


def fingerprint(public_key: bytes) -> str:
    """SHA-256 of the raw 32-byte public key, first 16 bytes as 8 groups of 4 upper-case hex digits.

    >>> fingerprint(bytes(32))
    '6668-7AAD-F862-BD77-6C8F-C18B-8E9F-8E20'
    """
    digest = sha256(public_key)[:FINGERPRINT_BYTES].hex().upper()
    return "-".join(digest[i : i + 4] for i in range(0, len(digest), 4))


def verify_record_signature(
    public_key: bytes, table_id: str, deal_no: int, head: bytes, signature: bytes
) -> bool:
    """Whether ``signature`` is the host's Ed25519 signature of the deal record message."""
    if len(public_key) != PUBLIC_KEY_BYTES or len(signature) != SIGNATURE_BYTES:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(
            signature, record_message(table_id, deal_no, head)
        )
    except InvalidSignature:
        return False
    return True


class SigningKey:
    """An Ed25519 private key kept owner-only in one file; ``kept_at`` keeps it across starts.

    ``KIND`` names what the key is in the sentence refusing a file that holds no such key.
    """

    KIND = "signing key"

    def __init__(self, private_key: Ed25519PrivateKey) -> None:
        self._private_key = private_key
        self.public_key: bytes = private_key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )

    @classmethod
    def generate(cls) -> Self:
        """A fresh key kept only in memory until written."""
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_private_bytes(cls, raw: bytes) -> Self:
        return cls(Ed25519PrivateKey.from_private_bytes(raw))

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    def pem(self) -> bytes:
        return self._private_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    @classmethod
    def from_pem(cls, pem: bytes, where: str) -> Self:
        """The key a PEM file holds; IdentityError naming ``where`` when it holds none."""
        try:
            key = serialization.load_pem_private_key(pem, password=None)
        except (ValueError, TypeError) as error:
            raise IdentityError(f"{where} is not a {cls.KIND}: {error}") from error
        if not isinstance(key, Ed25519PrivateKey):
            raise IdentityError(f"{where} holds a key that is not Ed25519")
        return cls(key)

    @classmethod
    def read(cls, path: Path) -> Self:
        """The key of ``path``, refused (IdentityError) when others may read it."""
        check_private(path)
        try:
            pem = path.read_bytes()
        except OSError as error:
            raise IdentityError(f"{path} cannot be read: {error}") from error
        return cls.from_pem(pem, str(path))

    def write(self, path: Path) -> None:
        """Keep the key at ``path``, owner-only (0600), replacing what was there at once."""
        secretfile.write_secret(path, self.pem())

    @classmethod
    def kept_at(cls, path: Path) -> Self:
        """The key of the file ``path``, made there (0600, its folder 0700) on first use; a
        file others may read is refused (IdentityError), as ssh does."""
        if path.exists():
            return cls.read(path)
        key = cls.generate()
        # Two starts at once keep one key, the first one's: the second reads it.
        if not secretfile.write_secret(path, key.pem(), replace=False):
            return cls.read(path)
        return key


class HostIdentity(SigningKey):
    """The host's signing key. Load it with ``load_or_create`` so the key survives restarts."""

    KIND = "host identity key"

    @classmethod
    def load_or_create(cls, data_dir: Path) -> HostIdentity:
        """Read ``data_dir/host_identity_ed25519.pem``, creating it (mode 0600) on first use.

        A key file that others than its owner may read is refused, as ssh
        does: the key is the host's word in every record it ever signed.
        """
        return cls.kept_at(data_dir / KEY_FILE_NAME)

    def sign_tls_binding(self, spki: bytes) -> bytes:
        """Sign ``"scala40/tls-binding/v1" || spki``: this identity vouches for that TLS key
        (``scala40_net.net.tls``). The tag keeps it apart from every record signature."""
        return self._private_key.sign(TLS_BINDING_TAG + spki)

    def derived_secret(self, purpose: bytes) -> bytes:
        """32 bytes of its own for ``purpose``, the same at every start (HKDF-SHA256 of the
        identity's private key): a key the host holds for a seat of its own (its host bot at
        a private table) without a file of its own to lose. Nothing derived reveals the
        identity, nor one purpose's secret another's."""
        raw = self._private_key.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )
        derive = HKDF(algorithm=hashes.SHA256(), length=32, salt=DERIVED_TAG, info=purpose)
        return derive.derive(raw)

    def sign_record(self, table_id: str, deal_no: int, head: bytes) -> bytes:
        """Sign ``"…/record" || lp(table_id) || be32(deal_no) || h_last``."""
        return self._private_key.sign(record_message(table_id, deal_no, head))
