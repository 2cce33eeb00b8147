"""Golden match records: scripted deals whose results were worked out by hand from docs/rules.md.

Each file in tests/golden/ states every hand's ``points`` and the match ``result``. A
hand result with ``"penalty": true`` expects the replayed hand to carry a ``reason``.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.engine import TrucoError, disagreements, replay, to_record

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


PAIRED = {  # the rule parameters of issue 36: two golden files each, one per value
    "partner_tie_lead": ("first_to_play", "lower_seat"),
    "covered_after_partner": ("allowed", "banned"),
    "raise_answer": ("one_seat", "any_accepts"),
    "stake_cap": ("none", "trailing_needs"),
}


@pytest.mark.parametrize("param", list(PAIRED))
def test_a_golden_pair_shows_what_the_parameter_changes(param: str) -> None:
    # the same deal under the two values (the default one written before the parameter
    # existed: left out, it applies), and two different results
    default, other = (
        next(p for p in GOLDEN if p.stem.endswith(f"{param}_{value}")) for value in PAIRED[param]
    )
    a, b = load(default), load(other)
    assert param not in a["rules"] and b["rules"] == {**a["rules"], param: PAIRED[param][1]}
    assert replay(a).rules.parameters()[param] == PAIRED[param][0]
    assert [h["cards"] for h in a["hands"]] == [h["cards"] for h in b["hands"]]
    assert a["start_score"] == b["start_score"]
    assert [h["result"] for h in a["hands"]] != [h["result"] for h in b["hands"]]
    assert a["result"] != b["result"]
    for record in (a, b):  # each record's actions do not replay under the other value
        flipped = {**record, "rules": b["rules"] if record is a else a["rules"]}
        try:
            again = replay(flipped)
        except TrucoError:
            continue
        assert to_record(again)["hands"][-1].get("result") != record["hands"][-1]["result"]
