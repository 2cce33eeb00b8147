"""Tournaments end to end on real parts: PostgreSQL, a real broker (the machine's Redis and
RabbitMQ, and the embedded Redis), `arena serve`, Celery workers and bots, each a process
of its own. A run plays to the end and its standings agree with the recorded matches; a
schedule fires when the (injected) clock says so. (Killed workers and other faults:
tests/system/test_faults.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from celery import Celery

from arena.embedded import stop_embedded_postgres
from tests.arenaproc import broker_url

FAKEBOT = Path(__file__).resolve().parents[1] / "fakebot.py"


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


def test_a_challenge_plays_as_many_matches_at_once_as_both_bots_allow(
    arena_factory: Any, database: str, tmp_path: Path
) -> None:
    # ana answers nothing until two of its matches are on at once (fakebot's "company"):
    # however quick the bots, its first match is still on when a second could start. Were
    # the matches played one at a time, it would never be sent two that overlap.
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    arena.bots(bia="house:random")  # 8 matches at once
    arena.tokens["ana"] = arena.organizer.bot_token("ana")
    dump = tmp_path / "ana.jsonl"
    env = {"ARENA_ADDRESS": arena.address, "ARENA_TOKEN": arena.tokens["ana"]}
    arena.processes.start(
        "ana", str(FAKEBOT), "company", "--concurrency", "4", "--dump", str(dump), env=env,
        command=[sys.executable],
    )  # fmt: skip
    arena.organizer.wait_connected(["ana"])
    ids = arena.challenge(["ana", "bia"], 6)
    arena.wait_matches(ids, len(ids))
    on: set[str] = set()
    most = 0
    for line in dump.read_text().splitlines():
        message = json.loads(line)
        if "matchStarted" in message:
            on.add(message["matchStarted"]["matchId"])
        elif "matchEnded" in message:
            on.discard(message["matchEnded"]["matchId"])
        most = max(most, len(on))
    assert 2 <= most <= 4, most  # together, and never more than ana's concurrency


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


def test_the_redis_channel_keeps_one_client_and_loses_no_message(tmp_path: Any) -> None:
    """workers.broker: one redis-py client per channel for the unacked bookkeeping, acks
    and publishes (kombu makes one per command), made again with a new pool."""
    from workers.app import app

    url = broker_url("redis")
    queue = f"arena-test-{time.monotonic_ns()}"
    with app.connection_for_write(url) as conn:
        channel = conn.default_channel
        assert type(channel).__module__ == "workers.broker"
        first = channel._create_client()
        assert channel._create_client() is first
        with conn.SimpleQueue(queue) as q:
            for k in range(50):
                q.put({"k": k})
            got = []
            for _ in range(50):
                message = q.get(timeout=5)
                got.append(message.payload["k"])
                message.ack()
            assert got == list(range(50))
            with pytest.raises(q.Empty):  # none left over, none delivered twice
                q.get(block=False)
        channel._pool = None  # as a reconnection leaves it
        assert channel._create_client() is not first


@pytest.mark.parametrize("how", ["closed", "released"])
def test_a_redis_channel_whose_connection_is_gone_fails_as_a_lost_connection(
    how: str, caplog: Any
) -> None:
    """After the broker went away, a channel cannot make a new pool: what asks for one gets
    a connection error, which Celery and kombu handle, never stock kombu's AttributeError.
    "released" is what a worker died of when Redis restarted: its consumer, reconnecting,
    released the connection before closing the channel, and the channel's close (which
    gives back the unacknowledged tasks) raised. "closed" is a task finished after its
    channel closed: its late ack is logged as lost, and the task comes back later."""
    import logging

    import redis
    from kombu import Connection

    from workers import broker

    broker.install()
    conn = Connection(broker_url("redis"))
    channel = conn.default_channel
    with conn.SimpleQueue(f"arena-test-{time.monotonic_ns()}", channel=channel) as q:
        q.put({"k": 1})
        message = q.get(timeout=5)
        if how == "released":
            conn._do_close_transport()  # as Celery's consumer leaves it after collect()
            conn.maybe_close_channel(channel)  # ignores connection errors, nothing else
        else:
            conn.close()  # the message goes back to the queue
            channel._after_fork()  # and the pools are dropped: nothing to make new ones from
        with pytest.raises(redis.ConnectionError):
            message.ack()
        message.ack_log_error(logging.getLogger("test"), conn.connection_errors)
    assert "Couldn't ack" in caplog.text


def test_a_fresh_workers_threads_share_one_store_started_once(open_tmp: Any) -> None:
    # The first tasks of a freshly started worker ask for the store at the same moment;
    # with no database configured, the first one starts the embedded PostgreSQL. Two
    # threads starting it at once in one process broke it ("Unable to release an
    # unacquired lock"), and the tasks were not retried.
    script = (
        "import threading\n"
        "from workers import tasks\n"
        "start, made, errors = threading.Barrier(4), [], []\n"
        "def ask():\n"
        "    start.wait()\n"
        "    try:\n"
        "        made.append(tasks.store())\n"
        "    except Exception as e:\n"
        "        errors.append(repr(e))\n"
        "threads = [threading.Thread(target=ask) for _ in range(4)]\n"
        "for t in threads: t.start()\n"
        "for t in threads: t.join()\n"
        "print(len(errors), len({id(s) for s in made}), errors)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["ARENA_HOME"] = str(open_tmp / "home")
    try:
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
        )
    finally:
        stop_embedded_postgres(open_tmp / "home")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:2] == ["0", "1"], done.stdout


@pytest.mark.parametrize("named", [True, False])
def test_workers_send_the_organizer_token_only_to_a_referee_they_can_trust(
    tmp_path: Any, named: bool
) -> None:
    # With no ARENA_REFEREE_ADDRESS, a worker plays through the home's own referee, on its
    # private socket; it never tries the default TCP port, where anyone could listen first.
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["ARENA_HOME"] = str(tmp_path / "home")
    if named:
        env["ARENA_REFEREE_ADDRESS"] = "referee.example.org:443"
    script = "from workers import tasks; print(tasks.referee().address)"
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    address = done.stdout.strip()
    if named:
        assert address == "referee.example.org:443"
    else:
        assert address == f"unix:{tmp_path / 'home' / 'referee.sock'}", address
