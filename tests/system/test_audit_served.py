"""`arena audit` after a real tournament, end to end: `arena serve`, a Celery worker and
dial-in house bots as processes of their own play a small round robin, and the audit, run
as an organizer runs it against that `arena serve`, finds it clean (exit 0), as the tests'
own bookkeeping (tests/arenaproc.py) does; one run alone too, as JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests.arenaproc import audit


def test_a_round_robin_played_by_real_processes_audits_clean(
    arena_factory: Any, database: str
) -> None:
    arena = arena_factory(None)
    arena.worker()
    arena.bots(ana="house:random", bia="house:heuristic", caio="house:random")
    arena.tournament("course", ["ana", "bia", "caio"], matches=2)
    run_id = arena.start("course")
    run = arena.wait_run(run_id, timeout_s=300)
    assert run.status == "finished"
    assert audit(database, run_id) == {"lost": 0, "double": 0, "drift": 0.0}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "arena.cli", *args], env=arena.env, capture_output=True,
            text=True, timeout=120,
        )  # fmt: skip

    whole = cli("audit")
    assert whole.returncode == 0, whole.stdout + whole.stderr
    assert "matches: finished 6 (voided 0, replays 0)" in whole.stdout
    assert whole.stdout.rstrip().endswith("none lost")
    alone = cli("audit", "--run", str(run_id), "--json")
    assert alone.returncode == 0, alone.stdout + alone.stderr
    report = json.loads(alone.stdout)
    assert report["clean"] and report["run"] == run_id  # a uint64, a number like any other
    assert report["matches"] == {"finished": 6} and report["runs"] == {"finished": 1}
    assert report["events"] == 12 and report["findings"] == []
