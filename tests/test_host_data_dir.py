"""The data dir: its secrets private to the host's user, and one running host on it at a time."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import start_host

from host.edge.tls_files import KEY_FILE
from host.journal.datadir import LOCK_FILE
from scala40_net.fairdeal.identity import KEY_FILE_NAME
from scala40_net.pb import lobby_pb2


async def a_data_dir(tmp_path: Path) -> Path:
    """A data dir a host has started and stopped on: its keys are made."""
    data_dir = tmp_path / "host"
    served = await start_host(data_dir)
    await served.channel.close()
    await served.host.stop(grace=0.1)
    return data_dir


@pytest.mark.parametrize("key", [KEY_FILE, KEY_FILE_NAME])
async def test_a_key_file_others_may_read_stops_the_host_with_one_line(
    tmp_path: Path, key: str
) -> None:
    """The owner is told what to do (chmod 600) in one line, not with a traceback."""
    data_dir = await a_data_dir(tmp_path)
    os.chmod(data_dir / key, 0o640)
    ran = subprocess.run(
        [sys.executable, "-m", "host", "--listen", "127.0.0.1:0", "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 1
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1, ran.stderr
    assert lines[0].startswith("scala40-host: ") and "chmod 600" in lines[0]
    assert key in lines[0]


async def test_deleting_the_lock_file_does_not_let_a_second_host_in(tmp_path: Path) -> None:
    """The lock is on the data dir itself: removing host.lock takes nothing from the host
    that holds it."""
    data_dir = tmp_path / "host"
    served = await start_host(data_dir)
    try:
        (data_dir / LOCK_FILE).unlink()
        with pytest.raises(RuntimeError, match="another host"):
            await start_host(data_dir)
        await served.lobby.ListTables(lobby_pb2.ListTablesRequest())  # the first one serves on
    finally:
        await served.channel.close()
        await served.host.stop(grace=0.5)
    again = await start_host(data_dir)  # stopped, it let go of the directory too
    await again.channel.close()
    await again.host.stop(grace=0.5)
