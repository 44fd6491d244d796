"""The engine proper imports only the standard library, ``cryptography`` and itself.

What is where, in ``scala40_net``:

- **The engine proper** is every module of ``scala40_net`` not named below: the
  cards, the rules (``deal``, ``melds``, ``search``, ``match``, ``rules``,
  ``views`` …), the bots, the refusals and their sentences, invites, and the
  fair deal's own bytes (``fairdeal.spec``, ``chain``, ``identity``). It runs
  with nothing installed but ``cryptography``.
- **The protobuf side**, protobuf by nature: the generated stubs
  (``scala40_net.pb``), the wire mapping between them and the engine
  (``scala40_net.wire``), the parts of the fair deal that read and sign the
  host's protobuf deal events (``fairdeal.exchange``, ``record``, ``rehearsal``,
  ``played``, ``replay``, ``verify``), a private deal's record (``private.record``)
  and ``scala40-verify`` (``verifier``). They import protobuf messages, never gRPC
  (no ``*_pb2_grpc``), and may use the private tables' core, to audit a private deal.
- **The private tables' core**: ``scala40_net.private`` (the encrypted deck, its proofs
  and signed messages) also imports ``rbcl`` (ristretto255), nothing of the network;
  only its ``record`` reads protobuf.
- **The network side**: ``scala40_net.net`` (TLS bound to the host's identity,
  LAN discovery; the host and the seats both use it) and ``scala40_net.seat``
  (a seat's link to its table and ``scala40-bot``). They may import anything the
  project depends on.

The engine proper importing any module of the other two (directly, so also
through them) fails here, as does any third-party import but ``cryptography``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "scala40_net"

PROTOBUF_SIDE = (
    "scala40_net.pb",
    "scala40_net.wire",
    "scala40_net.fairdeal.exchange",
    "scala40_net.fairdeal.record",
    "scala40_net.fairdeal.rehearsal",
    "scala40_net.fairdeal.played",
    "scala40_net.fairdeal.replay",
    "scala40_net.fairdeal.verify",
    "scala40_net.verifier",
    "scala40_net.private.record",
)
NETWORK_SIDE = ("scala40_net.net", "scala40_net.seat")
PRIVATE_SIDE = ("scala40_net.private",)

ENGINE_MAY_IMPORT = frozenset({"cryptography"})
PROTOBUF_MAY_IMPORT = ENGINE_MAY_IMPORT | {"google.protobuf"}
PRIVATE_MAY_IMPORT = ENGINE_MAY_IMPORT | {"rbcl"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def within(module: str, places: tuple[str, ...]) -> bool:
    return any(module == place or module.startswith(place + ".") for place in places)


def imported(source: str, known: set[str]) -> set[str]:
    """Every module ``source`` imports, at run time or under TYPE_CHECKING, at any depth;
    ``from package import name`` counts as the module ``package.name`` when there is one."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found |= {
                f"{node.module}.{alias.name}"
                for alias in node.names
                if f"{node.module}.{alias.name}" in known
            }
    return found


def problems(module: str, source: str, known: set[str]) -> list[str]:
    """What ``module`` (with ``source``) imports that its side of the package may not."""
    if within(module, NETWORK_SIDE):
        return []
    protobuf_side = within(module, PROTOBUF_SIDE)
    if within(module, ("scala40_net.pb",)):
        return []  # generated from the protos, checked against them by test_proto_stubs
    allowed = PROTOBUF_MAY_IMPORT if protobuf_side else ENGINE_MAY_IMPORT
    if within(module, PRIVATE_SIDE):
        allowed = allowed | PRIVATE_MAY_IMPORT
    wrong = []
    for name in sorted(imported(source, known)):
        top = name.split(".")[0]
        if top == "__future__" or top in sys.stdlib_module_names:
            continue
        if top == "scala40_net":
            network = within(name, NETWORK_SIDE) or name.endswith("_pb2_grpc")
            private = within(name, PRIVATE_SIDE) and not (
                within(module, PRIVATE_SIDE) or protobuf_side
            )
            if network or private or (not protobuf_side and within(name, PROTOBUF_SIDE)):
                wrong.append(name)
        elif not any(name == ok or name.startswith(ok + ".") for ok in allowed):
            wrong.append(name)
    return [f"{module} imports {name}" for name in wrong]


def test_the_engine_proper_imports_only_the_standard_library_cryptography_and_itself() -> None:
    found = modules()
    known = set(found)
    wrong = [
        line
        for module, path in found.items()
        for line in problems(module, path.read_text(encoding="utf-8"), known)
    ]
    assert not wrong, wrong


def test_the_engine_proper_is_most_of_the_package() -> None:
    """The sides named above exist, and the engine proper is what they leave."""
    found = set(modules())
    for place in (*PROTOBUF_SIDE, *NETWORK_SIDE, *PRIVATE_SIDE):
        assert place in found, f"{place} named in this test's docstring is gone"
    engine = {m for m in found if not within(m, (*PROTOBUF_SIDE, *NETWORK_SIDE, *PRIVATE_SIDE))}
    for module in ("scala40_net.deal", "scala40_net.views", "scala40_net.bots.base"):
        assert module in engine
    assert "scala40_net.fairdeal.spec" in engine


def test_importing_the_whole_engine_proper_loads_no_third_party_module_but_cryptography() -> None:
    """What the source says, run: every engine module imported in a fresh interpreter."""
    sides = (*PROTOBUF_SIDE, *NETWORK_SIDE, *PRIVATE_SIDE)
    engine = sorted(m for m in modules() if not within(m, sides))
    probe = (
        "import importlib, sys\n"
        f"for name in {engine!r}:\n"
        "    importlib.import_module(name)\n"
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    foreign = [
        name
        for name in loaded
        if name not in sys.stdlib_module_names
        and name not in {"scala40_net", "cryptography", "_cffi_backend"}
        and not name.startswith("_")
    ]
    assert not foreign, foreign


def test_the_check_catches_what_an_engine_module_must_not_import() -> None:
    known = set(modules())
    for line in (
        "import grpc",
        "from google.rpc import status_pb2",
        "from google.protobuf import message",
        "import prompt_toolkit.application",
        "from zeroconf import Zeroconf",
        "from scala40_net import wire",
        "from scala40_net.pb import deal_pb2",
        "from scala40_net.net import tls",
        "from scala40_net.seat.netbot import NetworkSeat",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import grpc",
        "def later() -> None:\n    import zeroconf",
    ):
        assert problems("scala40_net.views", line, known), line
    assert not problems("scala40_net.views", "import random\nimport cryptography.x509", known)
    assert not problems("scala40_net.wire", "from google.protobuf import message", known)
    assert problems("scala40_net.wire", "import grpc", known)
    grpc_stubs = "from scala40_net.pb import table_pb2_grpc"
    assert problems("scala40_net.fairdeal.record", grpc_stubs, known)
