"""Tournaments end to end on real parts: PostgreSQL, a real broker (the machine's Redis and
RabbitMQ, and the embedded Redis), `arena serve`, Celery workers and bots, each a process
of its own. A run plays to the end and its standings agree with the recorded matches; a
schedule fires when the (injected) clock says so; a worker killed mid-run leaves every
match recorded exactly once after redelivery."""

from __future__ import annotations

import json
import socket
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from celery import Celery

from arena.proto.truco.v1 import arena_pb2 as api
from arena.service import Organizer, Processes, free_address, wait_serving
from arena.settings import Settings, stop_embedded_redis
from arena.store.store import Store
from arena.tournament import Result, standings

ADMIN = "organizer-secret"
MACHINE_REDIS = ("127.0.0.1", 6379)
MACHINE_RABBITMQ = ("127.0.0.1", 5672)


def answers(address: tuple[str, int]) -> bool:
    try:
        socket.create_connection(address, timeout=1).close()
        return True
    except OSError:
        return False


def broker_url(kind: str) -> str | None:
    if kind == "embedded":
        return None
    if kind == "redis":
        if not answers(MACHINE_REDIS):
            pytest.skip("no Redis at 127.0.0.1:6379 (.ci/run starts the machine's)")
        return "redis://127.0.0.1:6379/3"
    if not answers(MACHINE_RABBITMQ):
        pytest.skip("no RabbitMQ at 127.0.0.1:5672 (.ci/run starts the machine's)")
    return "amqp://guest:guest@127.0.0.1:5672//"


class Arena:
    """`arena serve`, workers and house bots as processes, on one broker and database."""

    def __init__(self, database: str, home: Path, broker: str | None, **extra: str) -> None:
        self.address = free_address()
        env = {
            "ARENA_HOME": str(home),
            "ARENA_DATABASE_URL": database,
            "ARENA_REFEREE_ADDRESS": self.address,
            "ARENA_ADMIN_TOKEN": ADMIN,
            "ARENA_QUEUE": f"arena-test-{uuid.uuid4().hex[:8]}",  # runs never share a queue
            **extra,
        }
        if broker:
            env["ARENA_BROKER_URL"] = broker
        import os

        self.env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")} | env
        self.processes = Processes(self.env, home / "logs")
        self.processes.start("serve", "serve")
        wait_serving(self.address)
        self.organizer = Organizer(self.address, ADMIN)
        self.store = Store(database, max_size=2)

    def bots(self, **houses: str) -> None:
        for name, house in houses.items():
            token = self.organizer.bot_token(name)
            env = {"ARENA_ADDRESS": self.address, "ARENA_TOKEN": token}
            self.processes.start(name, "bot", "run", house, "--concurrency", "8", env=env)
        self.organizer.wait_connected(houses)

    def broker(self) -> str:
        return self.env.get("ARENA_BROKER_URL") or Settings.from_env(self.env).broker()

    def worker(self, name: str = "worker") -> None:
        self.processes.start(name, "worker", "--concurrency", "8", "--loglevel", "info")

    def tournament(self, name: str, bots: list[str], **fields: Any) -> Any:
        definition = api.TournamentDefinition(name=name, bots=bots, **fields)
        request = api.CreateTournamentRequest(definition=definition)
        return self.organizer.call("CreateTournament", request)

    def start(self, name: str) -> int:
        request = api.StartTournamentRequest(tournament=name)
        return int(self.organizer.call("StartTournament", request).id)

    def wait_run(self, run_id: int, timeout_s: float = 180.0) -> Any:
        """Until the run ends (asks every 100 ms); its last state."""
        deadline = time.monotonic() + timeout_s
        while True:
            run = self.organizer.call("GetRun", api.GetRunRequest(id=run_id))
            if run.status in ("finished", "failed"):
                return run
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"run {run_id} is {run.status}, {run.finished}/{run.total} after "
                    f"{timeout_s:.0f} s\n{self.processes.log('worker')}"
                )
            time.sleep(0.1)  # polling the API: progress lives in the database

    def close(self) -> None:
        self.organizer.close()
        self.store.close()
        self.processes.stop()


