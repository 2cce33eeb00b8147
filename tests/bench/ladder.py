"""The ladder's throughput next to a tournament's, same bots, same processes, measured in
the same run; and the matchmaker's own time per scheduled match.

``python -m tests.bench.ladder`` (part of ``make bench``) starts ``arena serve``, ``arena
worker --concurrency 32``, ``arena beat`` and four ``house:random`` bots (``arena bot run
house:random --concurrency 8``), each a process of its own, on a fresh PostgreSQL
database and a broker, once for all rounds. Each of ``--rounds`` rounds (5) plays
``--matches`` matches (240) on each side:

- **tournament**: a round robin of the four bots (StartTournament), its rate measured from
  the run's first match start to its last match finish, as the store records them
  (``started_at``, ``finished_at``).
- **ladder**: SetLadder on (paulista/1, the bots opted in with SetBotLadder), switched off
  once ``--matches`` of its matches are finished; its rate is measured the same way over
  exactly those: from the first one's start to the ``--matches``-th finish. The matches
  it started before it was switched off are let finish (GetLadder.playing == 0) before the
  next side starts; they count in its CPU per match, not in its rate.

**The same number of matches at once on both sides.** A round robin's matches are queued
one pairing after the other (a-b, a-c, ...), so the worker's threads hold the matches of
one or two pairings, and a pairing plays at most as many at once as its bots' declared
concurrency (8): the tournament runs min(worker threads, bot concurrency) = 8 at once. The
ladder is given that concurrency (``--concurrency``, default 8). The worker has more
threads (32) than either side needs: the tournament's spare ones wait in the referee for
a free bot slot (Hub.playing), so a match starts the moment one ends; the ladder's run
its scheduler step (:func:`workers.tasks.ladder_step`, run by the worker that records a
ladder match) at once. Each
side's mean number of matches seated in the referee is sampled (ListBots' ``playing``,
every 0.2 s) and printed beside its rate, which shows whether both had the same room.

Rounds alternate which side goes first; the verdict is the median of the rounds'
ladder / tournament ratios, printed with its spread (min..max). The goal: at least 0.9,
the ladder's scheduling costs little. Both sides print their CPU per match by process
kind (user + system time, from /proc; PostgreSQL is every PostgreSQL process).

**The matchmaker's own time.** With the processes stopped, the bench times
:func:`arena.usecases.ladder.fill` (the whole scheduler step: its queries under the ladder's lock,
the ratings and intervals it reads, :func:`arena.domain.matchmaking.next_pairs`, the matches'
inserts) in this process against the bench's database (its pool then holds every match
the rounds played), with 6 and 200 available bots (registered, opted in, and reported
connected with a concurrency of 8), for fills of 1 free slot (a ladder's usual step: a
match ended) and of 8; the median of several fills, the slots freed between fills by
marking their matches failed. It prints ms per fill, per scheduled match, and the part of
it spent in ``next_pairs`` itself. A failed match changes no rating, so these fills find
the pool's intervals fitted already; on a live ladder every recorded match changes the
pool and the next fill fits them again (:func:`arena.read.ratings.intervals`): that fit on the
bench's pool is timed and printed apart.

The database server is ``ARENA_DATABASE_URL``'s, else the machine's (127.0.0.1:5432),
else the embedded one; the bench makes a scratch database and drops it afterwards. The
broker is the embedded Redis under a temporary ``ARENA_HOME`` (stopped afterwards), or
``--broker URL``.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

import arena.domain.matchmaking
import arena.usecases.ladder
from arena.domain.clock import TimeControl
from arena.domain.matches import ladder_match_id
from arena.domain.poolfit import fit
from arena.embedded import stop_embedded_redis
from arena.proto.truco.v1 import arena_pb2 as api
from arena.service import Organizer, Processes, wait_serving
from arena.store.store import Store
from arena.usecases.ladder import set_ladder
from arena.wire_clock import clock_to_pb
from tests.bench.workers import arena_env, cpu_s, postgres, scratch_database

GOAL = 0.90
BOTS = 4
BOT_CONCURRENCY = 8  # each bot's declared concurrency
WORKER_CONCURRENCY = 32  # more threads than matches at once, on both sides
LADDER_CONCURRENCY = 8  # what the tournament reaches: min(worker threads, a pairing's bots)
MATCHES = 240  # on each side of a round: a round robin of 4 bots, 40 per pairing
ROUNDS = 5
WARM_UP = 24
POOL = "paulista/1"
DECISION_MS = 30_000  # nothing times out, however loaded the machine
TIME_BANK_MS = 60_000
CLOCK = TimeControl(decision_ms=DECISION_MS, time_bank_ms=TIME_BANK_MS)
SAMPLE_S = 0.2  # how often the matches seated in the referee are counted
TIMEOUT_S = 600.0
FILL_BOTS = (6, 200)  # available bots in the matchmaker's timing
FILL_SLOTS = (1, 8)  # free slots in each timed fill
FILLS = 5  # timed fills of each kind (their median is printed)


@dataclass
class Rate:
    matches: int
    seconds: float
    at_once: float  # mean matches seated in the referee while it played
    cpu_ms: dict[str, float] = field(default_factory=dict)  # per match played, by process kind

    @property
    def per_s(self) -> float:
        return self.matches / self.seconds


class Seated:
    """Samples, in a thread of its own, how many matches the referee seats now (the sum
    of the bots' ``playing`` over two: each match seats two bots); the mean of the
    samples taken while at least one match was seated."""

    def __init__(self, organizer: Organizer, bots: Sequence[str]) -> None:
        self.organizer, self.bots = organizer, set(bots)
        self.samples: list[float] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Seated:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        self.thread.join()

    def _run(self) -> None:
        while not self.stopped.wait(SAMPLE_S):
            listed = self.organizer.call("ListBots", api.ListBotsRequest()).bots
            seated = sum(b.playing for b in listed if b.name in self.bots) / 2
            if seated:
                self.samples.append(seated)

    @property
    def mean(self) -> float:
        return statistics.mean(self.samples) if self.samples else 0.0


class Bench:
    """The processes, started and warmed up; each side plays ``matches`` and is measured."""

    def __init__(
        self, processes: Processes, organizer: Organizer, store: Store, database: str
    ) -> None:
        self.processes, self.organizer, self.store = processes, organizer, store
        self.database = database
        self.bots = [f"bench-{chr(ord('a') + k)}" for k in range(BOTS)]
        self.names = (f"round-{k}" for k in itertools.count(1))
        self.pids: dict[str, list[int]] = {}

    def cpu(self) -> dict[str, float]:
        used = {kind: cpu_s(pids) for kind, pids in self.pids.items()}
        used["postgres"] = cpu_s(postgres())
        return used

    def measured(self, play: Callable[[], tuple[int, int, float]]) -> Rate:
        """``play()``: (matches measured, matches played, their seconds)."""
        before = self.cpu()
        with Seated(self.organizer, self.bots) as seated:
            measured, played, seconds = play()
        after = self.cpu()
        cpu = {kind: 1000 * (after[kind] - before[kind]) / played for kind in before}
        return Rate(measured, seconds, seated.mean, cpu)

    # ---- the tournament -------------------------------------------------------------------

    def tournament(self, matches: int, name: str | None = None) -> tuple[int, int, float]:
        """A round robin of ``matches`` matches in all, played; its seconds."""
        name = name or next(self.names)
        per_pairing = matches // (BOTS * (BOTS - 1) // 2)
        definition = api.TournamentDefinition(
            name=name, bots=self.bots, matches=per_pairing, clock=clock_to_pb(CLOCK), seed=1,
            trusted=True,
        )  # fmt: skip
        self.organizer.call("CreateTournament", api.CreateTournamentRequest(definition=definition))
        start = api.StartTournamentRequest(tournament=name)
        run_id = int(self.organizer.call("StartTournament", start).id)
        deadline = time.monotonic() + TIMEOUT_S
        while (found := self.store.run(run_id)) is None or found[0].status not in (
            "finished",
            "failed",
        ):
            self._before(deadline, f"run {name}")
            time.sleep(0.05)  # polling the database: nothing tells us when a run ends
        progress = self.store.run_progress(run_id)
        if progress["finished"] != per_pairing * BOTS * (BOTS - 1) // 2:
            raise RuntimeError(f"run {name}: {progress}\n{self.processes.log('worker')}")
        self._check("m.run_id = %s", run_id)
        seconds = (progress["last_finished"] - progress["first_started"]).total_seconds()
        return progress["finished"], progress["finished"], seconds

    # ---- the ladder -----------------------------------------------------------------------

    def ladder(self, matches: int, concurrency: int) -> tuple[int, int, float]:
        """The ladder on until ``matches`` of its matches are finished, then off and its
        last matches let finish; the seconds from the first one's start to the
        ``matches``-th finish."""
        row = self.store.ladder(POOL)
        before = 0 if row is None else row.scheduled
        ladder_id = self._switch(True, concurrency).id
        first = ladder_match_id(ladder_id, before)  # the round's matches sort after it
        query = (
            "SELECT count(*) FILTER (WHERE status = 'finished') AS finished,"
            " count(*) FILTER (WHERE status = 'failed') AS failed"
            " FROM matches WHERE ladder_id = %s AND id > %s"
        )
        deadline = time.monotonic() + TIMEOUT_S
        with psycopg.connect(self.database) as conn:
            while True:
                done = conn.execute(query, (ladder_id, first)).fetchone()
                assert done is not None
                if done[1]:
                    raise RuntimeError(f"{done[1]} ladder matches failed\n{self._worker()}")
                if done[0] >= matches:
                    break
                self._before(deadline, "the ladder's matches")
                time.sleep(0.05)  # polling the database: nothing tells us when a match ends
            self._switch(False, concurrency)
            while self.organizer.call("GetLadder", api.GetLadderRequest(pool=POOL)).playing:
                self._before(deadline, "the ladder's last matches")
                time.sleep(0.05)
            rows = conn.execute(
                "SELECT started_at, finished_at FROM matches"
                " WHERE ladder_id = %s AND id > %s AND status = 'finished' ORDER BY finished_at",
                (ladder_id, first),
            ).fetchall()
        self._check("m.ladder_id = %s AND m.id > %s", ladder_id, first)
        start = min(r[0] for r in rows)
        return matches, len(rows), (rows[matches - 1][1] - start).total_seconds()

    def _switch(self, on: bool, concurrency: int) -> Any:
        request = api.SetLadderRequest(
            pool=POOL, on=on, concurrency=concurrency, clock=clock_to_pb(CLOCK)
        )  # fmt: skip
        self.organizer.call("SetLadder", request)
        found = self.store.ladder(POOL)
        assert found is not None
        return found

    # ---- checks ---------------------------------------------------------------------------

    def _check(self, where: str, *params: object) -> None:
        """No bot timed out or was replaced in the matches measured."""
        with psycopg.connect(self.database) as conn:
            row = conn.execute(
                "SELECT coalesce(sum((f.value ->> 'timeouts')::int"
                " + (f.value ->> 'substituted')::int), 0)"
                " FROM matches m LEFT JOIN LATERAL jsonb_each(m.faults) f ON true"
                f" WHERE {where} AND m.status = 'finished'",
                params,
            ).fetchone()
        if row is not None and row[0]:
            raise RuntimeError(f"{row[0]} timeouts or stand-ins")

    def _before(self, deadline: float, what: str) -> None:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not done in {TIMEOUT_S:.0f} s\n{self._worker()}")

    def _worker(self) -> str:
        return self.processes.log("worker")


@contextlib.contextmanager
def processes(database: str, home: Path, broker: str | None, bot: str) -> Iterator[Bench]:
    """serve, worker, beat and the bots, started, opted in to the ladder and warmed up on
    both sides."""
    address, admin, env = arena_env(database, home, broker)
    with Processes(env, home / "logs") as running:
        running.start("serve", "serve")
        wait_serving(address)
        organizer = Organizer(address, admin)
        store = Store(database, max_size=1)
        try:
            bench = Bench(running, organizer, store, database)
            for name in bench.bots:
                token = organizer.bot_token(name)
                bot_env = {"ARENA_ADDRESS": address, "ARENA_TOKEN": token}
                running.start(
                    name, "bot", "run", *bot.split(), "--concurrency", str(BOT_CONCURRENCY),
                    env=bot_env,
                )  # fmt: skip
                organizer.call("SetBotLadder", api.SetBotLadderRequest(bot=name, on=True))
            organizer.wait_connected(bench.bots)
            running.start("worker", "worker", "--concurrency", str(WORKER_CONCURRENCY))
            running.start("beat", "beat")
            bench.tournament(WARM_UP, "warm-up")
            bench.ladder(WARM_UP, LADDER_CONCURRENCY)
            bench.pids = {
                "referee": [running.running["serve"].pid],
                "bots": [running.running[b].pid for b in bench.bots],
                "worker": [running.running["worker"].pid],
                "beat": [running.running["beat"].pid],
            }
            redis_pid = home / "redis" / "redis.pid"
            if redis_pid.exists():
                bench.pids["redis"] = [int(redis_pid.read_text())]
            yield bench
        finally:
            store.close()
            organizer.close()


# ---- the matchmaker's own time -------------------------------------------------------------


@dataclass
class FillTime:
    bots: int
    slots: int
    fill_ms: float  # medians
    per_match_ms: float
    pairs_per_match_ms: float


def fill_times(database: str) -> tuple[list[FillTime], float]:
    """:func:`arena.usecases.ladder.fill` timed in this process (see the module's docstring)."""
    store = Store(database, max_size=2)
    spent: list[float] = []
    pure = arena.domain.matchmaking.next_pairs

    def timed(*args: Any, **kwargs: Any) -> list[tuple[str, str]]:
        began = time.perf_counter()
        try:
            return pure(*args, **kwargs)
        finally:
            spent.append(time.perf_counter() - began)

    names = [f"mm-{k:03d}" for k in range(max(FILL_BOTS))]
    for name in names:
        store.register_bot(name)
        store.set_bot_ladder(name, True)
    out = []
    vars(arena.domain.matchmaking)["next_pairs"] = timed  # the ladder's round calls it so
    try:
        for bots, slots in itertools.product(FILL_BOTS, FILL_SLOTS):
            connected = {name: (BOT_CONCURRENCY, 0) for name in names[:bots]}
            set_ladder(store, POOL, True, concurrency=slots)
            rng = random.Random(1)
            fills, pairs, made = [], [], 0
            for _ in range(FILLS):
                spent.clear()
                began = time.perf_counter()
                ids = arena.usecases.ladder.fill(store, POOL, connected, rng=rng)
                fills.append(time.perf_counter() - began)
                pairs.append(sum(spent))
                if len(ids) != slots:
                    raise RuntimeError(f"{bots} bots, {slots} free slots: {len(ids)} scheduled")
                made = len(ids)
                for match_id in ids:  # the slots free again for the next fill
                    store.set_status(match_id, "failed")
            fill_ms, pairs_ms = 1000 * statistics.median(fills), 1000 * statistics.median(pairs)
            out.append(FillTime(bots, slots, fill_ms, fill_ms / made, pairs_ms / made))
        set_ladder(store, POOL, False)
        refits = []
        for _ in range(FILLS):
            began = time.perf_counter()
            fit(store.pool_lineups(POOL))
            refits.append(time.perf_counter() - began)
    finally:
        vars(arena.domain.matchmaking)["next_pairs"] = pure
        store.close()
    return out, 1000 * statistics.median(refits)


# ---- the report ----------------------------------------------------------------------------


def spread(values: Sequence[float], unit: str = "") -> str:
    return f"{statistics.median(values):.2f}{unit} ({min(values):.2f}..{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description="ladder matches/s against a tournament's")
    parser.add_argument("--matches", type=int, default=MATCHES, help="matches in each measure")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="paired measures")
    parser.add_argument(
        "--concurrency", type=int, default=LADDER_CONCURRENCY, help="the ladder's matches at once"
    )
    parser.add_argument("--broker", help="a Celery broker URL (default: an embedded Redis)")
    parser.add_argument(
        "--bot",
        default="house:random",
        help="the four bots, as `arena bot run` takes them (house:random: matches of a few "
        "tens of ms, where the scheduler's step shows most; 'house:mc --budget-ms 5' "
        "for bots that think)",
    )
    args = parser.parse_args()
    pairs: list[tuple[Rate, Rate]] = []  # (tournament, ladder)
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder:
        home = Path(folder) / "home"
        try:
            with scratch_database(home) as database:
                with processes(database, home, args.broker, args.bot) as bench:
                    for number in range(1, args.rounds + 1):
                        sides = {
                            "tournament": lambda: bench.measured(
                                lambda: bench.tournament(args.matches)
                            ),
                            "ladder": lambda: bench.measured(
                                lambda: bench.ladder(args.matches, args.concurrency)
                            ),
                        }
                        order = list(sides) if number % 2 else list(sides)[::-1]
                        rates = {side: sides[side]() for side in order}
                        played, ladder = rates["tournament"], rates["ladder"]
                        pairs.append((played, ladder))
                        print(
                            f"round {number} ({order[0]} first): "
                            f"tournament {played.per_s:.1f}/s ({played.at_once:.1f} at once), "
                            f"ladder {ladder.per_s:.1f}/s ({ladder.at_once:.1f} at once): "
                            f"{ladder.per_s / played.per_s:.2f}",
                            flush=True,
                        )
                fills, refit_ms = fill_times(database)
        finally:
            if not args.broker:
                stop_embedded_redis(home)
    ratios = [ladder.per_s / played.per_s for played, ladder in pairs]
    print(
        f"matches/s, {args.bot} against itself, {args.matches} a side, {args.concurrency} at once, "
        f"median (min..max) of {len(pairs)} rounds:"
    )
    for name, side in (("tournament", 0), ("ladder", 1)):
        rates = [p[side].per_s for p in pairs]
        at_once = statistics.median(p[side].at_once for p in pairs)
        kinds = pairs[0][side].cpu_ms
        costs = ", ".join(
            f"{kind} {statistics.median(p[side].cpu_ms[kind] for p in pairs):.1f}" for kind in kinds
        )
        print(f"  {name:<10} {spread(rates, '/s')}, {at_once:.1f} at once; CPU ms/match: {costs}")
    verdict = "met" if statistics.median(ratios) >= GOAL else "MISSED"
    print(f"ladder / tournament: {spread(ratios)} (goal {GOAL:.2f}: {verdict})")
    print("the scheduler's step (arena.usecases.ladder.fill), median of", FILLS, "fills:")
    print(f"  {'bots':>5} {'free slots':>10} {'ms/fill':>8} {'ms/match':>9} {'next_pairs':>11}")
    for f in fills:
        print(
            f"  {f.bots:>5} {f.slots:>10} {f.fill_ms:8.1f} {f.per_match_ms:9.2f} "
            f"{f.pairs_per_match_ms:9.2f} ms/match"
        )
    print(f"  and the pool's intervals fitted again (after each recorded match): {refit_ms:.1f} ms")


if __name__ == "__main__":
    main()
