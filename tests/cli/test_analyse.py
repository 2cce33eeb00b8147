"""``arena analyse MATCH`` end to end on real parts: `arena serve`, a Celery worker on
the machine's Redis, PostgreSQL and the command as a process; the organizer analyses
every seat, a bot's token its own, another bot's is refused (exit 3); GetLosses (what
`arena test` prints after its verdict) tells an owner its own bot's average loss."""

from __future__ import annotations

import json
from typing import Any

from arena.engine import Rules
from arena.proto.truco.v1 import arena_pb2 as api
from arena.service import Organizer
from arena.usecases.matches import record as record_match
from arena.usecases.matches import request as request_match
from tests.arenaproc import broker_url
from tests.cli.common import arena as run_arena
from tests.webdata import played


def test_the_organizer_and_an_owner_analyse_a_match(arena_factory: Any, database: str) -> None:
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    tokens = {n: arena.organizer.bot_token(n) for n in ("alpha", "beta", "gamma")}
    ids = [arena.store.bot(n).id for n in ("alpha", "beta")]
    request_match(arena.store, "m-1", Rules(), ids, seed=5)
    record_match(arena.store, "m-1", played(Rules(), ["alpha", "beta"], 5))

    mine = run_arena("analyse", "m-1", "--samples", "8", "--json",
                     env=arena.env | {"ARENA_TOKEN": tokens["alpha"]})  # fmt: skip
    assert mine.returncode == 0, mine.stderr + arena.worker_log()
    seats = json.loads(mine.stdout)["analyses"]
    assert [(s["seat"], s["status"], s["samples"]) for s in seats] == [(0, "done", 8)]
    assert seats[0]["decisions"] and len(seats[0]["line"]) == len(seats[0]["decisions"])

    every = run_arena("analyse", "m-1", "--samples", "8", env=arena.env)
    assert every.returncode == 0, every.stderr
    assert "seat 0 (alpha), 8 samples a decision:" in every.stdout
    assert "seat 1 (beta), 8 samples a decision:" in every.stdout
    assert "points lost a decision" in every.stdout

    other = run_arena("analyse", "m-1", env=arena.env | {"ARENA_TOKEN": tokens["gamma"]})
    assert other.returncode == 3
    assert "did not play in match m-1" in other.stderr
    missing = run_arena("analyse", "m-none", env=arena.env)
    assert missing.returncode == 3 and "no match 'm-none'" in missing.stderr

    asked = api.GetLossesRequest(names=["alpha", "beta", "gamma"])
    every = json.loads(arena.organizer.call("GetLosses", asked).losses_json)
    assert [v["name"] for v in every] == ["alpha", "beta"]  # gamma has no analysed seat
    owner = Organizer(arena.address, tokens["alpha"])  # the calls with alpha's own token
    try:
        (own,) = json.loads(owner.call("GetLosses", asked).losses_json)
    finally:
        owner.close()
    assert own["name"] == "alpha" and own["decisions"] == len(seats[0]["decisions"])


def test_a_pending_analysis_says_whether_a_worker_began_it() -> None:
    from arena.cli.analyse import lines

    seat = {"seat": 1, "bot": "beta", "samples": 8, "status": "pending", "started_at": None,
            "error": "", "decisions": [], "line": [], "marks": [], "mean_loss": None}  # fmt: skip
    head = "seat 1 (beta), 8 samples a decision: pending"
    assert lines("m-1", [seat]) == [
        f"{head} (waiting for a free worker; the same command later shows it)"
    ]
    began = seat | {"started_at": "2026-12-06T18:00:00+00:00"}
    assert lines("m-1", [began]) == [f"{head} (being analysed; the same command later shows it)"]
    failed = seat | {"status": "failed", "error": "hand 2, action 3: no such card"}
    assert lines("m-1", [failed]) == [
        "seat 1 (beta), 8 samples a decision: failed: hand 2, action 3: no such card"
    ]
