"""The layers of the code, as the README's folder table gives them, and a check that no
import goes back up or round in a circle: a violation fails here, not in review.

From the bottom: the engine (the rules, the standard library only); the kernel (errors,
the generated protobuf code, and what every layer may use: settings, connections, the
house bots); the domain (no I/O); the wire (the conversions between the engine's and the
domain's types and the protobuf messages, for the edges alone); the store (SQL and rows) and
hosted bots (archives, the sandbox, the relay), side by side and blind to each other; the
use cases (each write the arena does) and the read model; and the edges (the referee,
the workers, the web, the CLI, the SDK), which call the layers below and never each
other, but for the CLI: the one composition root, which starts the referee, the
workers and the web. Outside the engine, code uses the engine's public names
(``arena.engine``), never its modules. Nothing imports ``tests``.

Any cycle of imports between modules fails too, lazy imports (inside a function, or
only for the type checker) included: a cycle of those is a knot all the same. And what
the SDK, the ``arena`` command and local matches load stays inside a bot author's
install (pyproject.toml's dependencies, without the server extra).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LAYERS: dict[str, tuple[str, ...]] = {  # layer -> its packages and modules, by prefix
    "engine": ("arena.engine",),
    "kernel": (
        "arena.errors",
        "arena.logs",
        "arena.proto",
        "arena.channel",
        "arena.guard",
        "arena.settings",
        "arena.embedded",
        "arena.native",
        "arena.service",
        "arena.metrics",
    ),
    "domain": ("arena.domain",),
    "wire": ("arena.wire", "arena.wire_clock"),
    "bots": ("arena.bots",),
    "store": ("arena.store",),
    "hosted": ("arena.hosted",),
    "usecases": ("arena.usecases",),
    "read": ("arena.read",),
    "sdk": ("arena.sdk",),
    "web": ("arena.web",),
    "referee": ("referee",),
    "workers": ("workers",),
    "cli": ("arena.cli",),
}
MAY_IMPORT: dict[str, set[str]] = {  # layer -> the layers below it that it may use
    "engine": set(),
    "kernel": {"engine"},
    "domain": {"engine", "kernel"},
    "wire": {"engine", "kernel", "domain"},
    "bots": {"engine", "kernel", "domain"},
    "store": {"engine", "kernel", "domain"},
    "hosted": {"engine", "kernel", "domain"},
    "usecases": {"engine", "kernel", "domain", "store", "hosted"},
    "read": {"engine", "kernel", "domain", "store"},
    "sdk": {"engine", "kernel", "domain", "wire", "bots"},
    "web": {"engine", "kernel", "domain", "wire", "store", "usecases", "read"},
    "referee": {"engine", "kernel", "domain", "wire", "bots", "store", "hosted", "usecases",
                "read"},
    "workers": {"engine", "kernel", "domain", "wire", "bots", "store", "hosted", "usecases",
                "read"},
    "cli": {"engine", "kernel", "domain", "wire", "bots", "store", "hosted", "usecases", "read",
            "sdk", "web", "referee", "workers"},
}  # fmt: skip
OURS = ("arena", "referee", "workers", "tests")
BASE_INSTALL = {  # pyproject.toml's dependencies (a bot author's install), by module
    "grpc", "google", "grpc_health", "grpc_reflection", "rich",
}  # fmt: skip
SDK_NEEDS = {"grpc", "google"}  # of those, what ``import arena.sdk`` may load
TOP = {"arena": "kernel"}  # a package's own __init__, in the layer of what it holds


def layer(module: str) -> str | None:
    """The layer a module of ours belongs to; ``tests`` for the tests; None otherwise."""
    if module == "tests" or module.startswith("tests."):
        return "tests"
    if module in TOP:
        return TOP[module]
    best = None
    for name, prefixes in LAYERS.items():
        for prefix in prefixes:
            inside = module == prefix or module.startswith(prefix + ".")
            if inside and (best is None or len(prefix) > len(best[1])):
                best = (name, prefix)
    return None if best is None else best[0]


def modules(root: Path = ROOT) -> list[tuple[str, Path]]:
    """Every hand-written module of ours under ``root``, by dotted name."""
    found = []
    for top in ("arena", "referee", "workers"):
        for path in sorted((root / top).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[:2] != ("arena", "proto"):  # generated
                found.append((".".join(p for p in parts if p != "__init__"), path))
    return found


def imports(path: Path, known: set[str] | None = None) -> set[str]:
    """The modules a module imports; with ``known`` (every module of ours), also those
    that a ``from PACKAGE import NAME`` names (``from arena.hosted import house``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            if known is not None and node.module != "arena.engine":  # its names are its API
                for alias in node.names:
                    if (named := f"{node.module}.{alias.name}") in known:
                        names.add(named)
    return names


def loaded_imports(path: Path) -> set[str]:
    """The modules a module imports when it is imported: at its top level, in its
    classes' bodies, in its tries and conditions; not inside a function, nor for the
    type checker only."""
    names: set[str] = set()
    pending: list[ast.stmt] = list(ast.parse(path.read_text(), filename=str(path)).body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            pending.extend(node.orelse)
        elif isinstance(node, ast.ClassDef | ast.If | ast.Try | ast.With):
            for field in ("body", "orelse", "finalbody", "handlers"):
                pending.extend(getattr(node, field, []))
        elif isinstance(node, ast.ExceptHandler):
            pending.extend(node.body)
    return names


def third_party(start: str, found: list[tuple[str, Path]]) -> set[str]:
    """The packages outside the standard library and ours that importing ``start``
    loads, through every module of ours it loads (their packages' ``__init__`` too)."""
    paths = dict(found)
    seen: set[str] = set()
    outside: set[str] = set()
    pending = [start]
    while pending:
        name = pending.pop()
        parts = name.split(".")
        for n in range(1, len(parts) + 1):  # a module's packages are imported first
            module = ".".join(parts[:n])
            if module in seen or module not in paths:
                continue
            seen.add(module)
            for imported in loaded_imports(paths[module]):
                top = imported.split(".")[0]
                if top in OURS:
                    pending.append(imported)
                elif top not in sys.stdlib_module_names:
                    outside.add(top)
    return outside


def violations(found: list[tuple[str, Path]]) -> list[str]:
    known = {name for name, _ in found}
    out = []
    for name, path in found:
        own = layer(name)
        if own is None:
            out.append(f"{name}: in no layer (tests/test_layers.py's LAYERS)")
            continue
        allowed = MAY_IMPORT[own] | {own}
        for imported in sorted(imports(path, known)):
            top = imported.split(".")[0]
            if top not in OURS:
                if own == "engine" and top not in sys.stdlib_module_names:
                    out.append(f"{name} imports {imported}: the engine has the stdlib only")
                continue
            target = layer(imported)
            if target is None:
                continue
            if target == "tests":
                out.append(f"{name} imports {imported}: nothing imports the tests")
            elif target not in allowed:
                out.append(f"{name} imports {imported}: {own} may not import {target}")
            elif target == "engine" != own and imported not in ("arena.engine",):
                out.append(f"{name} imports {imported}: outside the engine, use arena.engine")
    return sorted(set(out))


def cycles(found: list[tuple[str, Path]]) -> list[list[str]]:
    """Every group of modules of ours that import each other round, directly or through
    others (a strongly connected component of the import graph, by Kosaraju's two walks:
    linear in the imports, where listing every cycle grows exponentially), its names
    sorted."""
    known = {name for name, _ in found}
    graph: dict[str, set[str]] = {}
    for name, path in found:
        targets = set()
        for imported in imports(path, known):
            while imported and imported not in known:
                imported = imported.rpartition(".")[0]
            if imported and imported != name and not name.startswith(imported + "."):
                targets.add(imported)  # a package's own __init__ is not a cycle
        graph[name] = targets
    order: list[str] = []  # modules by the time their walk ended
    seen: set[str] = set()
    for start in sorted(graph):
        if start in seen:
            continue
        seen.add(start)
        stack = [(start, iter(sorted(graph[start])))]
        while stack:
            node, rest = stack[-1]
            nxt = next((n for n in rest if n not in seen and n in graph), None)
            if nxt is None:
                stack.pop()
                order.append(node)
            else:
                seen.add(nxt)
                stack.append((nxt, iter(sorted(graph[nxt]))))
    back: dict[str, set[str]] = {name: set() for name in graph}
    for name, targets in graph.items():
        for target in targets & graph.keys():
            back[target].add(name)
    groups: list[list[str]] = []
    placed: set[str] = set()
    for start in reversed(order):
        if start in placed:
            continue
        group, todo = [], [start]
        placed.add(start)
        while todo:
            node = todo.pop()
            group.append(node)
            for prev in back[node] - placed:
                placed.add(prev)
                todo.append(prev)
        if len(group) > 1:
            groups.append(sorted(group))
    return sorted(groups)


def test_the_packages_import_only_what_their_layer_allows() -> None:
    found = modules()
    assert len(found) > 40
    assert violations(found) == []


def test_a_bot_authors_install_holds_what_the_sdk_and_the_cli_load() -> None:
    # pip install truco-arena, without the server extra: the SDK, the arena command's
    # grammar (every command's module) and local matches load nothing else; a command
    # that needs the server parts imports them when it runs (tests/sdk/test_sdk_install.py)
    found = modules()
    assert third_party("arena.sdk", found) <= SDK_NEEDS
    for start in ("arena.cli", "arena.cli.grammar", "referee.local"):
        assert third_party(start, found) <= BASE_INSTALL, start
    assert "numpy" in third_party("arena.domain.poolfit", found)  # the check sees them


def test_no_module_imports_another_that_imports_it_back() -> None:
    assert cycles(modules()) == []


def test_each_kind_of_violation_is_seen(tmp_path: Path) -> None:
    bad = {
        "arena/engine/leaky.py": "import grpc\n",
        "arena/store/reach.py": "from referee.hub import Hub\nfrom arena.hosted.relay import R\n",
        "arena/hosted/relay.py": "",
        "arena/web/inner.py": "from arena.engine.match import Match\n",
        "workers/side.py": "import referee.api\n",
        "referee/api.py": "",
        "referee/back.py": "from tests import fakebot\n",
        "arena/domain/up.py": "import arena.usecases.runs\n",
        "arena/usecases/runs.py": "",
        "arena/cli/ok.py": "import referee.server\nfrom arena.engine import Match\n",
        "arena/loose.py": "",
    }
    for name, text in bad.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = violations(modules(tmp_path))
    assert [v.split(":")[0] for v in found] == [
        "arena.domain.up imports arena.usecases.runs",
        "arena.engine.leaky imports grpc",
        "arena.loose",
        "arena.store.reach imports arena.hosted.relay",
        "arena.store.reach imports referee.hub",
        "arena.web.inner imports arena.engine.match",
        "referee.back imports tests",
        "workers.side imports referee.api",
    ]


def test_a_cycle_is_seen(tmp_path: Path) -> None:
    for name, text in {
        "arena/hosted/a.py": "from arena.hosted import b\n",
        "arena/hosted/b.py": "def f():\n    from arena.hosted.c import x\n",
        "arena/hosted/c.py": "from arena.hosted.a import y\n",
        "arena/hosted/d.py": "import arena.hosted.a\n",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert cycles(modules(tmp_path)) == [["arena.hosted.a", "arena.hosted.b", "arena.hosted.c"]]
