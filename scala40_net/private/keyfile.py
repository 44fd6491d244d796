"""A seat's per-deal key on disk (owner-only), so that a seat restarted mid-deal goes on.

The key is needed for every card of the deal, the seat's own and the others' (each needs
its share), so it is written, durably, before the seat's ``KEY`` message is sent. The
file is the 32-byte scalar and nothing else, mode 0600 in a directory only its owner reads.
"""

from __future__ import annotations

from pathlib import Path

from scala40_net.private.group import SCALAR_BYTES, GroupError, scalar_bytes, scalar_from_bytes
from scala40_net.secretfile import SecretFileError, read_secret, write_secret


class DealKeyError(Exception):
    """A per-deal key file that cannot be used: others may read it, or it holds no key."""


def save_deal_key(path: Path, secret: int) -> None:
    """Write ``secret`` to ``path`` (0600), synced, replacing it in one rename."""
    write_secret(path, scalar_bytes(secret))


def load_deal_key(path: Path) -> int:
    """The per-deal key kept at ``path`` (DealKeyError if others may read it or it is no key)."""
    try:
        data = read_secret(path)
    except SecretFileError as exc:
        raise DealKeyError(str(exc)) from exc
    if len(data) != SCALAR_BYTES:
        raise DealKeyError(f"{path} holds no per-deal key ({len(data)} bytes)")
    try:
        return scalar_from_bytes(data)
    except GroupError as exc:
        raise DealKeyError(f"{path} holds no per-deal key: {exc}") from exc