@pytest.fixture
def arena_factory(database: str, tmp_path: Path) -> Iterator[Any]:
    made: list[Arena] = []

    def make(broker: str | None, **extra: str) -> Arena:
        made.append(Arena(database, tmp_path / "home", broker, **extra))
        return made[-1]

    yield make
    for a in made:
        a.close()
    stop_embedded_redis(tmp_path / "home")


def recorded_exactly_once(database: str, run_id: int) -> tuple[int, int]:
    """(matches finished, rating events) of the run; each match must have one event per
    bot and every bot's games must equal its events."""
    with psycopg.connect(database) as conn:
        finished = conn.execute(
            "SELECT count(*) FROM matches WHERE run_id = %s AND status = 'finished'", (run_id,)
        ).fetchone()
        events = conn.execute(
            "SELECT count(*) FROM rating_events e JOIN matches m ON m.id = e.match_id"
            " WHERE m.run_id = %s",
            (run_id,),
        ).fetchone()
        per_match = conn.execute(
            "SELECT max(n) FROM (SELECT count(*) AS n FROM rating_events"
            " GROUP BY match_id, bot_id) x"
        ).fetchone()
        games = conn.execute(
            "SELECT bool_and(r.games = (SELECT count(*) FROM rating_events e"
            " WHERE e.bot_id = r.bot_id AND e.pool = r.pool)) FROM ratings r"
        ).fetchone()
    assert per_match is not None and per_match[0] == 1
    assert games is not None and games[0] is True
    assert finished is not None and events is not None
    return finished[0], events[0]


@pytest.mark.parametrize("broker", ["embedded", "redis", "rabbitmq"])
def test_a_duplicate_round_robin_plays_to_the_end(
    broker: str, arena_factory: Any, database: str
) -> None:
    arena = arena_factory(broker_url(broker))
    arena.worker()
    arena.bots(ana="house:random", bia="house:random", caio="house:heuristic")
    arena.tournament("rr", ["ana", "bia", "caio"], matches=4, decision_ms=2000)
    run = arena.wait_run(arena.start("rr"))
    assert (run.status, run.total, run.finished, run.failed) == ("finished", 12, 12, 0)
    assert recorded_exactly_once(database, run.id) == (12, 24)
    # the final table is the standings of the recorded matches, recomputed here
    rows = [
        (m, names)
        for m, names in arena.store.matches(limit=100)
        if m.run_id == run.id and m.record is not None
    ]
    results = [Result(m.id, names, m.winner or 0, _points(m.record), m.faults) for m, names in rows]
    expected = standings(["ana", "bia", "caio"], results)
    got = {s.bot: (s.rank, s.points, s.wins, s.hand_points) for s in run.standings}
    want = {
        r["bot"]: (r["rank"], r["points"], r["wins"], r["hand_points"]) for r in expected["table"]
    }
    assert got == want
    assert sum(c.wins for c in run.crosstable) == 12


def _points(record: dict[str, Any]) -> tuple[int, int]:
    from arena.tournament import hand_points

    return hand_points(record)


