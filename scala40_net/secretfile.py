"""Files only their owner may read: written whole and durably, refused when others may read them.

Every secret this project keeps on disk (the host's identity and TLS keys, a player's key,
a seat's per-deal key, the seats and seeds a client holds, its log) goes through here, so
each is kept the same way: mode 0600, in a folder made 0700, never seen half-written.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

PRIVATE_FILE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700
OTHERS_BITS = 0o077  # the group's and the world's read, write and search bits


class SecretFileError(Exception):
    """A secret file that cannot be used: others may read it, or it holds no secret."""


def readable_by_others(path: Path) -> bool:
    """Whether others than its owner may read or write ``path`` (its group or the world)."""
    return bool(path.stat().st_mode & OTHERS_BITS)


def check_private(path: Path) -> None:
    """Refuse a file that others than its owner may read or write (SecretFileError)."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & OTHERS_BITS:
        raise SecretFileError(
            f"{path} may be read by others (mode {mode:04o}); make it 0600 (chmod 600)"
        )


def read_secret(path: Path) -> bytes:
    """The bytes of ``path``, refused (SecretFileError) when others may read it."""
    check_private(path)
    return path.read_bytes()


def private_folder(folder: Path, *, tighten: bool = False) -> None:
    """Make ``folder`` (and its missing parents) readable by its owner alone; with ``tighten``
    one already there is made so too (a folder of this project's own, never one a user named)."""
    folder.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    if tighten:
        os.chmod(folder, PRIVATE_DIR_MODE)


def append_private(path: Path) -> int:
    """A descriptor appending to ``path``, made (or tightened to) 0600 in a folder made 0700:
    a log grows a line at a time, so it is kept owner-only rather than written whole."""
    private_folder(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE_FILE_MODE)
    os.fchmod(fd, PRIVATE_FILE_MODE)  # one made earlier, looser, holds the same lines
    return fd


def write_secret(path: Path, data: bytes, *, replace: bool = True) -> bool:
    """Keep ``data`` at ``path`` (0600): written to a temporary file beside it, synced, then
    put in place in one step and the folder synced, so a crash leaves the old file or the new.

    With ``replace`` false a file already there is kept and False returned: the new one is
    linked, never moved over, so two processes creating at once keep one, the first one's.
    """
    folder = path.parent
    private_folder(folder)
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")  # 0600
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if replace:
            os.replace(temporary, path)
        else:
            try:
                os.link(temporary, path)
            except FileExistsError:
                return False
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    _sync_folder(folder)
    return True


def _sync_folder(folder: Path) -> None:
    """The rename or link itself survives a power cut only once its folder is synced."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
