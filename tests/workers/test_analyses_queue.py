"""The analysis of a match never runs ahead of play (workers/app.py): on the machine's
Redis, with the workers' own configuration, a worker asking its queues as Celery does
gets every match and control task waiting before an analysis, whatever order they were
sent in; the Arena API's dispatcher puts analyses on that last queue."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from arena.settings import Settings
from tests.arenaproc import broker_url
from workers.app import app, configure
from workers.dispatch import Dispatcher


def fetched(settings: Settings, count: int) -> list[tuple[str, list[object]]]:
    """The next ``count`` tasks a worker of ``settings`` takes, one at a time (as its
    prefetch of one per slot does), each acknowledged before the next is asked for."""
    got: list[tuple[str, list[object]]] = []

    def take(body: object, message: object) -> None:
        got.append((message.headers["task"], list(body[0])))
        message.ack()

    queues = app.conf.task_queues
    with app.connection_for_read() as conn, conn.Consumer(queues, callbacks=[take]) as c:
        c.qos(prefetch_count=1)
        deadline = time.monotonic() + 30
        while len(got) < count:
            assert time.monotonic() < deadline, got
            conn.drain_events(timeout=5)
    return got


def test_an_analysis_waits_until_no_match_is_left_to_play(tmp_path: Path) -> None:
    url = broker_url("redis")
    settings = Settings.from_env(
        {"ARENA_HOME": str(tmp_path), "ARENA_BROKER_URL": url,
         "ARENA_QUEUE": f"arena-test-{uuid.uuid4().hex[:8]}"}  # its own, on a shared broker
    )  # fmt: skip
    configure(settings)
    Dispatcher(settings).analyse("m-0", 8)  # sent first
    app.send_task("arena.analyse", args=["m-1", 8])  # routed by the workers' own table
    for k in range(3):
        app.send_task("arena.play_match", args=[f"m-{k}"])
    app.send_task("arena.sprt", args=[7])  # a control task, sent last
    got = fetched(settings, 6)
    assert [name for name, _ in got] == [
        "arena.sprt",
        *["arena.play_match"] * 3,
        "arena.analyse",
        "arena.analyse",
    ]
    assert [args for name, args in got if name == "arena.analyse"] == [["m-0", 8], ["m-1", 8]]
