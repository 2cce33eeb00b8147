"""Stops are prompt (docs/operations.md, "Stopping"): SIGTERM ends `arena serve`,
`worker`, `beat` and `web` within the drain time each states, also when the database or
the broker went away first. The arena runs on the embedded PostgreSQL and Redis of a home
of its own, which the test stops under it. An `arena serve` whose PostgreSQL had stopped
took 30 s to exit: its last write (the node's leases) waited the pool's 30 s for a
connection."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from arena.embedded import (
    broker_url,
    database_url,
    stop_embedded_postgres,
    stop_embedded_redis,
)
from arena.service import Processes, free_address, wait_serving
from arena.settings import Settings
from tests.workers.test_service import logged, wait_for

WORKER_DRAIN_S = 5  # ARENA_WORKER_DRAIN_S, for the test
DRAIN_S = {  # the most each may take, as docs/operations.md states them
    "serve": 10.0,
    "worker": WORKER_DRAIN_S + 10.0,
    "beat": 10.0,
    "web": 10.0,
}


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5):
            return True
    except (urllib.error.URLError, OSError):
        return False


@pytest.mark.parametrize("gone", ["database", "broker"])
def test_sigterm_ends_every_process_in_its_drain_time_with_a_server_gone(
    gone: str, open_tmp: Path
) -> None:
    home = open_tmp / "home"
    address, web = free_address(), free_address()
    env = (
        {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
        | {
            "ARENA_HOME": str(home),  # the embedded PostgreSQL and Redis, this test's own
            "ARENA_ADDRESS": address,
            "ARENA_ADMIN_TOKEN": "organizer-secret",
            "ARENA_QUEUE": f"arena-test-{uuid.uuid4().hex[:8]}",
            "ARENA_DISPATCH_S": "1",  # the beat keeps the worker and the broker busy
            "ARENA_WORKER_DRAIN_S": str(WORKER_DRAIN_S),
        }
    )
    settings = Settings.from_env(env)
    database_url(settings)
    broker_url(settings)
    processes = Processes(env, home / "logs")
    try:
        processes.start("serve", "serve")
        wait_serving(address)
        processes.start("worker", "worker", "--concurrency", "4", "--log-level", "info")
        processes.start("beat", "beat", "--log-level", "info")
        processes.start("web", "web", "--port", web.split(":")[1])
        page = f"http://{web}/"
        wait_for("the worker", lambda: len(logged(processes, "worker", r" ready\.")) > 0, processes)
        wait_for("the web", lambda: answers(page), processes)
        ran = r"Task arena\.dispatch_due\[\S+\] received"
        wait_for("a dispatch", lambda: len(logged(processes, "worker", ran)) > 0, processes)

        if gone == "database":
            stop_embedded_postgres(home)
            before = len(logged(processes, "worker", ran))
            # a task and a page that wait for the database (the pool's 30 s)
            wait_for(
                "a task after", lambda: len(logged(processes, "worker", ran)) > before, processes
            )
            asking = threading.Thread(target=answers, args=(page,), daemon=True)
            asking.start()
        else:
            stop_embedded_redis(home)
            lost = r"Cannot connect to"
            wait_for(
                "the worker's loss", lambda: len(logged(processes, "worker", lost)) > 0, processes
            )
            failed = r"Couldn't apply scheduled task dispatch-due"
            wait_for(
                "the beat's loss", lambda: len(logged(processes, "beat", failed)) > 0, processes
            )

        sent = time.monotonic()
        for process in processes.running.values():
            os.killpg(process.pid, signal.SIGTERM)
        took = {}
        for name, process in processes.running.items():
            left = sent + DRAIN_S[name] - time.monotonic()
            try:  # the timeout is the requirement itself: a process not gone by then fails
                process.wait(timeout=max(0.0, left))
            except subprocess.TimeoutExpired:
                pytest.fail(f"{name} still running {DRAIN_S[name]:.0f} s after SIGTERM\n"
                            f"{processes.log(name)}")  # fmt: skip
            took[name] = time.monotonic() - sent
        codes = {name: p.returncode for name, p in processes.running.items()}
        left_tasks = gone == "database"  # the worker's task waited for the database
        assert codes == {"serve": 0, "worker": int(left_tasks), "beat": 0, "web": 0}, took
        said = len(logged(processes, "worker", "tasks still in progress 5 s after the stop"))
        assert said == int(left_tasks), processes.log("worker")
    finally:
        processes.stop(timeout_s=5)
        with contextlib.suppress(Exception):
            stop_embedded_postgres(home)
        stop_embedded_redis(home)
