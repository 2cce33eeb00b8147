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

import pytest

from tests.arenaproc import Arena, broker_url


def wait_for(what: str, done: Callable[[], bool], arena: Arena, timeout_s: float = 60) -> None:
    """Until ``done()``, asked every 50 ms (the logs and the database have no way to tell)."""
    deadline = time.monotonic() + timeout_s
    while not done():
        names = list(arena.processes.running)
        logs = "\n".join(f"--- {n}\n{arena.processes.log(n)}" for n in names)
        assert time.monotonic() < deadline, f"{what}: not after {timeout_s:.0f} s\n{logs}"
        time.sleep(0.05)


def logged(arena: Arena, name: str, pattern: str) -> list[str]:
    """The lines of the process's log that match ``pattern``."""
    text = arena.processes.log(name, lines=100_000)
    return [line for line in text.splitlines() if re.search(pattern, line)]


def test_two_workers_on_one_host_and_rabbitmq_both_play_one_run(arena_factory: Any) -> None:
    # Both used to be celery@HOST: the second died of RESOURCE_LOCKED on the node's
    # exclusive remote-control queue. One takes the default name, one a name of its own.
    arena = arena_factory(broker_url("rabbitmq"))
    chosen = f"mine-{uuid.uuid4().hex[:8]}"
    arena.worker("worker")
    arena.processes.start(
        "worker2", "worker", "--concurrency", "8", "--loglevel", "info", "--name", f"{chosen}@%h"
    )
    arena.bots(ana="house:random", bia="house:random")
    for name in ("worker", "worker2"):
        wait_for(f"{name} ready", lambda n=name: bool(logged(arena, n, r"@\S+ ready\.")), arena)
    first = logged(arena, "worker", r"@\S+ ready\.")[0]
    assert re.search(r"arena-\d+-[0-9a-f]{6}@\S+ ready\.", first), first
    assert f"{chosen}@{socket.gethostname()} ready." in logged(arena, "worker2", "ready")[0]

    arena.tournament("cup", ["ana", "bia"], matches=24)
    run = arena.wait_run(arena.start("cup"))
    assert run.status == "finished" and run.finished == 24
    for name in ("worker", "worker2"):
        assert arena.processes.running[name].poll() is None, arena.processes.log(name)
        assert logged(arena, name, r"match \S+ recorded"), f"{name} played nothing"
        assert not logged(arena, name, "RESOURCE_LOCKED"), arena.processes.log(name)


@pytest.mark.parametrize("bad", ["", "@host", "two words", "x" * 201])
def test_a_worker_name_must_be_a_node_name(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli.grammar import parser

    with pytest.raises(SystemExit) as exited:
        parser().parse_args(["worker", "--name", bad])
    assert exited.value.code == 2
    assert "argument --name: give a node name NAME or NAME@HOST" in capsys.readouterr().err
    assert parser().parse_args(["worker", "--name", "w1@%h"]).name == "w1@%h"
