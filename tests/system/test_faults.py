"""Faults injected on the real servers in the middle of a tournament run: a worker killed,
the referee killed and restarted, PostgreSQL restarted, the broker restarted, a bot
killed and restarted. Each time the run must complete with every match recorded once
and every rating equal to the chain of its rating events (tests/arenaproc.py's audit).
Then the load test: 64 matches at once for a while, with the referee's own latency per
decision, no timeout and flat memory.

`make test` runs the short version; `make faults` (ARENA_FAULTS=full) runs longer runs
and a longer load, and ends with the line
`faults: N injected, N survived, R records lost, D double-counted, E Elo drift`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from arena.bots import house_bot
from arena.domain.clock import TimeControl
from arena.embedded import embedded_redis, stop_embedded_redis
from arena.engine import Rules
from arena.service import wait_serving
from arena.store.migrate import migrate
from referee.hub import percentile_us
from referee.local import bot_processes, local_arena
from referee.runner import MatchRunner
from tests import faultlog
from tests.arenaproc import Arena, arenas, audit, audit_matches, broker_url

pytestmark = pytest.mark.faults

FULL = os.environ.get("ARENA_FAULTS") == "full"
MATCHES = 8 if FULL else 4  # per pairing: three bots make 3 * MATCHES matches a run
LOAD_S = 180.0 if FULL else 15.0
BOTS = {"ana": "house:random", "bia": "house:mc", "caio": "house:heuristic"}  # mc: slow


def survive(arena: Arena, database: str, run_id: int) -> Any:
    """After the fault: the scheduler's sweep (with its clock moved on, as if the run had
    stalled) and the run's end; the audit goes to the tally and must find nothing."""
    arena.sweep()
    run = arena.wait_run(run_id, timeout_s=300)
    found = audit(database, run_id)
    ok = run.status == "finished" and found == {"lost": 0, "double": 0, "drift": 0.0}
    faultlog.record(ok, int(found["lost"]), int(found["double"]), found["drift"])
    assert run.status == "finished", run.error
    assert found == {"lost": 0, "double": 0, "drift": 0.0}
    return run


def start(arena: Arena, **fields: Any) -> int:
    arena.worker()
    arena.bots(**BOTS)
    arena.tournament("t", list(BOTS), matches=MATCHES, **fields)
    return arena.start("t")


@pytest.mark.parametrize("broker", ["embedded", "rabbitmq"])
def test_a_worker_killed_mid_run(broker: str, arena_factory: Any, database: str) -> None:
    # Redis gives an unacknowledged task back after the visibility timeout, RabbitMQ as soon
    # as the dead worker's connection closes. Redis can also lose a task the killed worker
    # had just popped (kombu takes it off the queue and marks it unacknowledged in two
    # steps): the scheduler's sweep sends the matches of a stalled run again.
    arena = arena_factory(broker_url(broker), ARENA_BROKER_VISIBILITY_S="4")
    run_id = start(arena)
    arena.wait_progress(run_id, 2)
    arena.processes.kill("worker")
    assert arena.store.run_progress(run_id)["finished"] < 3 * MATCHES, "too late to kill"
    arena.worker("worker-2")
    survive(arena, database, run_id)


def test_the_referee_killed_mid_run_and_restarted(arena_factory: Any, database: str) -> None:
    arena = arena_factory(None)
    run_id = start(arena)
    arena.wait_progress(run_id, 2)
    arena.processes.kill("serve")  # matches in play are lost; their tasks retry, from seed
    assert arena.store.run_progress(run_id)["finished"] < 3 * MATCHES, "too late to kill"
    arena.processes.start("serve", "serve")
    wait_serving(arena.address)
    arena.organizer.close()
    arena.organizer = type(arena.organizer)(arena.address, arena.env["ARENA_ADMIN_TOKEN"])
    arena.organizer.wait_connected(BOTS)  # the bots' SDK reconnects by itself
    survive(arena, database, run_id)


