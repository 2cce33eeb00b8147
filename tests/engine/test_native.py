"""The compiled engine (``make native``, arena/native.py) plays exactly as the plain one.

Both engines play the same seeded matches between the same random players, for every
preset and team size, in fresh processes; every record, every view of every step and
every replay must be the same, byte for byte. The compiled engine is the one built in
``build/native`` when it is current, else one built here (skipped without a C compiler).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import arena.engine
from arena.engine import PRESETS, Match, Rules, replay, to_record, view

ROOT = Path(__file__).resolve().parents[2]
CASES = [*PRESETS, "paulista:team_size=3,deck=sujo52", "megajogos:manilha=velha"]


def played(matches: int) -> dict[str, object]:
    """What the engine in this process makes of seeded random playouts: a digest of
    every record, view and replay, and which engine it was."""
    digest = hashlib.sha256()
    for text in CASES:
        rules = Rules.parse(text)
        for seed in range(matches):
            players = random.Random(seed)
            match = Match(rules, seed=seed)
            while not match.is_over:
                seat = match.to_act
                assert seat is not None
                for s in range(match.n):
                    digest.update(json.dumps(view(match, s).to_json()).encode())
                match.apply(players.choice(match.legal_actions()))
            record = to_record(match)
            digest.update(json.dumps(record).encode())
            digest.update(json.dumps(to_record(replay(record))).encode())
            digest.update(json.dumps(to_record(match.clone())).encode())
    module = sys.modules["arena.engine.match"].__file__ or ""
    return {"digest": digest.hexdigest(), "compiled": arena.engine.COMPILED, "module": module}


def run(pure: bool, native: Path) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ARENA_ENGINE_NATIVE": str(native)}
    env["ARENA_ENGINE"] = "pure" if pure else ""
    code = "import json, tests.engine.test_native as t; print(json.dumps(t.played(40)))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if arena.engine.COMPILED:
        return arena.engine.NATIVE
    if shutil.which(sysconfig.get_config_var("CC").split()[0]) is None:
        pytest.skip("no C compiler to build the compiled engine with")
    from arena.native import build

    target = tmp_path_factory.mktemp("native")
    build(target, quiet=True)
    return target


def test_the_compiled_engine_plays_as_the_plain_one(native: Path) -> None:
    plain, compiled = run(pure=True, native=native), run(pure=False, native=native)
    assert not plain["compiled"] and str(plain["module"]).endswith(".py")
    assert compiled["compiled"] and not str(compiled["module"]).endswith(".py")
    assert compiled["digest"] == plain["digest"]


def test_a_stale_compiled_engine_is_not_used(native: Path, tmp_path: Path) -> None:
    """Compiled from other sources (the digests differ), it gives way to the plain one."""
    stale = tmp_path / "stale"
    shutil.copytree(native, stale)
    sources = stale / "arena" / "engine" / arena.engine.NATIVE_SOURCES
    digests = json.loads(sources.read_text())
    digests["match"] = "0" * 64
    sources.write_text(json.dumps(digests))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ARENA_ENGINE_NATIVE": str(stale)}
    env["ARENA_ENGINE"] = ""
    code = (
        "import arena.engine as e, sys; print(e.COMPILED, sys.modules[e.Match.__module__].__file__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", str(ROOT / "arena" / "engine" / "match.py")]
    assert "compiled from other sources" in out.stderr
