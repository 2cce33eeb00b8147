"""Tournament throughput through Celery, PostgreSQL and the referee, next to the same
matches played locally (``arena match``'s code path), measured in the same run.

``python -m tests.bench.workers`` (part of ``make bench``) plays ``--rounds`` rounds (7); in each,
``--matches`` matches (300) between two ``house:random`` bots, 16 at once, on each side:

- **local**: :func:`referee.local.play_local` with two ``house:random`` bots (which
  declare a concurrency of 16), from its first match start to its last match finish.
- **tournament**: ``arena serve``, ``arena worker --concurrency 32`` and two bot processes
  (``arena bot run house:random --concurrency 16``), each a process of its own, on a
  fresh PostgreSQL database and a broker, started once for all rounds; a round robin of
  the two bots, started with StartTournament. Its rate is measured from the run's first
  match start to its last match finish, as the store records them (``started_at``,
  ``finished_at``). A short warm-up run before the first round starts the worker's
  threads, channels and connections.

The machine's speed drifts from one second to the next, so the two sides are measured in
pairs, one right after the other, and the verdict is the median of the rounds' ratios.
The goal: orchestration costs at most 20%, a tournament rate at least 80% of the local one.
Both sides print their CPU per match by process kind (user + system time, from /proc for
the tournament's processes and every PostgreSQL process; the local referee is this
process, its bots are children, their start-up included), which tells where a difference
comes from when the rates alone swing with the machine's load.

The database server is ``ARENA_DATABASE_URL``'s, else the machine's (127.0.0.1:5432),
else the embedded one; the bench makes a scratch database and drops it afterwards. The
broker is the embedded Redis under a temporary ``ARENA_HOME`` (stopped afterwards), or
``--broker URL``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import resource
import secrets
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg

import referee.local
from arena.domain.clock import TimeControl
from arena.embedded import database_url, stop_embedded_redis
from arena.engine import Rules
from arena.proto.truco.v1 import arena_pb2 as api
from arena.service import Organizer, Processes, free_address, wait_serving
from arena.settings import Settings
from arena.store.migrate import migrate
from arena.store.store import Store
from arena.wire_clock import clock_to_pb
from referee.runner import MatchRunner
from tests import scratch

GOAL = 0.80
CONCURRENCY = 16  # the worker's threads and each bot's declared concurrency (its default)
MATCHES = 300  # in each side of a round
ROUNDS = 7
WARM_UP = 32
DECISION_MS = 30_000  # nothing times out, however loaded the machine
TIME_BANK_MS = 60_000
CLOCK = TimeControl(decision_ms=DECISION_MS, time_bank_ms=TIME_BANK_MS)
MACHINE_DATABASE = "postgresql://postgres@127.0.0.1:5432/postgres"


@dataclass
class Rate:
    matches: int
    seconds: float
    cpu_ms: dict[str, float] = field(default_factory=dict)  # per match, by process kind

    @property
    def per_s(self) -> float:
        return self.matches / self.seconds


# ---- servers ------------------------------------------------------------------------------


def cpu_s(pids: list[int]) -> float:
    """CPU seconds (user + system, all threads) the processes have used so far."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def postgres() -> list[int]:
    """Every PostgreSQL server process on the machine (the bench's database is one of
    them; the others are idle)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == "postgres":
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@contextlib.contextmanager
def scratch_database(home: Path) -> Iterator[str]:
    """A fresh database on ``ARENA_DATABASE_URL``'s server, else the machine's, else the
    embedded one under ``home``, migrated (the arena's processes migrate a configured
    database only with --migrate); dropped (and the embedded server stopped) afterwards."""
    embedded = None
    admin = os.environ.get("ARENA_DATABASE_URL") or MACHINE_DATABASE
    try:
        with psycopg.connect(admin, connect_timeout=3):
            pass
    except psycopg.OperationalError:
        admin = database_url(Settings(home, None, "", None))
        import pgserver

        embedded = pgserver.get_server(home / "pgdata")
    try:
        with scratch.scratch_database(admin, "arena_bench") as url:
            migrate(url)
            yield url
    finally:
        if embedded is not None:
            embedded.cleanup_mode = "delete"
            embedded.cleanup()


def arena_env(database: str, home: Path, broker: str | None) -> tuple[str, str, dict[str, str]]:
    """A referee address, an organizer token and the environment of an arena's processes
    on ``database`` (a queue of their own; the broker given, else the embedded one)."""
    address = free_address()
    admin = secrets.token_urlsafe(16)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")} | {
        "ARENA_HOME": str(home),
        "ARENA_DATABASE_URL": database,
        "ARENA_REFEREE_ADDRESS": address,
        "ARENA_ADMIN_TOKEN": admin,
        "ARENA_QUEUE": f"arena-bench-{uuid.uuid4().hex[:8]}",
    }
    if broker:
        env["ARENA_BROKER_URL"] = broker
    return address, admin, env


# ---- the tournament ----------------------------------------------------------------------


@contextlib.contextmanager
def tournament(database: str, home: Path, broker: str | None) -> Iterator[Callable[[int], Rate]]:
    """The tournament side's processes, started and warmed up; yields a function that
    plays a round robin of ``matches`` matches and measures it."""
    address, admin, env = arena_env(database, home, broker)
    with Processes(env, home / "logs") as processes:
        processes.start("serve", "serve")
        wait_serving(address)
        organizer = Organizer(address, admin)
        store = Store(database, max_size=1)
        try:
            bots = ["bench-a", "bench-b"]
            for name in bots:
                token = organizer.bot_token(name)
                bot_env = {"ARENA_ADDRESS": address, "ARENA_TOKEN": token}
                processes.start(
                    name, "bot", "run", "house:random", "--concurrency", str(CONCURRENCY),
                    env=bot_env,
                )  # fmt: skip
            organizer.wait_connected(bots)
            # more worker threads than matches at once: the spare ones wait in the referee
            # for a free bot slot (Hub.playing), so a new match starts the moment one ends
            processes.start("worker", "worker", "--concurrency", str(2 * CONCURRENCY))
            play(organizer, processes, store, "warm-up", bots, WARM_UP)
            pids = {
                "referee": [processes.running["serve"].pid],
                "bots": [processes.running[b].pid for b in bots],
                "worker": [processes.running["worker"].pid],
            }
            redis_pid = home / "redis" / "redis.pid"
            if redis_pid.exists():
                pids["redis"] = [int(redis_pid.read_text())]
            rounds = itertools.count(1)

            def measure(matches: int) -> Rate:
                before = {kind: cpu_s(p) for kind, p in pids.items()}
                before["postgres"] = cpu_s(postgres())
                run_id = play(organizer, processes, store, f"round-{next(rounds)}", bots, matches)
                after = {kind: cpu_s(p) for kind, p in pids.items()}
                after["postgres"] = cpu_s(postgres())
                cpu = {kind: 1000 * (after[kind] - before[kind]) / matches for kind in before}
                progress = store.run_progress(run_id)
                _check(database, run_id)
                first: datetime = progress["first_started"]
                last: datetime = progress["last_finished"]
                return Rate(matches, (last - first).total_seconds(), cpu)

            yield measure
        finally:
            store.close()
            organizer.close()


def play(
    organizer: Organizer,
    processes: Processes,
    store: Store,
    name: str,
    bots: list[str],
    matches: int,
) -> int:
    """Create and start a round robin of ``matches`` matches; its run id once finished.
    Polls the store, not GetRun: GetRun computes the standings so far at every call."""
    definition = api.TournamentDefinition(
        name=name, bots=bots, matches=matches, clock=clock_to_pb(CLOCK),
        seed=1, trusted=True,  # house bots: the same deals as local
    )  # fmt: skip
    organizer.call("CreateTournament", api.CreateTournamentRequest(definition=definition))
    run_id = int(organizer.call("StartTournament", api.StartTournamentRequest(tournament=name)).id)
    deadline = time.monotonic() + 600
    while (found := store.run(run_id)) is None or found[0].status not in ("finished", "failed"):
        if time.monotonic() > deadline:
            raise TimeoutError(f"run {name} did not end in 600 s\n{processes.log('worker')}")
        time.sleep(0.05)  # polling the database: nothing tells us when a run ends
    run = organizer.call("GetRun", api.GetRunRequest(id=run_id))
    if (run.status, run.finished) != ("finished", matches):
        raise RuntimeError(
            f"run {name} ended {run.status} with {run.finished}/{run.total} finished, "
            f"{run.failed} failed\n{processes.log('worker')}"
        )
    return run_id


def _check(database: str, run_id: int) -> None:
    """Every match finished, and no bot timed out or was replaced."""
    with psycopg.connect(database) as conn:
        row = conn.execute(
            "SELECT count(*), coalesce(sum((f.value ->> 'timeouts')::int"
            " + (f.value ->> 'substituted')::int), 0)"
            " FROM matches m LEFT JOIN LATERAL jsonb_each(m.faults) f ON true"
            " WHERE m.run_id = %s AND m.status = 'finished'",
            (run_id,),
        ).fetchone()
    assert row is not None
    if row[1]:
        raise RuntimeError(f"{row[1]} timeouts or stand-ins in the tournament")


# ---- local matches -----------------------------------------------------------------------


def local_rate(matches: int) -> Rate:
    """``play_local`` timed from its first match start to its last match finish (the
    bots' start-up and connection are left out, as in the tournament)."""
    times: list[float] = []

    class Timed(MatchRunner):
        async def run(self) -> dict[str, Any]:
            times.append(time.monotonic())
            record = await super().run()
            times.append(time.monotonic())
            return record

    own, children = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
    saved = vars(referee.local)["MatchRunner"]
    vars(referee.local)["MatchRunner"] = Timed  # play_local makes its runners from this name
    try:
        summary = asyncio.run(
            referee.local.play_local(
                Rules(), ["house:random", "house:random"], games=matches, seed=1, clock=CLOCK
            )
        )
    finally:
        vars(referee.local)["MatchRunner"] = saved
    faults = sum(f["timeouts"] + f["substituted"] for f in summary.faults.values())
    if faults:
        raise RuntimeError(f"{faults} timeouts or stand-ins in the local matches")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the bots, waited for by now
    bots = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    cpu = {"referee": time.process_time() - own, "bots": bots}
    per_match = {kind: 1000 * seconds / matches for kind, seconds in cpu.items()}
    return Rate(matches, max(times) - min(times), cpu_ms=per_match)


def main() -> None:
    parser = argparse.ArgumentParser(description="tournament matches/s against local matches")
    parser.add_argument("--matches", type=int, default=MATCHES, help="matches in each measure")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="paired measures")
    parser.add_argument("--broker", help="a Celery broker URL (default: an embedded Redis)")
    args = parser.parse_args()
    pairs: list[tuple[Rate, Rate]] = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder:
        home = Path(folder) / "home"
        try:
            with scratch_database(home) as database, tournament(database, home, args.broker) as run:
                for number in range(1, args.rounds + 1):
                    local, played = local_rate(args.matches), run(args.matches)
                    pairs.append((played, local))
                    print(
                        f"round {number}: tournament {played.per_s:.1f}/s, "
                        f"local {local.per_s:.1f}/s: {played.per_s / local.per_s:.0%}",
                        flush=True,
                    )
        finally:
            if not args.broker:
                stop_embedded_redis(home)
    ratio = statistics.median(t.per_s / local.per_s for t, local in pairs)
    played, local = (statistics.median(r.per_s for r in side) for side in zip(*pairs, strict=True))
    print(f"{f'matches/s ({CONCURRENCY} at once)':<26} {'tournament':>10} {'local':>8}")
    print(f"{f'random vs random, {args.matches}':<26} {played:10.1f} {local:8.1f}  (medians)")
    for name, side in (("tournament", 0), ("local", 1)):
        kinds = pairs[0][side].cpu_ms
        costs = ", ".join(
            f"{kind} {statistics.median(p[side].cpu_ms[kind] for p in pairs):.1f}" for kind in kinds
        )
        print(f"{name} CPU per match (ms, median): {costs}")
    verdict = "met" if ratio >= GOAL else "MISSED"
    rounds = f"median of {len(pairs)} rounds"
    print(f"tournament / local, {rounds}: {ratio:.0%} (goal {GOAL:.0%}: {verdict})")


if __name__ == "__main__":
    main()
