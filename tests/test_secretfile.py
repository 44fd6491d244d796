"""The owner-only secret files: written whole and durably, one key when two create at once."""

from __future__ import annotations

import multiprocessing
import os
import stat
import subprocess
import sys
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path

import pytest

from scala40_net.fairdeal.identity import HostIdentity, IdentityError
from scala40_net.players import PlayerKey
from scala40_net.secretfile import SecretFileError, read_secret, write_secret

CREATORS = 4
ROUNDS = 3


def _create(path: str, start: Barrier, out: Queue[str]) -> None:
    start.wait(timeout=20)
    out.put(HostIdentity.kept_at(Path(path)).fingerprint)


def test_processes_creating_one_key_at_once_all_get_the_same_key(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    for round_no in range(ROUNDS):
        path = tmp_path / f"round{round_no}" / "key.pem"
        start, out = context.Barrier(CREATORS), context.Queue()
        creators = [
            context.Process(target=_create, args=(str(path), start, out)) for _ in range(CREATORS)
        ]
        for creator in creators:
            creator.start()
        fingerprints = {out.get(timeout=30) for _ in creators}
        for creator in creators:
            creator.join(timeout=30)
            assert creator.exitcode == 0
        assert fingerprints == {HostIdentity.read(path).fingerprint}
        assert sorted(p.name for p in path.parent.iterdir()) == ["key.pem"]


def test_a_secret_is_owner_only_in_an_owner_only_folder_whatever_the_umask(
    tmp_path: Path,
) -> None:
    path = tmp_path / "made" / "here" / "secret"
    old = os.umask(0)
    try:
        write_secret(path, b"one")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert read_secret(path) == b"one"


def test_replace_false_keeps_the_file_already_there(tmp_path: Path) -> None:
    path = tmp_path / "secret"
    assert write_secret(path, b"first", replace=False)
    assert not write_secret(path, b"second", replace=False)
    assert read_secret(path) == b"first"
    write_secret(path, b"third")
    assert read_secret(path) == b"third"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["secret"]


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o660])
def test_a_file_others_may_read_is_refused_and_left_as_it_is(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "secret"
    write_secret(path, b"kept")
    path.chmod(mode)
    with pytest.raises(SecretFileError, match=r"may be read by others .*chmod 600"):
        read_secret(path)
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert path.read_bytes() == b"kept"


def test_a_key_file_others_may_read_is_an_identity_error_with_the_same_sentence(
    tmp_path: Path,
) -> None:
    path = tmp_path / "player.pem"
    PlayerKey.kept_at(path)
    path.chmod(0o640)
    with pytest.raises(IdentityError) as refused:
        PlayerKey.kept_at(path)
    assert str(refused.value) == (
        f"{path} may be read by others (mode 0640); make it 0600 (chmod 600)"
    )


CRASH_BEFORE_RENAME = """
import os, sys
from pathlib import Path
from scala40_net import secretfile

def crash(*_args):
    os._exit(9)  # the power goes between the synced write and the rename

os.replace = crash
secretfile.write_secret(Path(sys.argv[1]), b"new")
"""


def test_a_crash_between_write_and_rename_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "secret"
    write_secret(path, b"old")
    crashed = subprocess.run(
        [sys.executable, "-c", CRASH_BEFORE_RENAME, str(path)], timeout=60, check=False
    )
    assert crashed.returncode == 9
    assert read_secret(path) == b"old"
    # What the crash left beside it is never read as the secret, and the next write goes on.
    write_secret(path, b"new")
    assert read_secret(path) == b"new"
