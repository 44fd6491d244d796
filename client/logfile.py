"""The client's log: a file, and never the terminal a full-screen app draws on.

Python's logging (this client's, an in-process host's, any library's) goes to a
file by ``log_to``. That is not enough: gRPC's C-core writes its own lines
("Handshake failed" …) to file descriptor 2 itself, over whatever the screen
shows. ``terminal_kept_clean`` points descriptor 2 at the log file while the
client runs, and gives ``sys.stderr`` a descriptor of the terminal's own, so
what the client means to tell the user there (a host it cannot reach, before
or after a screen) still reaches it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from scala40_net.secretfile import append_private

CLIENT_LOG = "client.log"
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def log_to(path: Path, level: int = logging.WARNING) -> None:
    """Every logger's records to ``path`` (owner-only, and nowhere else), warnings included."""
    os.close(append_private(path))  # made 0600 first: the handler's own open obeys the umask
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    root.addHandler(handler)
    root.setLevel(level)
    logging.captureWarnings(True)  # warnings.warn writes to stderr otherwise


@contextlib.contextmanager
def terminal_kept_clean(path: Path) -> Iterator[None]:
    """Descriptor 2 (where native code writes) appends to ``path`` while inside; ``sys.stderr``
    is the terminal's. Both are as they were afterwards."""
    log = append_private(path)
    sys.stderr.flush()
    terminal = os.dup(2)
    saved = sys.stderr
    try:
        os.dup2(log, 2)
        sys.stderr = open(  # noqa: SIM115 - closed by the finally below
            terminal, "w", buffering=1, encoding=saved.encoding, closefd=False
        )
        yield
    finally:
        sys.stderr.flush()
        sys.stderr = saved
        os.dup2(terminal, 2)
        os.close(terminal)
        os.close(log)
