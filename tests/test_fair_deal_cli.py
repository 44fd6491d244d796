"""``scala40-verify`` as a user runs it: exit status and its one line."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from scala40_net.fairdeal.chain import chain_head
from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.fairdeal.record import DealRecord, parse_deal_event
from scala40_net.fairdeal.rehearsal import Rehearsal

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / ".venv" / "bin" / "scala40-verify"
IDENTITY = HostIdentity.from_private_bytes(bytes(range(1, 33)))


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    command = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "scala40_net.verifier"]
    return subprocess.run(
        [*command, *map(str, args)], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.fixture(scope="module")
def deal(tmp_path_factory: pytest.TempPathFactory) -> tuple[Rehearsal, Path]:
    rehearsal = Rehearsal(turns=40, identity=IDENTITY, table_id="cli-table", deal_no=3)
    path = tmp_path_factory.mktemp("records") / "deal.json"
    rehearsal.run().record_for(2).write(path)
    return rehearsal, path


def test_an_honest_record_exits_0_with_one_verified_line(deal: tuple[Rehearsal, Path]) -> None:
    rehearsal, path = deal
    seed = rehearsal.seats[2].seed.hex()
    result = run(path, "--seat", "2", "--my-seed", seed, "--host-fingerprint", IDENTITY.fingerprint)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("verified: table cli-table deal 3; 4 seats")
    assert "seat 2: seed in the mix" in lines[0]


def test_a_wrong_own_seed_exits_1_naming_mix(deal: tuple[Rehearsal, Path]) -> None:
    _, path = deal
    result = run(path, "--seat", "2", "--my-seed", "00" * 32)
    assert result.returncode == 1
    assert result.stdout.startswith("FAILED mix at event 2 (reveals): ")


def test_a_changed_record_exits_1_naming_the_signature(
    deal: tuple[Rehearsal, Path], tmp_path: Path
) -> None:
    _, path = deal
    record = DealRecord.read(path)
    events = list(record.events)
    events[5] = events[5][:-1] + bytes([events[5][-1] ^ 1])
    dataclasses.replace(record, events=tuple(events)).write(tmp_path / "changed.json")
    result = run(tmp_path / "changed.json")
    assert result.returncode == 1
    assert result.stdout.startswith("FAILED signature: ")


def test_a_host_that_signed_a_wrong_deal_exits_1_naming_the_check_and_event(
    deal: tuple[Rehearsal, Path], tmp_path: Path
) -> None:
    _, path = deal
    record = DealRecord.read(path)
    events = list(record.events)
    started = parse_deal_event(events[3])
    started.started.first_discard ^= 1
    events[3] = started.SerializeToString()
    head = chain_head(record.table_id, record.deal_no, events)
    signature = IDENTITY.sign_record(record.table_id, record.deal_no, head)
    dataclasses.replace(record, events=tuple(events), signature=signature).write(
        tmp_path / "cheat.json"
    )
    result = run(tmp_path / "cheat.json")
    assert result.returncode == 1
    assert result.stdout.startswith("FAILED deal at event 3 (started): first discard ")


def test_another_host_key_exits_1(deal: tuple[Rehearsal, Path]) -> None:
    _, path = deal
    result = run(path, "--host-fingerprint", HostIdentity.generate().fingerprint)
    assert result.returncode == 1
    assert result.stdout.startswith("FAILED signature: signed by host ")


def test_a_file_that_is_not_a_record_exits_1(tmp_path: Path) -> None:
    (tmp_path / "notes.json").write_text("[1, 2, 3]")
    result = run(tmp_path / "notes.json")
    assert result.returncode == 1
    assert result.stdout.startswith("FAILED chain: ")
    assert run(tmp_path / "missing.json").returncode == 1
