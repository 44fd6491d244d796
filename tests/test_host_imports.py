"""The host's modules import each other one way only: no circle, type-only imports included."""

from __future__ import annotations

import ast
from pathlib import Path

HOST = Path(__file__).resolve().parent.parent / "host"


def module_name(path: Path) -> str:
    """``host/table/seating.py`` is ``host.table.seating``; a package is its ``__init__``."""
    parts = path.relative_to(HOST.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p) for p in HOST.rglob("*.py")}


def host_imports(path: Path) -> set[str]:
    """Every host module ``path`` imports, at run time or under TYPE_CHECKING."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "host":
            for alias in node.names:  # a module of a package, or a name from a module
                inner = f"{node.module}.{alias.name}"
                found.add(inner if inner in MODULES else node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("host.")}
    return found


def test_no_host_module_imports_itself_back_through_others() -> None:
    graph = {module_name(p): host_imports(p) for p in HOST.rglob("*.py")}
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
