"""Workers and schedulers run as services (docs/operations.md, "Workers and the
scheduler"): several workers on one host and broker, several beats on one database, a
beat on standby. Real processes on the machine's PostgreSQL and brokers."""

from __future__ import annotations

import re
import socket
import time
import uuid
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
import redis

from arena.service import Processes
from tests.arenaproc import Arena, broker_url


def wait_for(
    what: str, done: Callable[[], bool], processes: Processes, timeout_s: float = 60
) -> None:
    """Until ``done()``, asked every 50 ms (the logs and the database have no way to tell)."""
    deadline = time.monotonic() + timeout_s
    while not done():
        logs = "\n".join(f"--- {n}\n{processes.log(n)}" for n in processes.running)
        assert time.monotonic() < deadline, f"{what}: not after {timeout_s:.0f} s\n{logs}"
        time.sleep(0.05)


def logged(processes: Processes, name: str, pattern: str) -> list[str]:
    """The lines of the process's log that match ``pattern``."""
    text = processes.log(name, lines=100_000)
    return [line for line in text.splitlines() if re.search(pattern, line)]


def test_two_workers_on_one_host_and_rabbitmq_both_play_one_run(arena_factory: Any) -> None:
    # Both used to be celery@HOST: the second died of RESOURCE_LOCKED on the node's
    # exclusive remote-control queue. One takes the default name, one a name of its own.
    arena = arena_factory(broker_url("rabbitmq"))
    p = arena.processes
    chosen = f"mine-{uuid.uuid4().hex[:8]}"
    arena.worker("worker")
    p.start(
        "worker2", "worker", "--concurrency", "8", "--log-level", "info", "--name", f"{chosen}@%h"
    )
    arena.bots(ana="house:random", bia="house:random")
    for name in ("worker", "worker2"):
        wait_for(f"{name} ready", lambda n=name: bool(logged(p, n, r"@\S+ ready\.")), p)
    first = logged(p, "worker", r"@\S+ ready\.")[0]
    assert re.search(r"arena-\d+-[0-9a-f]{6}@\S+ ready\.", first), first
    assert f"{chosen}@{socket.gethostname()} ready." in logged(p, "worker2", "ready")[0]

    arena.tournament("cup", ["ana", "bia"], matches=24)
    run = arena.wait_run(arena.start("cup"))
    assert run.status == "finished" and run.finished == 24
    for name in ("worker", "worker2"):
        assert p.running[name].poll() is None, p.log(name)
        assert logged(p, name, r"match \S+ recorded"), f"{name} played nothing"
        assert not logged(p, name, "RESOURCE_LOCKED"), p.log(name)


@pytest.mark.parametrize("bad", ["", "@host", "two words", "x" * 201])
def test_a_worker_name_must_be_a_node_name(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli.grammar import parser

    with pytest.raises(SystemExit) as exited:
        parser().parse_args(["worker", "--name", bad])
    assert exited.value.code == 2
    assert "argument --name: give a node name NAME or NAME@HOST" in capsys.readouterr().err
    assert parser().parse_args(["worker", "--name", "w1@%h"]).name == "w1@%h"


def due_every_minute(arena: Arena, name: str) -> Any:
    """A tournament scheduled every minute whose last firing was long ago: a firing is
    due at once, and every minute after."""
    t = arena.tournament(name, ["ana", "bia"], matches=2, schedule="* * * * *")
    with arena.store.pool.connection() as conn:
        conn.execute(
            "UPDATE tournaments SET fired_at = now() - interval '5 minutes' WHERE id = %s",
            (t.id,),
        )
    return t


SENT = r"Sending due task dispatch-due"
DISPATCHED = r"Task arena\.dispatch_due\[\S+\] succeeded"


def test_two_beats_on_one_database_start_one_run_per_tick(arena_factory: Any) -> None:
    arena = arena_factory(broker_url("redis"), ARENA_DISPATCH_S="1")
    p = arena.processes
    arena.worker()
    arena.bots(ana="house:random", bia="house:random")
    t = due_every_minute(arena, "minutely")
    for name in ("beat", "beat2"):
        p.start(name, "beat", "--log-level", "info")
    wait_for("a run", lambda: bool(arena.store.runs(t.id)), p)
    # both beats go on sending the tick's dispatch, and the worker runs them all
    sent = {name: len(logged(p, name, SENT)) for name in ("beat", "beat2")}
    wait_for(
        "three more dispatches from each beat",
        lambda: all(len(logged(p, n, SENT)) >= k + 3 for n, k in sent.items()),
        p,
    )
    total = sum(len(logged(p, n, SENT)) for n in sent)

    def ran() -> bool:
        return len(logged(p, "worker", DISPATCHED)) >= total

    wait_for("the worker ran them", ran, p)
    with psycopg.connect(arena.env["ARENA_DATABASE_URL"]) as conn:  # one run per tick
        runs, ticks = conn.execute(
            "SELECT count(*), count(DISTINCT fired_for) FROM runs WHERE tournament_id = %s",
            (t.id,),
        ).fetchone() or (0, 0)
    assert runs == ticks >= 1, (runs, ticks)
    assert arena.wait_run(arena.store.runs(t.id)[-1][0].id).status == "finished"


def test_a_beat_on_standby_sends_nothing(arena_factory: Any) -> None:
    arena = arena_factory(broker_url("redis"), ARENA_DISPATCH_S="1")
    p = arena.processes
    arena.bots(ana="house:random", bia="house:random")
    t = due_every_minute(arena, "minutely")
    p.start("standby", "beat", "--standby", "--log-level", "info")
    p.start("standby2", "beat", "--log-level", "info", env={"ARENA_STANDBY": "1"})
    for name in ("standby", "standby2"):
        # its entries fall due, each said and dropped: where a beat would have sent them
        wait_for(
            f"{name} passing its dispatch by twice",
            lambda n=name: len(logged(p, n, "on standby: dispatch-due not sent")) >= 2,
            p,
        )
        assert logged(p, name, "on standby: this beat sends nothing")
        assert not logged(p, name, SENT)
    queued = redis.Redis.from_url(arena.broker()).keys(f"{arena.env['ARENA_QUEUE']}*")
    assert queued == []  # not a message sent to any of the arena's queues
    assert arena.store.runs(t.id) == []
    # the same arena with a beat in service: the firing was due all along
    arena.worker()
    p.start("beat", "beat", "--log-level", "info")
    wait_for("a run", lambda: bool(arena.store.runs(t.id)), p)


def test_the_scheduler_settings_refuse_what_they_cannot_mean() -> None:
    from arena.errors import Invalid
    from arena.settings import Settings

    assert Settings.from_env({}).standby is False and Settings.from_env({}).dispatch_s is None
    on = Settings.from_env({"ARENA_STANDBY": "yes", "ARENA_DISPATCH_S": "5"})
    assert on.standby is True and on.dispatch_s == 5
    assert Settings.from_env({"ARENA_STANDBY": "0"}).standby is False
    for env, said in [
        ({"ARENA_STANDBY": "maybe"}, "ARENA_STANDBY must be 1 or 0"),
        ({"ARENA_DISPATCH_S": "0"}, "ARENA_DISPATCH_S must be at least 1 second"),
        ({"ARENA_DISPATCH_S": "1.5"}, "ARENA_DISPATCH_S must be a whole number of seconds"),
    ]:
        with pytest.raises(Invalid, match=said):
            Settings.from_env(env)