def test_a_schedule_fires_when_its_time_comes(arena_factory: Any, database: str) -> None:
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    arena.bots(ana="house:random", bia="house:random")
    t = arena.tournament("nightly", ["ana", "bia"], matches=2, schedule="0 3 * * *")
    settings_env = arena.env
    client = Celery("test", broker=settings_env["ARENA_BROKER_URL"], set_as_current=False)
    queue = settings_env["ARENA_QUEUE"]
    firing = datetime.now(UTC).replace(hour=3, minute=0, second=0, microsecond=0)
    before, after = firing.replace(minute=0, hour=2, second=59), firing.replace(minute=1)
    with arena.store.pool.connection() as conn:  # the definition was made long before
        conn.execute("UPDATE tournaments SET fired_at = %s - interval '2 hours'", (firing,))
    for now in (before, after, after):  # not yet; due; due again (one run, not two)
        client.send_task("arena.dispatch_due", kwargs={"now": now.isoformat()}, queue=queue)
    deadline = time.monotonic() + 60
    while not (runs := arena.store.runs(t.id)):
        assert time.monotonic() < deadline, arena.processes.log("worker")
        time.sleep(0.1)  # polling the database for the run the worker makes
    run = arena.wait_run(runs[0][0].id)
    assert run.status == "finished" and run.fired_for.startswith(firing.isoformat()[:16])
    assert len(arena.store.runs(t.id)) == 1


@pytest.mark.parametrize("broker", ["embedded", "rabbitmq"])
def test_a_worker_killed_mid_run_leaves_every_match_recorded_once(
    broker: str, arena_factory: Any, database: str
) -> None:
    # Redis redelivers an unacknowledged task after the visibility timeout; RabbitMQ as soon
    # as the dead worker's connection closes.
    arena = arena_factory(broker_url(broker), ARENA_BROKER_VISIBILITY_S="4")
    arena.worker("worker")
    arena.bots(ana="house:random", bia="house:heuristic", caio="house:mc")
    arena.tournament("long", ["ana", "bia", "caio"], matches=8)
    run_id = arena.start("long")
    deadline = time.monotonic() + 120
    while arena.store.run_progress(run_id)["finished"] < 3:
        assert time.monotonic() < deadline, arena.processes.log("worker")
        time.sleep(0.05)  # polling the database: kill once a few matches are in
    arena.processes.kill("worker")
    progress = arena.store.run_progress(run_id)
    assert progress["finished"] < 24, "the run ended before the worker could be killed"
    arena.worker("worker-2")
    # Redis can lose a task that the killed worker had just popped (kombu takes it off the
    # queue and marks it unacknowledged in two steps): the scheduler's sweep sends the
    # matches of a run without progress again. The clock is moved on to make it due now,
    # while redelivered copies are still coming in: each match must still count once.
    later = (datetime.now(UTC) + timedelta(minutes=10)).isoformat()
    sender = Celery("test", broker=arena.broker(), set_as_current=False)
    sender.send_task("arena.dispatch_due", kwargs={"now": later}, queue=arena.env["ARENA_QUEUE"])
    run = arena.wait_run(run_id)
    assert (run.status, run.finished, run.total) == ("finished", 24, 24)
    assert recorded_exactly_once(database, run_id) == (24, 48)
    log = arena.processes.log("worker-2", lines=400)
    assert "arena.play_match" in log


def test_the_cli_creates_starts_and_shows_a_tournament(arena_factory: Any, database: str) -> None:
    import subprocess
    import sys

    arena = arena_factory(broker_url("redis"))
    arena.worker()
    arena.bots(ana="house:random", bia="house:heuristic")

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "-m", "arena.cli", *args], env=arena.env, capture_output=True,
            text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done

    assert (
        "created tournament cup"
        in cli("tournament", "create", "cup", "--bots", "ana,bia", "--matches", "4").stdout
    )
    started = cli("tournament", "start", "cup", "--watch")
    assert "started run" in started.stdout and "crosstable" in started.stdout
    run_id = int(started.stdout.split()[2])
    shown = json.loads(cli("tournament", "show", str(run_id), "--json").stdout)
    assert shown["status"] == "finished" and shown["finished"] == 4
    assert {s["bot"] for s in shown["standings"]} == {"ana", "bia"}
    assert "cup" in cli("tournament", "list").stdout
    refused = subprocess.run(
        [sys.executable, "-m", "arena.cli", "tournament", "create", "bad", "--bots", "ana",
         "--matches", "3"], env=arena.env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert refused.returncode == 1 and "at least two bots" in refused.stderr