def test_the_referee_killed_mid_challenge_and_restarted(arena_factory: Any, database: str) -> None:
    # Matches asked for with RequestMatch (`arena challenge`) are played by the workers, as
    # a run's are: a referee that dies mid-match leaves them to be played again, from
    # their seeds, once it is back, instead of "running" for good.
    arena = arena_factory(None)
    arena.worker()
    arena.bots(**BOTS)
    ids = arena.challenge(["ana", "bia"], 2 * MATCHES)
    arena.wait_matches(ids, 1)
    arena.processes.kill("serve")
    arena.processes.start("serve", "serve")
    wait_serving(arena.address)
    arena.organizer.close()
    arena.organizer = type(arena.organizer)(arena.address, arena.env["ARENA_ADMIN_TOKEN"])
    arena.organizer.wait_connected(BOTS)
    arena.sweep()  # as the scheduler would, had the matches' tasks been lost
    arena.wait_matches(ids, len(ids), timeout_s=300)
    found = audit_matches(database, ids)
    faultlog.record(found == {"lost": 0, "double": 0, "drift": 0.0}, *found.values())  # type: ignore[arg-type]
    assert found == {"lost": 0, "double": 0, "drift": 0.0}


def test_the_broker_restarted_mid_run(arena_factory: Any, database: str, tmp_path: Path) -> None:
    arena = arena_factory(None, ARENA_BROKER_VISIBILITY_S="4")
    run_id = start(arena)
    arena.wait_progress(run_id, 2)
    home = tmp_path / "home"
    assert stop_embedded_redis(home)
    assert arena.store.run_progress(run_id)["finished"] < 3 * MATCHES, "too late to stop"
    embedded_redis(home)  # the queue was kept on disk (append-only file)
    survive(arena, database, run_id)


@pytest.fixture
def own_postgres(open_tmp: Path) -> Iterator[Any]:
    """A PostgreSQL of this test's own (embedded), so that it may be restarted."""
    import pgserver
    from pgserver._commands import pg_ctl

    server = pgserver.get_server(open_tmp / "pg", cleanup_mode="stop")
    yield server
    # the test restarted it, so pgserver's own clean-up would stop a process long gone
    with contextlib.suppress(subprocess.CalledProcessError):
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=server.pgdata, user=server.system_user)
    server.cleanup()


def test_postgres_restarted_mid_run(own_postgres: Any, tmp_path: Path) -> None:
    from pgserver._commands import pg_ctl

    url = own_postgres.get_uri()
    migrate(url)  # the arena's processes migrate only the embedded database
    with arenas(url, tmp_path / "home") as make:
        arena = make(None)
        run_id = start(arena)
        arena.wait_progress(run_id, 2)
        restart = ["-w", "-m", "fast", "restart"]  # every connection breaks
        pg_ctl(restart, pgdata=own_postgres.pgdata, user=own_postgres.system_user)
        assert arena.store.run_progress(run_id)["finished"] < 3 * MATCHES, "too late"
        survive(arena, url, run_id)


def test_a_bot_killed_mid_run_and_restarted(arena_factory: Any, database: str) -> None:
    arena = arena_factory(None)
    run_id = start(arena, reconnect_grace_ms=1500)
    arena.wait_progress(run_id, 2)
    arena.processes.kill("bia")
    # its seats are held for the grace, then a house bot plays for it...
    deadline = time.monotonic() + 60
    while substituted(database, "bia") == 0:
        assert time.monotonic() < deadline, arena.processes.log("serve")
        time.sleep(0.05)  # polling the records for the stand-in
    arena.bot("bia")  # ...until it comes back and takes its seats again
    arena.organizer.wait_connected(["bia"])
    run = survive(arena, database, run_id)
    faults = match_faults(database, run.id)
    for name in ("ana", "caio"):  # bia's absence is no fault of the others'
        assert all(sum(f.get(name, {}).values()) == 0 for f in faults)
    assert sum(f.get("bia", {}).get("disconnects", 0) for f in faults) >= 1
    again = arena.wait_run(arena.start("t"))  # back in its seats: no stand-in any more
    assert all(sum(f.get("bia", {}).values()) == 0 for f in match_faults(database, again.id))


def match_faults(database: str, run_id: int) -> list[dict[str, dict[str, int]]]:
    with psycopg.connect(database) as conn:
        rows = conn.execute("SELECT faults FROM matches WHERE run_id = %s", (run_id,))
        return [r[0] for r in rows]


def substituted(database: str, bot: str) -> int:
    with psycopg.connect(database) as conn:
        row = conn.execute(
            "SELECT coalesce(sum((faults -> %s ->> 'substituted')::int), 0) FROM matches",
            (bot,),
        ).fetchone()
    return int(row[0]) if row else 0


