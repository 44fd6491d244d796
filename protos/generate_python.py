"""Generate the Python protobuf and gRPC stubs of protos/scala40/v1 into scala40_net/pb/.

protoc names Python modules after the proto path (``scala40.v1.cards_pb2``); the
stubs live inside the ``scala40_net.pb`` package instead, so their imports of
one another are rewritten to that package. Run by ``make proto``; the test
suite runs it into a temporary folder to check that the committed stubs are
not stale.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "protos"
PROTO_DIR = PROTO_ROOT / "scala40" / "v1"
PACKAGE = "scala40_net.pb"
HEADER = '"""Generated from protos/scala40/v1 by `make proto`: do not edit."""\n'


def generate(out_dir: Path) -> list[Path]:
    """Write the stubs into ``out_dir`` (created) and return the files written."""
    protos = sorted(PROTO_DIR.glob("*.proto"))
    with tempfile.TemporaryDirectory() as tmp:
        args = [
            "grpc_tools.protoc",
            f"-I{PROTO_ROOT}",
            # The well-known types (google/protobuf/any.proto, which google/rpc/status.proto
            # imports), as grpc_tools ships them.
            f"-I{resources.files('grpc_tools') / '_proto'}",
            f"--python_out={tmp}",
            f"--pyi_out={tmp}",
            f"--grpc_python_out={tmp}",
            *[str(p) for p in protos],
        ]
        if protoc.main(args) != 0:
            raise SystemExit("protoc failed")
        out_dir.mkdir(parents=True, exist_ok=True)
        written = []
        for produced in sorted((Path(tmp) / "scala40" / "v1").iterdir()):
            text = produced.read_text()
            defines_service = re.search(r"^class \w+Stub\b", text, re.M)
            if produced.name.endswith("_grpc.py") and not defines_service:
                continue  # a proto without a service: its gRPC module would be empty
            text = re.sub(r"^from scala40\.v1 import", f"from {PACKAGE} import", text, flags=re.M)
            target = out_dir / produced.name
            target.write_text(text)
            written.append(target)
        (out_dir / "__init__.py").write_text(HEADER)
        written.append(out_dir / "__init__.py")
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "scala40_net" / "pb")
    out = parser.parse_args().out
    if out.exists():
        shutil.rmtree(out)
    for path in generate(out):
        print(path.relative_to(out.parent.parent) if out.is_relative_to(ROOT) else path)
    sys.exit(0)


if __name__ == "__main__":
    main()
