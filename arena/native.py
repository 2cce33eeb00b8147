"""Compile the engine with mypyc (``make native``, or ``python -m arena.native``).

The engine stays plain Python; this is an optional speed-up for the referee and for
search bots (about twice the random playouts a second: ``python -m tests.bench.engine``).
The modules below are copied to a scratch folder with ``arena/__init__.py`` and the
engine's ``__init__.py``, compiled there by mypyc (it ships with mypy, a development
dependency) and the results moved to ``arena.engine.NATIVE`` with the digests of the
sources they came from; ``arena/engine/__init__.py`` imports them while those digests
hold. ``python -m arena.native --clean`` removes them.

Needs a C compiler and Python's headers.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from arena import engine

MODULES = ["actions", "cards", "determinize", "errors", "match", "record", "rules", "view"]
"""The engine's modules that are compiled (``__init__`` and ``sources`` stay plain)."""
SOURCE = Path(engine.__file__).resolve().parent


def build(target: Path = engine.NATIVE, quiet: bool = False) -> None:
    """Compile the engine into ``target`` (a folder holding ``arena/engine/``)."""
    with tempfile.TemporaryDirectory(prefix="arena-native-") as scratch:
        work = Path(scratch)
        (work / "arena" / "engine").mkdir(parents=True)
        shutil.copy(SOURCE.parent / "__init__.py", work / "arena" / "__init__.py")
        for name in ["__init__", "sources", *MODULES]:
            shutil.copy(SOURCE / f"{name}.py", work / "arena" / "engine" / f"{name}.py")
        files = [f"arena/engine/{name}.py" for name in MODULES]
        subprocess.run(
            [sys.executable, "-m", "mypyc", *files],
            cwd=work,
            check=True,
            stdout=subprocess.DEVNULL if quiet else None,
        )
        clean(target)
        (target / "arena" / "engine").mkdir(parents=True)
        for library in work.glob("*__mypyc*"):  # the modules' shared library
            shutil.move(library, target / library.name)
        for module in (work / "arena" / "engine").glob("*.so"):
            shutil.move(module, target / "arena" / "engine" / module.name)
    digests = engine.source_digests(MODULES)
    (target / "arena" / "engine" / engine.NATIVE_SOURCES).write_text(json.dumps(digests))


def clean(target: Path = engine.NATIVE) -> None:
    """Remove a compiled engine from ``target``."""
    shutil.rmtree(target, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clean", action="store_true", help="remove the compiled engine")
    parser.add_argument("--quiet", action="store_true", help="leave out mypyc's own output")
    args = parser.parse_args()
    if args.clean:
        clean()
        print(f"removed {engine.NATIVE}")
        return
    if current():
        print(f"the compiled engine in {engine.NATIVE} is current")
        return
    build(quiet=args.quiet)
    print(f"compiled the engine into {engine.NATIVE}")


def current(target: Path = engine.NATIVE) -> bool:
    """Whether ``target`` holds an engine compiled from these sources."""
    sources = target / "arena" / "engine" / engine.NATIVE_SOURCES
    return sources.exists() and json.loads(sources.read_text()) == engine.source_digests(MODULES)


if __name__ == "__main__":
    main()
