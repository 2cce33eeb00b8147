"""Truco Arena's processes for end-to-end tests: `arena serve`, Celery workers and house
bots, each a process of its own, on one database and broker; and the audit that says
whether a run lost or double-counted anything."""

from __future__ import annotations

import contextlib
import math
import os
import socket
import time
import uuid
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from celery import Celery
from kombu import Connection

from arena import embedded
from arena.domain.poolfit import Lineup, fit, held_anchors
from arena.embedded import stop_embedded_redis
from arena.proto.truco.v1 import arena_pb2 as api
from arena.service import Organizer, Processes, free_address, wait_serving
from arena.settings import Settings
from arena.store.store import Store
from arena.usecases.ratings import refit

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

    def __init__(
        self,
        database: str,
        home: Path,
        broker: str | None,
        serve: Sequence[str] = (),
        **extra: str,
    ) -> None:
        """``serve``: more arguments of `arena serve`; ``extra``: more environment."""
        self.address = free_address()
        env = {
            "ARENA_HOME": str(home),
            "ARENA_DATABASE_URL": database,
            "ARENA_ADDRESS": self.address,
            "ARENA_ADMIN_TOKEN": ADMIN,
            "ARENA_QUEUE": f"arena-test-{uuid.uuid4().hex[:8]}",  # runs never share a queue
            **extra,
        }
        if broker:
            env["ARENA_BROKER_URL"] = broker
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")} | env
        self.processes = Processes(self.env, home / "logs")
        self.processes.start("serve", "serve", *serve)
        wait_serving(self.address)
        self.organizer = Organizer(self.address, ADMIN)
        self.store = Store(database, max_size=2)
        self.tokens: dict[str, str] = {}
        self.houses: dict[str, str] = {}

    def bots(self, **houses: str) -> None:
        for name, house in houses.items():
            self.tokens[name] = self.organizer.bot_token(name)
            self.houses[name] = house
            self.bot(name)
        self.organizer.wait_connected(houses)

    def bot(self, name: str) -> None:
        """Start (or start again) a registered house bot's process."""
        env = {"ARENA_ADDRESS": self.address, "ARENA_TOKEN": self.tokens[name]}
        self.processes.start(name, "bot", "run", self.houses[name], "--concurrency", "8", env=env)

    def sweep(self, minutes_later: float = 10) -> None:
        """Send the scheduler's task with the clock moved on, as if a run had stalled."""
        later = (datetime.now(UTC) + timedelta(minutes=minutes_later)).isoformat()
        sender = Celery("test", broker=self.broker(), set_as_current=False)
        sender.send_task("arena.dispatch_due", kwargs={"now": later}, queue=self.env["ARENA_QUEUE"])

    def broker(self) -> str:
        """The arena's broker: its configured one, else its embedded Redis (this module's
        broker_url names the machine's brokers by kind: it once stood here, and sent the
        sweeps of embedded arenas to RabbitMQ, where no worker listened)."""
        return embedded.broker_url(Settings.from_env(self.env))

    def worker(self, name: str = "worker", *more: str) -> None:
        self.processes.start(name, "worker", "--concurrency", "8", "--log-level", "info", *more)

    def challenge(self, bots: list[str], matches: int) -> list[str]:
        """Rated matches now (RequestMatch); their ids."""
        request = api.RequestMatchRequest(bots=bots, matches=matches)
        return list(self.organizer.call("RequestMatch", request).match_ids)

    def wait_matches(self, ids: list[str], finished: int, timeout_s: float = 180.0) -> None:
        """Until at least ``finished`` of the matches are recorded."""
        deadline = time.monotonic() + timeout_s
        while True:
            done = sum(self.store.match(i)[0].status == "finished" for i in ids)  # type: ignore[index]
            if done >= finished:
                return
            assert time.monotonic() < deadline, f"{done}/{len(ids)}\n{self.worker_log()}"
            time.sleep(0.1)  # polling the database, where progress lives

    def tournament(self, name: str, bots: list[str], **fields: Any) -> Any:
        definition = api.TournamentDefinition(name=name, bots=bots, **fields)
        request = api.CreateTournamentRequest(definition=definition)
        return self.organizer.call("CreateTournament", request)

    def start(self, name: str) -> int:
        request = api.StartTournamentRequest(tournament=name)
        return int(self.organizer.call("StartTournament", request).id)

    def wait_progress(self, run_id: int, finished: int, timeout_s: float = 120.0) -> None:
        """Until at least ``finished`` matches of the run are recorded."""
        deadline = time.monotonic() + timeout_s
        while self.store.run_progress(run_id)["finished"] < finished:
            assert time.monotonic() < deadline, self.worker_log()
            time.sleep(0.05)  # polling the database, where progress lives

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
                    f"{timeout_s:.0f} s\n{self.worker_log()}"
                )
            time.sleep(0.1)  # polling the API: progress lives in the database

    def worker_log(self) -> str:
        """For a failure: the worker log's errors (its last lines are often only the
        consequences of the first error) and then its tail."""
        text = (self.processes.logs / "worker.log").read_text(errors="replace")
        errors = [line for line in text.splitlines() if line.startswith(("ERROR ", "CRITICAL "))]
        return "errors:\n" + "\n".join(errors[:20]) + "\ntail:\n" + self.processes.log("worker")

    def close(self) -> None:
        self.organizer.close()
        self.store.close()
        self.processes.stop()
        self.forget_queues()

    def forget_queues(self) -> None:
        """The arena's queues deleted from the machine's RabbitMQ, where they are durable
        and would stay after the test (on Redis an empty queue is no key)."""
        url = self.env.get("ARENA_BROKER_URL", "")
        if not url.startswith("amqp"):
            return
        settings = Settings.from_env(self.env)
        with Connection(url) as conn:
            for name in (settings.queue, settings.control_queue, settings.analysis_queue):
                with conn.channel() as channel, contextlib.suppress(*conn.channel_errors):
                    channel.queue_delete(name)


