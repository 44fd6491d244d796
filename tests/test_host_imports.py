"""The host's modules import each other one way only: no circle, type-only imports included."""

from __future__ import annotations

import ast
from pathlib import Path

HOST = Path(__file__).resolve().parent.parent / "host"


def host_imports(path: Path) -> set[str]:
    """Every host module ``path`` imports, at run time or under TYPE_CHECKING."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "host":
                found |= {f"host.{alias.name}" for alias in node.names}
            elif node.module.startswith("host."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("host.")}
    return found


def test_no_host_module_imports_itself_back_through_others() -> None:
    graph = {f"host.{p.stem}": host_imports(p) for p in HOST.glob("*.py")}
    circles = []

    def visit(module: str, path: list[str]) -> None:
        for other in sorted(graph.get(module, ())):
            if other in path:
                circles.append(" -> ".join([*path[path.index(other) :], other]))
            elif other in graph:
                visit(other, [*path, other])

    for module in sorted(graph):
        visit(module, [module])
    assert not circles, circles[:5]
