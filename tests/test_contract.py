"""The contract's version: one number in the code, the proto and PROTOCOL.md, and buf breaking."""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pytest

from host.edge.lobby import LobbyService
from scala40_net import wire
from scala40_net.fairdeal.identity import HostIdentity
from scala40_net.pb import lobby_pb2

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
LOBBY_PROTO = (ROOT / "protos" / "scala40" / "v1" / "lobby.proto").read_text(encoding="utf-8")
RELEASED = ROOT / "protos" / "released"
BUF = Path(sys.executable).with_name("buf")  # installed beside the tests' Python (buf-bin)


def test_the_version_in_code_is_the_one_in_the_proto_and_in_protocol_md() -> None:
    field = re.search(
        r"// The version of this contract[^:]*: (\d+)\."
        r"(?:\n  //[^\n]*)*\n  uint32 contract_version",
        LOBBY_PROTO,
    )
    assert field, "GetHostInfoResponse.contract_version's comment names the version"
    stated = re.search(r"\*\*contract version (\d+)\*\*", PROTOCOL)
    assert stated, "PROTOCOL.md 'Versions' states the version"
    latest = re.findall(r"^\*\*(\d+)\*\* \(", PROTOCOL, flags=re.MULTILINE)
    assert latest, "PROTOCOL.md has a change log"
    assert int(field.group(1)) == int(stated.group(1)) == wire.CONTRACT_VERSION
    # The change log is newest first, one entry per version down to 1.
    assert [int(v) for v in latest] == list(range(wire.CONTRACT_VERSION, 0, -1))


def test_the_js_example_is_written_for_this_version() -> None:
    play = (ROOT / "examples" / "js-client" / "play.js").read_text(encoding="utf-8")
    written_for = re.search(r"^const CONTRACT_VERSION = (\d+);$", play, flags=re.MULTILINE)
    assert written_for and int(written_for.group(1)) == wire.CONTRACT_VERSION


def test_the_released_baseline_is_an_earlier_or_the_same_version() -> None:
    said = re.search(r"contract\s+version \*\*(\d+)\*\*", (RELEASED / "README.md").read_text())
    assert said and int(said.group(1)) <= wire.CONTRACT_VERSION
    assert (RELEASED / "contract.binpb").stat().st_size > 0


def test_get_host_info_reports_the_contract_version() -> None:
    identity = HostIdentity.generate()
    # GetHostInfo reads the identity only: no table, no limit is needed to ask it.
    lobby = LobbyService(cast(Any, None), identity, cast(Any, None), cast(Any, None))
    info = asyncio.run(lobby.GetHostInfo(lobby_pb2.GetHostInfoRequest(), cast(Any, None)))
    assert info.contract_version == wire.CONTRACT_VERSION
    assert info.fair_deal_version == 1 and info.version  # the old fields are kept


def _buf_breaking(protos: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BUF), "breaking", "--against", "released/contract.binpb"],
        cwd=protos, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.skipif(not BUF.exists(), reason="buf is installed by make .venv/.installed")
def test_buf_breaking_passes_the_contract_and_fails_a_field_retyped(tmp_path: Path) -> None:
    protos = tmp_path / "protos"
    shutil.copytree(ROOT / "protos", protos)
    assert _buf_breaking(protos).returncode == 0
    lobby = protos / "scala40" / "v1" / "lobby.proto"
    text = lobby.read_text(encoding="utf-8")
    retyped = text.replace("uint32 fair_deal_version = 4;", "string fair_deal_version = 4;")
    assert retyped != text
    lobby.write_text(retyped, encoding="utf-8")
    found = _buf_breaking(protos)
    assert found.returncode != 0
    assert "fair_deal_version" in found.stdout + found.stderr


@pytest.mark.skipif(not BUF.exists(), reason="buf is installed by make .venv/.installed")
def test_buf_breaking_fails_a_field_number_reused(tmp_path: Path) -> None:
    protos = tmp_path / "protos"
    shutil.copytree(ROOT / "protos", protos)
    lobby = protos / "scala40" / "v1" / "lobby.proto"
    text = lobby.read_text(encoding="utf-8")
    renumbered = text.replace("string host_fingerprint = 2;", "string host_fingerprint = 7;")
    assert renumbered != text
    lobby.write_text(renumbered, encoding="utf-8")
    assert _buf_breaking(protos).returncode != 0