@contextlib.contextmanager
def arenas(database: str, home: Path) -> Iterator[Any]:
    """A maker of Arenas on ``database`` under ``home``; all are stopped on exit."""
    made: list[Arena] = []

    def make(broker: str | None, serve: Sequence[str] = (), **extra: str) -> Arena:
        made.append(Arena(database, home, broker, serve, **extra))
        return made[-1]

    try:
        yield make
    finally:
        for a in made:
            a.close()
        stop_embedded_redis(home)


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


def audit(database: str, run_id: int) -> dict[str, float]:
    """What a run lost or counted twice: ``lost`` matches not recorded, ``double`` extra
    rating events (more than one per bot and match, or games that disagree with the
    events), ``drift`` the largest gap between a bot's Elo and the chain of its rating
    events, or between the pool's total and 1500 a bot (1v1 conserves the total)."""
    with psycopg.connect(database) as conn:
        total, finished = conn.execute(
            "SELECT total, (SELECT count(*) FROM matches WHERE run_id = r.id"
            " AND status = 'finished') FROM runs r WHERE id = %s",
            (run_id,),
        ).fetchone() or (0, 0)
    return {"lost": total - finished, **bookkeeping(database)}


def audit_matches(database: str, match_ids: list[str]) -> dict[str, float]:
    """The same audit for matches outside runs (challenges), by id."""
    with psycopg.connect(database) as conn:
        row = conn.execute(
            "SELECT count(*) FROM matches WHERE id = ANY(%s) AND status = 'finished'",
            (match_ids,),
        ).fetchone()
    assert row is not None
    return {"lost": len(match_ids) - row[0], **bookkeeping(database)}


def bookkeeping(database: str) -> dict[str, float]:
    """``double`` and ``drift`` of the whole database (see :func:`audit`): ``drift`` is
    the largest gap between a stored rating and a fresh fit of its pool's recorded
    history (arena/domain/poolfit.py, on lineups counted here from the matches themselves), or
    between the mean of a pool's anchors (the bots its fit's mean is of) and 1500. The
    pools are fitted first, as a reader fits them (the workers fit a busy pool a few times
    a second, not after every match)."""
    store = Store(database, max_size=1)
    try:
        for pool in store.pools():
            refit(store, pool)
    finally:
        store.close()
    with psycopg.connect(database) as conn:
        extra = conn.execute(
            "SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) AS n FROM rating_events"
            " GROUP BY match_id, bot_id) x"
        ).fetchone()
        games_off = conn.execute(
            "SELECT coalesce(sum(abs(r.games - (SELECT count(*) FROM rating_events e"
            " WHERE e.bot_id = r.bot_id AND e.pool = r.pool))), 0) FROM ratings r"
        ).fetchone()
        ratings = conn.execute(
            "SELECT r.pool, b.name, r.elo FROM ratings r JOIN bots b ON b.id = r.bot_id"
        ).fetchall()
        anchored = dict(conn.execute("SELECT pool, anchors FROM pool_fits").fetchall())
    assert extra is not None and games_off is not None
    drift = 0.0
    pools: dict[str, dict[str, float]] = {}
    for pool, name, elo in ratings:
        pools.setdefault(pool, {})[name] = elo
    for pool, stored in pools.items():
        anchors = anchored.get(pool)
        fitted = fit(history_lineups(database, pool), anchors=anchors).ratings
        for name, elo in stored.items():
            drift = max(drift, abs(elo - fitted[name].elo) if name in fitted else abs(elo - 1500))
        held = held_anchors(anchors, fitted)
        mean = [e for b, e in stored.items() if b in held]
        drift = max(drift, abs(math.fsum(mean) - 1500.0 * len(mean)))
    return {"double": int(extra[0]) + int(games_off[0]), "drift": round(drift, 6)}


def history_lineups(database: str, pool: str) -> list[Lineup]:
    """The pool's rated results counted from its matches (the store keeps them as it
    records: this is the check): a lineup per pairing of teams, with the duplicate pairs
    whose two matches both count."""
    with psycopg.connect(database) as conn:
        rows = conn.execute(
            "SELECT m.id, m.twin, m.winner, ARRAY(SELECT b.name FROM match_seats s JOIN bots b"
            " ON b.id = s.bot_id WHERE s.match_id = m.id ORDER BY s.seat) FROM matches m"
            " WHERE m.pool = %s AND m.status = 'finished' AND m.rated AND m.winner IS NOT NULL",
            (pool,),
        ).fetchall()
    played: dict[str, tuple[tuple[str, ...], tuple[str, ...], bool, str | None]] = {}
    for match_id, twin, winner, seats in rows:
        t0, t1 = tuple(sorted(set(seats[0::2]))), tuple(sorted(set(seats[1::2])))
        if set(t0) & set(t1):
            continue
        a, b = min(t0, t1), max(t0, t1)
        played[match_id] = (a, b, (winner == 0) == (a == t0), twin)
    counts: dict[tuple[Any, Any], list[int]] = {}
    for match_id, (a, b, a_won, twin) in played.items():
        entry = counts.setdefault((a, b), [0, 0, 0, 0, 0])
        entry[0] += 1
        entry[1] += a_won
        other = played.get(twin) if twin else None
        if other is not None and match_id < str(twin) and other[:2] == (a, b):
            entry[2 + a_won + other[2]] += 1
    return [Lineup(a, b, g, w, (l0, l1, l2)) for (a, b), (g, w, l0, l1, l2) in counts.items()]
