"""The data dir: private to the host's user, and owned by one running host at a time.

Two hosts on one data dir would both write the same journals and each serve
half the tables. The running host holds an exclusive ``fcntl.flock`` on the
data dir itself (a directory that holds files cannot be unlinked from under
it) and on the lock file, which names its PID; the kernel releases both if it
dies. A second host refuses to start, also when someone deleted the lock file.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from scala40_net.secretfile import PRIVATE_FILE_MODE, private_folder

LOCK_FILE = "host.lock"


class DataDirInUse(RuntimeError):
    """Another host holds the data dir."""


class DataDirLock:
    """Held from ``acquire`` to ``release``; the file names the PID of the host holding it."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / LOCK_FILE
        self._fds: list[int] = []

    def acquire(self) -> None:
        data_dir = self.path.parent
        # A data dir made earlier with looser permissions holds the host's secrets: tighten it.
        private_folder(data_dir, tighten=True)
        # The directory first: the lock file is only the older hosts' lock and the PID's note.
        for path, flags in (
            (data_dir, os.O_RDONLY | os.O_DIRECTORY),
            (self.path, os.O_RDWR | os.O_CREAT),
        ):
            fd = os.open(path, flags, PRIVATE_FILE_MODE)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                self.release()
                raise DataDirInUse(
                    f"another host (PID {self._holder()}) is running on the data dir "
                    f"{data_dir}; stop it first, or give this one another --data-dir"
                ) from None
            self._fds.append(fd)
        note = self._fds[-1]
        os.ftruncate(note, 0)
        os.pwrite(note, f"{os.getpid()}\n".encode("ascii"), 0)

    def _holder(self) -> str:
        try:
            return self.path.read_text("ascii", "replace").strip() or "unknown"
        except OSError:  # the lock file was deleted: the directory's lock still holds
            return "unknown"

    def release(self) -> None:
        if len(self._fds) == 2:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fds[1], 0)
        for fd in self._fds:
            os.close(fd)  # closing the descriptor releases its lock
        self._fds = []
