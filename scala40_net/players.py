"""A player's own Ed25519 key: kept owner-only, moved by its owner, proving a join to a host."""

from __future__ import annotations

from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from scala40_net.fairdeal.identity import PUBLIC_KEY_BYTES, SIGNATURE_BYTES, SigningKey
from scala40_net.fairdeal.spec import lp, text_bytes

KEY_FILE_NAME = "player_ed25519.pem"
JOIN_TAG = b"scala40/join/v1"
NONCE_BYTES = 32
# The groups of the fingerprint shown beside a name: enough to tell two Adas apart.
SHORT_GROUPS = 2


# Ed25519's points of small order (libsodium's list, the sign bit cleared), two of them also
# written with y not reduced below p: a "signature" by one of them holds for many messages
# without any private key behind it, so such a key proves nothing.
_SMALL_ORDER = frozenset(
    bytes.fromhex(h)
    for h in (
        "00" * 32,
        "01" + "00" * 31,
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
        "ec" + "ff" * 30 + "7f",
        "ed" + "ff" * 30 + "7f",
        "ee" + "ff" * 30 + "7f",
    )
)
_P = 2**255 - 19


def weak_key(public_key: bytes) -> bool:
    """Whether a public key's signatures prove nothing: not 32 bytes, a point of small order,
    or a y not written below p.

    >>> weak_key(bytes(32)), weak_key(PlayerKey.generate().public_key)
    (True, False)
    """
    if len(public_key) != PUBLIC_KEY_BYTES:
        return True
    unsigned = public_key[:31] + bytes([public_key[31] & 0x7F])
    return unsigned in _SMALL_ORDER or int.from_bytes(unsigned, "little") >= _P


def join_message(host_fingerprint: str, table_id: str, player_name: str, nonce: bytes) -> bytes:
    """What a player key signs to join: ``"scala40/join/v1" || lp(host_fingerprint) ||
    lp(table_id) || lp(player_name) || lp(nonce)`` (docs/PROTOCOL.md, Players).

    >>> join_message("AB", "t1", "Ada", b"n").hex()
    '7363616c6134302f6a6f696e2f763100000002414200000002743100000003416461000000016e'
    """
    return (
        JOIN_TAG
        + lp(text_bytes(host_fingerprint))
        + lp(text_bytes(table_id))
        + lp(text_bytes(player_name))
        + lp(nonce)
    )


def verify_join(
    public_key: bytes,
    signature: bytes,
    host_fingerprint: str,
    table_id: str,
    player_name: str,
    nonce: bytes,
) -> bool:
    """Whether ``signature`` is the key's signature of that join (never, by a weak key)."""
    if weak_key(public_key) or len(signature) != SIGNATURE_BYTES:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(
            signature, join_message(host_fingerprint, table_id, player_name, nonce)
        )
    except (InvalidSignature, ValueError):
        return False
    return True


def short_fingerprint(full: str) -> str:
    """The first groups of a key's fingerprint, shown beside a name.

    >>> short_fingerprint("6668-7AAD-F862-BD77-6C8F-C18B-8E9F-8E20")
    '6668-7AAD'
    """
    return "-".join(full.split("-")[:SHORT_GROUPS])


class PlayerKey(SigningKey):
    """A player's signing key; ``load_or_create`` keeps it across starts."""

    KIND = "player key"

    def sign_join(
        self, host_fingerprint: str, table_id: str, player_name: str, nonce: bytes
    ) -> bytes:
        return self._private_key.sign(join_message(host_fingerprint, table_id, player_name, nonce))

    @classmethod
    def load_or_create(cls, directory: Path) -> PlayerKey:
        """The key kept in ``directory`` (``player_ed25519.pem``), made on first use; a file
        others may read is refused, as the host refuses its own."""
        return cls.kept_at(directory / KEY_FILE_NAME)
