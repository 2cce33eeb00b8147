"""A bot author's install: the package without extras (``pip install truco-arena``) in a
fresh virtual environment holds the engine, the SDK and the gRPC client, none of the
server parts; the ``arena`` command there says which commands need them; and a bot run
by that environment's python plays matches that a real arena (``arena serve`` and a
worker, from this environment) records without a fault.

pip may use its cache and the machine's package index; where it cannot reach any, the
test is skipped, saying so."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVER_PARTS = ("celery", "psycopg", "starlette", "numpy", "redis", "uvicorn", "pgserver")
UNREACHABLE = (  # what pip says when no index answers
    "No matching distribution found",
    "Could not find a version that satisfies",
    "NewConnectionError",
    "Temporary failure in name resolution",
    "Network is unreachable",
)


class BaseInstall:
    """A fresh virtual environment with the package installed without extras (or with
    ``extras``, ``[server]`` say), made in the background while the arena starts."""

    def __init__(self, folder: Path, extras: str = "") -> None:
        source = folder / "source"  # a copy: pip's build leaves nothing in the work tree
        for part in ("arena", "referee", "workers"):
            shutil.copytree(ROOT / part, source / part, ignore=shutil.ignore_patterns(
                "__pycache__", "*.so"))  # fmt: skip
        for part in ("pyproject.toml", "README.md"):
            shutil.copy(ROOT / part, source / part)
        self.venv = folder / "venv"
        # no pip of its own (ensurepip takes longer than the install): this pip installs
        # into it
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", self.venv], check=True)
        self.python = self.venv / "bin" / "python"
        self.pip = subprocess.Popen(
            [sys.executable, "-m", "pip", "--python", self.python, "install", "--quiet",
             "--disable-pip-version-check", f"{source}{extras}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )  # fmt: skip

    def wait(self) -> None:
        output, _ = self.pip.communicate(timeout=600)
        if self.pip.returncode != 0:
            if any(words in output for words in UNREACHABLE):
                pytest.skip(f"pip cannot reach a package index: {output.strip()[-300:]}")
            pytest.fail(f"pip install of the package failed:\n{output}")

    def run(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        """``args`` run with the environment's own programs, out of the work tree."""
        return subprocess.run(
            args,
            env=self.env(**env),
            cwd=self.venv,
            capture_output=True,
            text=True,
            timeout=60,
        )

    def env(self, **extra: str) -> dict[str, str]:
        """The environment's PATH and a home of its own, nothing of this one's Python
        setup."""
        keep = {k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "TMPDIR")}
        path = f"{self.venv / 'bin'}:/usr/bin:/bin"
        return {**keep, "PATH": path, "ARENA_HOME": str(self.venv.parent / "home"), **extra}


def test_a_bot_authors_install_plays_a_recorded_match_against_a_real_arena(
    arena_factory: Any, tmp_path: Path
) -> None:
    install = BaseInstall(tmp_path)
    arena = arena_factory(None)
    arena.worker()
    arena.bots(house="house:random")
    install.wait()
    python = str(install.python)

    for name in SERVER_PARTS:
        done = install.run(python, "-c", f"import {name}")
        assert done.returncode != 0 and "ModuleNotFoundError" in done.stderr, name
    imported = install.run(
        python, "-c", "import sys, arena.sdk; print(' '.join(sorted(sys.modules)))"
    )
    assert imported.returncode == 0, imported.stderr
    assert not set(imported.stdout.split()) & set(SERVER_PARTS)
    assert (
        "site-packages/arena"
        in install.run(python, "-c", "import arena; print(arena.__file__)").stdout
    )

    served = install.run("arena", "serve")
    assert served.returncode == 1
    assert served.stderr.startswith("arena serve needs the server parts (")
    assert served.stderr.endswith("pip install 'truco-arena[server]'\n")
    assert "Traceback" not in served.stderr
    shown = install.run("arena", "rules", "show", "paulista", "--json")
    assert shown.returncode == 0 and '"team_size"' in shown.stdout, shown.stderr

    token = arena.organizer.bot_token("author")
    log = tmp_path / "author.log"
    with log.open("wb") as output:
        bot = subprocess.Popen(
            [python, str(ROOT / "examples" / "random_bot.py")],
            env=install.env(ARENA_ADDRESS=arena.address, ARENA_TOKEN=token),
            cwd=tmp_path,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        arena.organizer.wait_connected(["author"])
        ids = arena.challenge(["author", "house"], 2)
        arena.wait_matches(ids, len(ids))
    finally:
        bot.terminate()
        bot.wait(15)
    for match_id in ids:
        row, seats = arena.store.match(match_id)
        assert row.status == "finished" and "author" in seats
        assert row.faults["author"] == dict.fromkeys(row.faults["author"], 0), log.read_text()


@pytest.mark.long
def test_a_server_install_imports_every_module_of_the_arena(tmp_path: Path) -> None:
    # kombu's Redis transport imports packaging, which kombu asks for only in its redis
    # extra: a server install without it had arena worker and beat die at start
    install = BaseInstall(tmp_path, "[server]")
    install.wait()
    every = (
        "import importlib, pkgutil\n"
        "for package in ('arena', 'referee', 'workers'):\n"
        "    root = importlib.import_module(package)\n"
        "    for found in pkgutil.walk_packages(root.__path__, package + '.'):\n"
        "        if not found.name.endswith('__main__'):  # that one runs the CLI\n"
        "            importlib.import_module(found.name)\n"
        "            print(found.name)\n"
    )
    done = install.run(str(install.python), "-c", every)
    assert done.returncode == 0, done.stderr
    assert {"workers.app", "workers.tasks", "arena.web.app", "referee.server"} <= set(
        done.stdout.split()
    )
