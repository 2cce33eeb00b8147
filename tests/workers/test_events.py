"""The organizer in control, end to end on real parts: `arena serve`, Celery workers on the
machine's Redis and RabbitMQ, house bots as processes, the CLI as a user types it. A small
run started behind a big one starts at once and a cancel acts at once, on each broker; a
run is paused, resumed, has a match voided and one played again; a tournament is edited,
unscheduled and deleted; bots are withdrawn, disqualified, reinstated and retired.
(The same decisions without processes: tests/usecases/test_events.py.)"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from celery import Celery

from arena.proto.truco.v1 import arena_pb2 as api
from tests.arenaproc import broker_url


def cli(arena: Any, *args: str, status: int = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], env=arena.env, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == status, done.stdout + done.stderr
    return done


def until(what: Any, arena: Any, timeout_s: float = 120.0) -> Any:
    """Poll the database (where progress lives) until ``what()`` is true; its value."""
    deadline = time.monotonic() + timeout_s
    while not (found := what()):
        assert time.monotonic() < deadline, arena.worker_log()
        time.sleep(0.05)  # polling the database: nothing else to wait on
    return found


def count(arena: Any, sql: str, *params: object) -> int:
    with arena.store.pool.connection() as conn:
        row = conn.execute(sql, params).fetchone()
    assert row is not None
    return int(next(iter(row.values())))


@pytest.mark.parametrize("kind", ["redis", "rabbitmq"])
def test_a_small_run_starts_at_once_behind_a_big_one_and_a_cancel_acts_at_once(
    arena_factory: Any, database: str, kind: str
) -> None:
    arena = arena_factory(broker_url(kind))
    arena.worker()
    arena.bots(ana="house:random", bia="house:random")
    arena.tournament("big", ["ana", "bia"], matches=400)
    arena.tournament("small", ["ana", "bia"], matches=2)
    big = arena.start("big")
    arena.wait_progress(big, 1)  # the big run is playing: its matches fill the queue
    small = arena.start("small")
    assert arena.wait_run(small).status == "finished"
    left = 400 - arena.store.run_progress(big)["finished"]
    # one queue in order would have played all of the big run's matches first
    assert left > 200, left
    cancelled = arena.organizer.call("CancelRun", api.RunControlRequest(id=big, reason="test"))
    assert cancelled.status == "cancelled"
    scheduled = "SELECT count(*) FROM matches WHERE run_id = %s AND status = 'scheduled'"
    assert count(arena, scheduled, big) == 0  # at once: nothing of it is left to start
    run = until(
        lambda: (r := arena.organizer.call("GetRun", api.GetRunRequest(id=big))).finished_at and r,
        arena,
    )
    assert run.status == "cancelled" and run.running == 0 and not run.waiting
    assert run.finished + run.cancelled == 400 and run.cancelled > 0
    assert sum(s.played for s in run.standings) == 2 * run.finished


def test_a_run_is_paused_resumed_and_has_matches_voided_and_played_again(
    arena_factory: Any, database: str
) -> None:
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    arena.bots(ana="house:random", bia="house:heuristic")
    arena.tournament("cup", ["ana", "bia"], matches=200)
    run_id = arena.start("cup")
    arena.wait_progress(run_id, 2)
    paused = arena.organizer.call("PauseRun", api.RunControlRequest(id=run_id))
    assert paused.status == "paused"
    playing = "SELECT count(*) FROM matches WHERE run_id = %s AND status = 'running'"
    until(lambda: count(arena, playing, run_id) == 0, arena)  # those playing end
    finished = arena.store.run_progress(run_id)["finished"]
    assert finished < 200
    shown = json.loads(cli(arena, "run", "show", str(run_id), "--json").stdout)
    assert shown["status"] == "paused" and "paused by the organizer" in shown["waiting"]

    # a task of the paused run that a worker takes starts nothing: its match goes back
    with arena.store.pool.connection() as conn:
        held = conn.execute(
            "UPDATE matches SET sent_at = now() WHERE id = (SELECT min(id) FROM matches"
            " WHERE run_id = %s AND status = 'scheduled') RETURNING id",
            (run_id,),
        ).fetchone()
    assert held is not None
    sender = Celery("test", broker=arena.broker(), set_as_current=False)
    sender.send_task("arena.play_match", args=[held["id"]], queue=arena.env["ARENA_QUEUE"])
    unsent = "SELECT count(*) FROM matches WHERE id = %s AND sent_at IS NULL"
    until(lambda: count(arena, unsent, held["id"]) == 1, arena)
    assert arena.store.run_progress(run_id)["finished"] == finished
    assert count(arena, playing, run_id) == 0

    assert "running" in cli(arena, "run", "resume", str(run_id)).stdout
    assert "clean" in cli(arena, "audit", "--run", str(run_id)).stdout  # a paused run is not stuck
    run = arena.wait_run(run_id)
    assert run.status == "finished" and run.finished == 200

    # a finished match played again: the run opens, and its new result counts
    first = min(m.id for m, _ in arena.store.run_matches(run_id, 1000))
    replayed = cli(arena, "run", "replay-match", str(run_id), first, "--reason", "a test")
    assert f"played again as {first}.2" in replayed.stdout
    run = arena.wait_run(run_id)
    assert (run.status, run.finished, run.voided, run.replays) == ("finished", 201, 1, 1)
    assert sum(s.played for s in run.standings) == 400  # 200 matches count, two bots each
    assert [(n.match_id, n.replay_of) for n in run.notes] == [(first, ""), (f"{first}.2", first)]

    # a match voided: it counts for no table and no rating
    games = sum(r.games for r in arena.store.bot_ratings("ana"))
    second = sorted(m.id for m, _ in arena.store.run_matches(run_id, 1000))[1]
    cli(arena, "run", "void", str(run_id), second, "--reason", "wrong clock")
    run = arena.organizer.call("GetRun", api.GetRunRequest(id=run_id))
    assert run.voided == 2 and sum(s.played for s in run.standings) == 398
    assert sum(r.games for r in arena.store.bot_ratings("ana")) == games - 1
    refused = cli(arena, "run", "void", str(run_id), second, "--reason", "again", status=1)
    assert "voided before" in refused.stderr
    assert "clean" in cli(arena, "audit", "--run", str(run_id)).stdout  # exit 0: nothing found


def test_the_organizer_edits_unschedules_and_deletes_tournaments_and_sets_bots_states(
    arena_factory: Any, database: str
) -> None:
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    arena.bots(ana="house:random", bia="house:random", cid="house:heuristic")
    every = ("--schedule", "* * * * *")
    cli(arena, "tournament", "create", "nightly", "--bots", "ana,bia", *every)
    cli(arena, "tournament", "create", "control", "--bots", "ana,bia", *every)
    edited = cli(arena, "tournament", "edit", "nightly", "--matches", "4", "--unrated")
    assert "changed tournament nightly" in edited.stdout
    listed = arena.organizer.call("ListTournaments", api.ListTournamentsRequest())
    nightly = next(t for t in listed.tournaments if t.definition.name == "nightly")
    assert nightly.definition.matches == 4 and not nightly.definition.rated
    assert nightly.definition.schedule == "* * * * *"
    assert "unscheduled" in cli(arena, "tournament", "unschedule", "nightly").stdout

    # the scheduler's look a minute on: the control tournament fires, the unscheduled not
    later = (datetime.now(UTC) + timedelta(minutes=2)).isoformat()
    sender = Celery("test", broker=arena.broker(), set_as_current=False)
    sender.send_task("arena.dispatch_due", kwargs={"now": later}, queue=arena.env["ARENA_QUEUE"])
    runs = (
        "SELECT count(*) FROM runs r JOIN tournaments t ON t.id = r.tournament_id WHERE t.name = %s"
    )
    until(lambda: count(arena, runs, "control") == 1, arena)
    assert count(arena, runs, "nightly") == 0
    control = arena.store.runs(arena.store.tournament("control").id)[0][0].id  # type: ignore[union-attr]
    arena.wait_run(control)  # (deleting one with a run not over: tests/usecases)
    cli(arena, "tournament", "delete", "control")
    assert "control" not in cli(arena, "tournament", "list").stdout
    cli(arena, "tournament", "create", "control", "--bots", "ana,bia")  # the name is free

    # an unrated run moves no rating
    before = {b: sum(r.games for r in arena.store.bot_ratings(b)) for b in ("ana", "bia")}
    unrated = int(cli(arena, "tournament", "start", "nightly").stdout.split()[2])
    assert arena.wait_run(unrated).finished == 4
    assert {b: sum(r.games for r in arena.store.bot_ratings(b)) for b in before} == before

    # withdrawn, disqualified, reinstated, retired: on the leaderboard as the docs say
    cli(arena, "tournament", "create", "trio", "--bots", "ana,bia,cid", "--matches", "2")
    trio = int(cli(arena, "tournament", "start", "trio", "--watch").stdout.split()[2])
    assert arena.wait_run(trio).status == "finished"
    out = cli(arena, "bot", "disqualify", "cid", "--reason", "copied", "--run", str(trio))
    assert "disqualified from run" in out.stdout
    run = arena.organizer.call("GetRun", api.GetRunRequest(id=trio))
    assert {s.bot: s.played for s in run.standings} == {"ana": 2, "bia": 2, "cid": 0}
    assert "withdrawn" in cli(arena, "bot", "withdraw", "cid", "--reason", "ill").stdout
    assert "withdrawn" in cli(arena, "ratings").stdout
    cli(arena, "bot", "reinstate", "cid")
    cli(arena, "bot", "retire", "cid", "--reason", "replaced")
    assert "cid" not in cli(arena, "ratings").stdout
    assert "retired" in cli(arena, "ratings", "--retired").stdout
    refused = cli(arena, "tournament", "create", "again", "--bots", "ana,cid", status=1)
    assert "no active bot named 'cid'" in refused.stderr
    assert "clean" in cli(arena, "audit").stdout  # exit 0: nothing lost or counted twice
    logged = json.loads(cli(arena, "log", "--subject", "bot cid", "--json").stdout)["actions"]
    assert [(e["actor"], e["action"]) for e in reversed(logged)] == [
        ("organizer", "register"), ("organizer", "disqualify"), ("organizer", "withdraw"),
        ("organizer", "reinstate"), ("organizer", "retire"),
    ]  # fmt: skip
