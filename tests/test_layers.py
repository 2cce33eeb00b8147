"""The allowed imports between the project's packages, as the README's folder table gives
them: a violation fails here, not in review.

Arrows point one way: the engine <- the rest of ``arena`` <- ``referee``, ``workers``.
The engine imports the standard library only, and code outside it uses its public names
(``arena.engine``), never its modules. The CLI is the one composition root: it starts the
referee and the workers, so it alone may import them. Nothing imports ``tests``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OURS = ("arena", "referee", "workers", "tests")
MAY_IMPORT = {  # layer -> the layers of ours it may import besides itself
    "arena.engine": set(),
    "arena": {"arena.engine"},
    "referee": {"arena", "arena.engine"},
    "workers": {"arena", "arena.engine"},
}
COMPOSITION_ROOTS = {"arena.cli": {"referee", "workers"}}


def layer(module: str) -> str | None:
    """The layer a module of ours belongs to; None for everything else."""
    if module == "arena.engine" or module.startswith("arena.engine."):
        return "arena.engine"
    top = module.split(".")[0]
    return top if top in OURS else None


def modules(root: Path = ROOT) -> list[tuple[str, Path]]:
    """Every hand-written module of ours under ``root``, by dotted name."""
    found = []
    for top in ("arena", "referee", "workers"):
        for path in sorted((root / top).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[:2] != ("arena", "proto"):  # generated
                found.append((".".join(p for p in parts if p != "__init__"), path))
    return found


def imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def violations(found: list[tuple[str, Path]]) -> list[str]:
    out = []
    for name, path in found:
        own = layer(name)
        assert own is not None
        allowed = MAY_IMPORT[own] | {own}
        for root, extra in COMPOSITION_ROOTS.items():
            if name == root or name.startswith(root + "."):
                allowed = allowed | extra
        for imported in sorted(imports(path)):
            target = layer(imported)
            if target is None:
                if own == "arena.engine" and imported.split(".")[0] not in sys.stdlib_module_names:
                    out.append(f"{name} imports {imported}: the engine has the stdlib only")
            elif target not in allowed:
                out.append(f"{name} imports {imported}: {own} may not import {target}")
            elif target == "arena.engine" != own and imported != "arena.engine":
                out.append(f"{name} imports {imported}: outside the engine, use arena.engine")
    return out


def test_the_packages_import_only_what_their_layer_allows() -> None:
    found = modules()
    assert len(found) > 40
    assert violations(found) == []


def test_each_kind_of_violation_is_seen(tmp_path: Path) -> None:
    bad = {
        "arena/engine/leaky.py": "import grpc\n",
        "arena/store/reach.py": "from referee.hub import Hub\n",
        "arena/web/inner.py": "from arena.engine.match import Match\n",
        "workers/side.py": "import referee.api\n",
        "referee/back.py": "from tests import fakebot\n",
        "arena/cli/ok.py": "import referee.server\nfrom arena.engine import Match\n",
    }
    for name, text in bad.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = violations(modules(tmp_path))
    assert [v.split(":")[0] for v in found] == [
        "arena.engine.leaky imports grpc",
        "arena.store.reach imports referee.hub",
        "arena.web.inner imports arena.engine.match",
        "referee.back imports tests",
        "workers.side imports referee.api",
    ]
