"""The host's data dir: private to the host's user, and owned by one running host at a time.

Two hosts on one data dir would both write the same journals and each serve
half the tables; the lock file (``fcntl.flock``, held open while the host
runs, released by the kernel if it dies) makes the second one refuse to start.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

LOCK_FILE = "host.lock"


class DataDirInUse(RuntimeError):
    """Another host holds the data dir."""


class DataDirLock:
    """Held from ``acquire`` to ``release``; the file names the PID of the host holding it."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        # A data dir made earlier with looser permissions holds the host's secrets: tighten it.
        os.chmod(self.path.parent, 0o700)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise DataDirInUse(
                f"another host (PID {holder}) is running on the data dir {self.path.parent}; "
                "stop it first, or give this one another --data-dir"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            os.close(self._fd)  # closing the descriptor releases the lock
            self._fd = None
