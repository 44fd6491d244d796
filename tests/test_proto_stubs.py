"""The committed protobuf stubs in scala40_net/pb are exactly what `make proto` generates."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_committed_stubs_match_the_protos(tmp_path: Path) -> None:
    script = ROOT / "protos" / "generate_python.py"
    spec = importlib.util.spec_from_file_location("generate_python", script)
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    fresh = {p.name: p.read_text() for p in generator.generate(tmp_path / "pb")}
    committed_dir = ROOT / "scala40_net" / "pb"
    committed = {p.name: p.read_text() for p in committed_dir.iterdir() if p.is_file()}
    names = fresh.keys() | committed.keys()
    stale = sorted(name for name in names if fresh.get(name) != committed.get(name))
    assert not stale, f"stubs are stale, run `make proto`: {stale}"
