"""Golden match records: scripted deals whose results were worked out by hand from docs/rules.md.

Each file in tests/golden/ states every hand's ``points`` and the match ``result``. A
hand result with ``"penalty": true`` expects the replayed hand to carry a ``reason``.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.engine import disagreements, replay, to_record

GOLDEN = sorted((Path(__file__).parents[1] / "golden").glob("*.json"))


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_golden_files_exist() -> None:
    assert len(GOLDEN) >= 12


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_record(path: Path) -> None:
    record = load(path)
    match = replay(record)
    assert disagreements(record, match) == []
    ours = to_record(match)
    got = [
        {"points": h["result"]["points"], **({"penalty": True} if "reason" in h["result"] else {})}
        for h in ours["hands"]
    ]
    assert got == [h["result"] for h in record["hands"]]
    assert ours["result"] == record["result"]


def test_cli_replays_every_golden_file() -> None:
    for path in GOLDEN:
        done = subprocess.run(
            [sys.executable, "-m", "arena.cli", "replay", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, f"{path.name}: {done.stderr}"
        assert json.loads(done.stdout)["result"] == load(path)["result"]
