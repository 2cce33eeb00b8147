"""`arena match --sprt` with bots as real processes: it plays pairs until the test
decides, says so in a line and in JSON (naming NEW and BASE, and printing no interval
where there is none), and exits 0 for H1, 1 for H0, 2 undecided."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from arena.domain.sprt import Sprt


def seeded(house: str, seed: int) -> str:
    """A house bot that plays one match at a time from a seeded generator: with the
    seeded deals, every run plays the same matches, so a verdict is the same each time
    (an SPRT errs at the rates it was given: 5% would be a flaky test)."""
    return f"{sys.executable} -m arena.cli bot run {house} --seed {seed} --concurrency 1"


def sprt(*args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "arena.cli", "match", *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=600)


def test_a_stronger_bot_is_found_stronger() -> None:
    done = sprt("--bot", seeded("house:heuristic", 1), "--bot", seeded("house:random", 2),
                "--sprt", "elo0=0,elo1=20", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    test = json.loads(done.stdout)["sprt"]
    assert test["verdict"] == "H1" and test["llr"] >= test["upper"] == 2.944
    assert test["pairs"] <= 100 and test["elo_low"] > 20, test  # a few dozen pairs
    played = json.loads(done.stdout)["games"]
    assert played == 2 * test["pairs"]  # one match at a time: none starts once decided


@pytest.mark.long
def test_a_bot_against_itself_is_not_found_stronger() -> None:
    done = sprt("--bot", seeded("house:random", 3), "--bot", seeded("house:random", 4),
                "--sprt", "elo0=0,elo1=20")  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "H0 accepted (elo0=0, elo1=20)" in done.stdout
    assert "LLR -2.9" in done.stdout or "LLR -3" in done.stdout, done.stdout


def test_a_test_that_runs_out_of_matches_is_undecided() -> None:
    done = sprt("--bot", "house:random", "--bot", "house:heuristic", "--sprt",
                "elo0=0,elo1=5", "--games", "4", "--alpha", "0.01", "--json")  # fmt: skip
    assert done.returncode == 2, done.stderr
    test = json.loads(done.stdout)["sprt"]
    assert test["verdict"] is None and test["pairs"] == 2 and test["alpha"] == 0.01
    assert test["llr"] == pytest.approx(
        Sprt(0, 5, 0.01).llr([test[k] for k in ("lost_both", "split", "won_both")]), abs=1e-3
    )


def test_the_output_names_new_and_base_and_prints_no_interval_of_no_width() -> None:
    """Two bots of one name are told apart by their numbers, in --bot order, and the
    output says which is NEW and which BASE. Two copies of one seeded bot on seeded deals
    split each pair: no pair is decided, and there is no interval to print (the pairs'
    variance is nil), never "Elo +0.0 (+0.0 to +0.0)"."""
    same = seeded("house:heuristic", 5)
    done = sprt("--bot", same, "--bot", same, "--sprt", "elo0=0,elo1=20", "--games", "4",
                "--seed", "1")  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stdout.splitlines()
    assert "NEW heuristic-1 (the first --bot), BASE heuristic-2 (the second)" in lines
    assert (
        "pairs 2 (lost both 0, split 2, won both 0), LLR -0.11 (-2.94, 2.94), "
        "Elo: no information yet (no pair decided)"
    ) in lines, done.stdout
    assert lines[-1] == (
        "undecided (elo0=0, elo1=20): the matches ran out before the test could decide "
        "whether NEW heuristic-1 is stronger than BASE heuristic-2"
    )
    assert ".0 to " not in done.stdout
    as_json = sprt("--bot", same, "--bot", same, "--sprt", "elo0=0,elo1=20", "--games", "4",
                   "--seed", "1", "--json")  # fmt: skip
    test = json.loads(as_json.stdout)["sprt"]
    assert (test["new"], test["base"], test["split"]) == ("heuristic-1", "heuristic-2", 2)
    assert test["elo"] is test["elo_low"] is test["elo_high"] is None


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--sprt", "elo0=5,elo1=1"), "elo0 must be below elo1"),
        (("--sprt", "elo1=5"), "needs elo0 and elo1"),
        (("--sprt", "elo0=0,elo1=5", "--alpha", "0.7"), "alpha must be between"),
        (("--sprt", "elo0=0,elo1=5", "--bot", "house:random"), "compares two bots"),
    ],
)
def test_a_bad_test_is_refused_before_any_match(args: tuple[str, ...], says: str) -> None:
    done = sprt("--bot", "house:random", "--bot", "house:random", *args)
    assert done.returncode == 2 and says in done.stderr, done.stderr
