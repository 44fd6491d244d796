"""The client's log is its user's alone, however it is first made."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from client.logfile import log_to, terminal_kept_clean


@pytest.fixture
def usual_umask() -> Iterator[None]:
    old = os.umask(0o022)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        yield
    finally:
        os.umask(old)
        for handler in list(root.handlers):
            root.removeHandler(handler)
            handler.close()
        for handler in handlers:
            root.addHandler(handler)
        root.setLevel(level)
        logging.captureWarnings(False)


def test_the_log_made_by_log_to_is_owner_only(tmp_path: Path, usual_umask: None) -> None:
    path = tmp_path / "data" / "client.log"
    log_to(path)
    logging.getLogger("scala40.test").warning("a line")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert "a line" in path.read_text(encoding="utf-8")


def test_the_log_descriptor_2_writes_to_is_owner_only(tmp_path: Path, usual_umask: None) -> None:
    path = tmp_path / "client.log"
    path.write_text("earlier\n", encoding="utf-8")
    path.chmod(0o644)
    with terminal_kept_clean(path):
        os.write(2, b"native line\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text(encoding="utf-8") == "earlier\nnative line\n"