# ---- load ---------------------------------------------------------------------------------


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def test_64_matches_at_once_keep_their_clocks_and_memory() -> None:
    """An in-process referee, four `random` bot processes each seated in 32 matches at
    once, 64 matches at a time for LOAD_S seconds: no timeout, the referee's own latency
    per decision (action in to next request out), and memory that does not grow. Beside
    them, MUTE_LANES matches in which a bot that never answers holds both teams (100 ms a
    decision, no bank): every deadline fires, and how late the referee acts on each
    (from the deadline to the default action) is reported at p50, p99 and max."""
    result = asyncio.run(_load(LOAD_S, at_once=64))
    p50, p99 = (percentile_us(result["latency_us"], q) for q in (0.5, 0.99))
    decisions = sum(result["latency_us"])
    samples = result["rss"]
    grown = samples[-1] - samples[len(samples) // 4]
    late = sorted(result["lateness"])
    faultlog.NOTES.append(
        f"load: 64 matches at once for {LOAD_S:.0f} s: {result['matches']} matches, "
        f"{decisions} decisions ({decisions / LOAD_S:.0f}/s), "
        f"referee latency p50 {p50:.0f} us, p99 {p99:.0f} us, timeouts {result['timeouts']}, "
        f"RSS {samples[len(samples) // 4]:.0f} -> {samples[-1]:.0f} MB"
    )
    faultlog.NOTES.append(
        f"deadlines: {len(late)} fired under that load, acted on late by "
        f"p50 {1000 * _quantile(late, 0.5):.1f} ms, p99 {1000 * _quantile(late, 0.99):.1f} ms, "
        f"max {1000 * late[-1]:.1f} ms (goal: p99 under 20 ms)"
    )
    assert result["timeouts"] == 0
    assert result["matches"] >= 64
    assert result["mute_timeouts"] == len(late) > 0  # every deadline of the mute bot fired
    assert grown < max(12.0, 0.15 * samples[len(samples) // 4]), samples


def _quantile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


MUTE_LANES = 4
MUTE_CLOCK = TimeControl(decision_ms=100, time_bank_ms=0)


async def _load(seconds: float, at_once: int) -> dict[str, Any]:
    mute = str(Path(__file__).resolve().parents[1] / "fakebot.py")
    bots = bot_processes(
        ["house:random"] * 4 + [f"{sys.executable} {mute} sleepy --concurrency {MUTE_LANES}"]
    )
    for bot in bots[:4]:
        bot.argv += ["--concurrency", "32"]
    rules, clock = Rules(), TimeControl(decision_ms=1000)
    out: dict[str, Any] = {"matches": 0, "timeouts": 0, "mute_timeouts": 0, "rss": []}
    async with local_arena(bots) as hub:
        hub.latency_us[:] = [0] * len(hub.latency_us)
        hub.lateness.clear()
        names = [b.name for b in bots]
        counter = itertools.count()
        stop_at = asyncio.get_running_loop().time() + seconds

        async def lane(k: int) -> None:
            a, b = names[(k % 2) * 2], names[(k % 2) * 2 + 1]
            while asyncio.get_running_loop().time() < stop_at:
                n = next(counter)
                seats = [a, b] if n % 2 else [b, a]
                runner = MatchRunner(
                    hub, f"load-{n}", rules, seats, seed=n, clock=clock,
                    stand_in=lambda: house_bot("heuristic"),
                )  # fmt: skip
                record = await runner.run()
                out["matches"] += 1
                out["timeouts"] += sum(f["timeouts"] for f in record["faults"].values())

        async def mute_lane(k: int) -> None:
            while asyncio.get_running_loop().time() < stop_at:
                runner = MatchRunner(
                    hub, f"mute-{k}-{next(counter)}", rules, [names[4], names[4]], seed=k,
                    clock=MUTE_CLOCK, stand_in=lambda: house_bot("heuristic"),
                )  # fmt: skip
                record = await runner.run()
                out["mute_timeouts"] += record["faults"][names[4]]["timeouts"]

        async def sample() -> None:
            while asyncio.get_running_loop().time() < stop_at:
                out["rss"].append(rss_mb())
                await asyncio.sleep(seconds / 20)  # a sampling period, not a synchronisation

        mute_lanes = (mute_lane(k) for k in range(MUTE_LANES))
        await asyncio.gather(sample(), *(lane(k) for k in range(at_once)), *mute_lanes)
        out["latency_us"] = list(hub.latency_us)
        out["lateness"] = list(hub.lateness)
    out["rss"].append(rss_mb())
    return out
