"""The analysis of a match never runs ahead of play (workers/app.py, workers/tasks.py):
on the machine's Redis, with the workers' own configuration, a worker asking its queues
as Celery does gets every match and control task waiting before an analysis, whatever
order they were sent in; the Arena API's dispatcher puts analyses on that last queue.
And on both of the machine's brokers, a real worker with one slot plays every match
waiting before it begins an analysis asked before them. An analysis whose task was lost
is sent again by the scheduler's sweep, once no analysis waits in the queue; a worker
whose process for analyses died makes another."""

from __future__ import annotations

import os
import time
import uuid
from concurrent.futures.process import BrokenProcessPool
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from arena.domain.analyses import LOST_S
from arena.engine import Rules
from arena.errors import Unavailable
from arena.proto.truco.v1 import arena_pb2 as api
from arena.settings import Settings
from arena.store.store import Store
from arena.usecases.analyses import ask_analysis
from arena.usecases.matches import record as record_match
from arena.usecases.matches import request as request_match
from tests.arenaproc import Arena, broker_url
from tests.usecases.test_analyses import aged
from tests.webdata import played
from workers.app import app, configure
from workers.dispatch import Dispatcher
from workers.tasks import dispatch, waiting


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


def analysed_after_play(arena: Arena, match_id: str, timeout_s: float = 180.0) -> list[Any]:
    """The match's analyses once none is pending (the database, where progress lives,
    asked every 100 ms)."""
    deadline = time.monotonic() + timeout_s
    while True:
        rows = arena.store.match_analyses(match_id)
        if rows and all(r.status != "pending" for r in rows):
            return rows
        assert time.monotonic() < deadline, arena.worker_log()
        time.sleep(0.1)


@pytest.mark.parametrize("kind", ["redis", "rabbitmq"])
def test_a_worker_plays_every_match_waiting_before_an_analysis(
    arena_factory: Any, kind: str
) -> None:
    # On RabbitMQ a worker's queues deliver as they come: without the look at the broker
    # (an analysis put back while a match waits) the analysis took the one slot early.
    arena = arena_factory(broker_url(kind))
    arena.bots(ana="house:random", bia="house:random")
    ids = [arena.store.bot(n).id for n in ("ana", "bia")]  # type: ignore[union-attr]
    request_match(arena.store, "m-done", Rules(), ids, seed=5)
    record_match(arena.store, "m-done", played(Rules(), ["ana", "bia"], 5))
    asked = api.AnalyseMatchRequest(match_id="m-done", samples=8)
    assert list(arena.organizer.call("AnalyseMatch", asked).asked) == [0, 1]  # sent first
    matches = arena.challenge(["ana", "bia"], 6)  # then the matches, all waiting

    arena.worker("worker", "--concurrency", "1")  # one slot: the order is the queues'
    rows = analysed_after_play(arena, "m-done")
    assert [(r.seat, r.status) for r in rows] == [(0, "done"), (1, "done")]
    arena.wait_matches(matches, len(matches))
    began = [arena.store.match(m)[0].started_at for m in matches]  # type: ignore[index]
    assert min(r.started_at for r in rows) > max(began), (rows, began)


def test_the_sweep_sends_a_lost_analysis_again_once_none_waits(
    store: Store, tmp_path: Path
) -> None:
    settings = Settings.from_env(
        {"ARENA_HOME": str(tmp_path), "ARENA_BROKER_URL": broker_url("redis"),
         "ARENA_QUEUE": f"arena-test-{uuid.uuid4().hex[:8]}"}
    )  # fmt: skip
    configure(settings)
    ids = [store.register_bot(n)[0].id for n in ("ana", "bia")]
    request_match(store, "m-1", Rules(), ids, seed=5)
    record_match(store, "m-1", played(Rules(), ["ana", "bia"], 5))
    assert ask_analysis(store, "m-1", 8, None) == [0, 1]  # its task never sent (lost)
    aged(store, LOST_S + 1)
    Dispatcher(settings).analyse("m-0", 8)  # another analysis waits in the queue
    now = datetime.now(UTC)
    dispatch(store, now, settings.analysis_queue)
    assert waiting(settings.analysis_queue) == 1  # the one waiting may be any: none sent
    assert fetched(settings, 1) == [("arena.analyse", ["m-0", 8])]
    dispatch(store, now, settings.analysis_queue)  # none waits: the lost one is sent
    dispatch(store, now, settings.analysis_queue)  # once
    assert waiting(settings.analysis_queue) == 1
    assert fetched(settings, 1) == [("arena.analyse", ["m-1", 8])]
    assert all(r.sent_at >= now for r in store.match_analyses("m-1"))


def test_a_worker_does_an_analysis_whose_task_was_lost_after_the_sweep(
    arena_factory: Any,
) -> None:
    arena = arena_factory(broker_url("redis"))
    arena.worker()
    ids = [arena.store.register_bot(n)[0].id for n in ("ana", "bia")]
    request_match(arena.store, "m-1", Rules(), ids, seed=5)
    record_match(arena.store, "m-1", played(Rules(), ["ana", "bia"], 5))
    assert ask_analysis(arena.store, "m-1", 8, None) == [0, 1]  # asked; the task was lost
    arena.sweep(minutes_later=LOST_S / 60 + 1)
    rows = analysed_after_play(arena, "m-1")
    assert [(r.seat, r.status) for r in rows] == [(0, "done"), (1, "done")]
    log = arena.processes.log("worker", lines=100_000)
    assert "1 analyses were left behind; sending them again" in log


def test_the_process_for_analyses_is_made_again_when_it_died() -> None:
    from workers import tasks

    record = played(Rules(), ["ana", "bia"], 5)
    first = tasks.analysed_aside(record, 0, "m-1", 4)
    dead = tasks.analyser()
    with pytest.raises(BrokenProcessPool):
        dead.submit(os._exit, 9).result()  # the process is gone, as if killed
    with pytest.raises(Unavailable, match="process for analyses died"):
        tasks.analysed_aside(record, 0, "m-1", 4)  # the task is tried again...
    assert tasks.analysed_aside(record, 0, "m-1", 4) == first  # ...in a new process
    assert tasks.analyser() is not dead
