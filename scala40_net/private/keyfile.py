"""A seat's per-deal key on disk (owner-only), so that a seat restarted mid-deal goes on.

The key is needed for every card of the deal, the seat's own and the others' (each needs
its share), so it is written, durably, before the seat's ``KEY`` message is sent. The
file is the 32-byte scalar and nothing else, mode 0600 in a directory only its owner reads.
"""

from __future__ import annotations

import os
from pathlib import Path

from scala40_net.fairdeal.identity import IdentityError, check_private
from scala40_net.private.group import SCALAR_BYTES, GroupError, scalar_bytes, scalar_from_bytes


class DealKeyError(Exception):
    """A per-deal key file that cannot be used: others may read it, or it holds no key."""


def save_deal_key(path: Path, secret: int) -> None:
    """Write ``secret`` to ``path`` (0600), synced, replacing it in one rename."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, scalar_bytes(secret))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(partial, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def load_deal_key(path: Path) -> int:
    """The per-deal key kept at ``path`` (DealKeyError if others may read it or it is no key)."""
    try:
        check_private(path)
    except IdentityError as exc:
        raise DealKeyError(str(exc)) from exc
    data = path.read_bytes()
    if len(data) != SCALAR_BYTES:
        raise DealKeyError(f"{path} holds no per-deal key ({len(data)} bytes)")
    try:
        return scalar_from_bytes(data)
    except GroupError as exc:
        raise DealKeyError(f"{path} holds no per-deal key: {exc}") from exc
