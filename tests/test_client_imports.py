"""The client's modules import each other one way only, and only what the other makes public."""

from __future__ import annotations

import ast
from pathlib import Path

CLIENT = Path(__file__).resolve().parent.parent / "client"


def imported_names(path: Path) -> list[tuple[str, str]]:
    """Every (client module, name) ``path`` imports, wherever in the module it does."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("client"):
            found += [(node.module, alias.name) for alias in node.names]
    return found


def test_no_client_module_imports_another_ones_private_names() -> None:
    private = [
        f"{path.stem}: {module}.{name}"
        for path in sorted(CLIENT.glob("*.py"))
        for module, name in imported_names(path)
        if name.startswith("_")
    ]
    assert not private, private


def test_the_table_screens_drawing_goes_one_way_render_then_render_end() -> None:
    """render_end draws the end of a deal with render's pieces; render never needs it back."""
    assert "client.render" in {module for module, _ in imported_names(CLIENT / "render_end.py")}
    assert "client.render_end" not in {module for module, _ in imported_names(CLIENT / "render.py")}
