"""The engine imports only the standard library and itself."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "arena" / "engine"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_the_engine_imports_only_the_standard_library() -> None:
    files = sorted(ENGINE.glob("*.py"))
    assert len(files) >= 5
    for path in files:
        for name in imported_modules(path):
            top = name.split(".")[0]
            inside = name == "arena.engine" or name.startswith("arena.engine.")
            assert inside or top in sys.stdlib_module_names, f"{path.name} imports {name}"
