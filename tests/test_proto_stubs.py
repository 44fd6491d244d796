"""The committed protobuf stubs in scala40_net/pb are exactly what `make proto` generates."""

import importlib.util
from pathlib import Path

from google.protobuf import descriptor_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_tools import protoc

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


def test_the_shipped_google_rpc_protos_are_the_ones_the_host_sends(tmp_path: Path) -> None:
    """protos/google/rpc (for clients in other languages) describes the very messages the host
    packs into a refusal's details: compiled here, their fields match the runtime's."""
    out = tmp_path / "set.pb"
    protos = ROOT / "protos"
    include = Path(protoc.__file__).parent / "_proto"
    args = ["protoc", f"-I{protos}", f"-I{include}", f"--descriptor_set_out={out}"]
    assert protoc.main([*args, "google/rpc/status.proto", "google/rpc/error_details.proto"]) == 0
    shipped = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    messages = {f"{f.package}.{m.name}": m for f in shipped.file for m in f.message_type}
    for runtime in (
        status_pb2.Status,
        error_details_pb2.ErrorInfo,
        error_details_pb2.LocalizedMessage,
    ):
        expected = descriptor_pb2.DescriptorProto()
        runtime.DESCRIPTOR.CopyToProto(expected)
        fields = [(f.name, f.number, f.type, f.label) for f in expected.field]
        found = messages[runtime.DESCRIPTOR.full_name]
        assert [(f.name, f.number, f.type, f.label) for f in found.field] == fields
