"""Whether every read path stays flat as history piles up: each page and API call timed on
a pool of ``--small`` (1,000) and of ``--large`` (1,000,000) finished, rated matches among
200 bots, and recording one more match timed on both. Part of ``make bench``; the goal is a
large/small ratio of at most 2 for every read path, and recording at most 10% slower.

The history is written synthetically, with COPY, as the recording would have left it: bots
and tournaments through the store, then runs of 50 matches each, the matches (status,
a real record of a seeded match with the bots' names, winner, score, points, faults,
times), their seats, one rating event per bot and match (the online Elo replayed in Python,
in bot-id order as ``finish_match`` writes them) and the ratings they end on. Then VACUUM
ANALYZE, as a settled database would be, and ``Store.recount()`` (the counts the recording
keeps beside the base tables, which COPY went around), then ANALYZE again.

Each read is timed through the public read functions, so the bench measures whatever
implementation is in place. Both databases are kept side by side and each path is timed on
one right after the other, in ``--rounds`` (7) paired rounds (the first request of each
is not counted: it warms the caches): the verdict is the median of the rounds' ratios, and
their spread is shown, since this machine's speed drifts.
The bench reports; it exits 0 whether the goal is met or not. Scratch databases on
``ARENA_DATABASE_URL``'s server (else the machine's, else the embedded one), dropped after.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

import arena.read.tournaments
from arena.domain import rating
from arena.domain.clock import DEFAULT_CLOCK
from arena.domain.matches import run_match_id
from arena.domain.standings import Result, hand_points, standings
from arena.domain.tournament import Definition
from arena.engine import Rules
from arena.read import bots, ratings
from arena.store.migrate import migrate
from arena.store.rows import TournamentRow
from arena.store.store import Store
from arena.usecases.matches import request as request_match
from arena.usecases.tournaments import create_tournament
from tests.bench.store import server
from tests.scratch import scratch_database
from tests.store.test_store import played

POOL = "paulista/1"
RULES = Rules()
BOTS = 200
RUN_SIZE = 50  # matches per tournament run: the small pool lists as many runs as the large
TOURNAMENTS = 2  # the runs take turns among them
STEP = timedelta(seconds=30)  # between two matches' creation
READ_GOAL = 2.0  # large / small, every read path
RECORD_GOAL = 1.10  # large / small, recording a match
RECORDINGS = 50  # matches recorded at each size
SLOW_MS = 1000.0  # a read this slow on the small pool is said to be, whatever its ratio
VETERAN = 5  # bot 0 plays at least one match in this many
MARKS = ("@@seats@@", "@@match_id@@", "@@faults@@")


@dataclass(frozen=True, slots=True)
class Template:
    """A real record's JSON text cut where the seats, the match id and the faults go."""

    parts: list[str]
    seed: int
    score: list[int]
    points: tuple[int, int]

    def fill(self, seats: list[str], match_id: str, faults: str) -> str:
        p = self.parts
        return p[0] + json.dumps(seats) + p[1] + json.dumps(match_id) + p[2] + faults + p[3]


def templates(per_winner: int = 3) -> dict[int, list[Template]]:
    """The shortest records of 200 seeded matches, by winner: valid and small."""
    found = sorted(
        ((len(json.dumps(r)), s, r) for s in range(200) for r in [played(RULES, s)]),
        key=lambda t: t[:2],
    )
    out: dict[int, list[Template]] = {0: [], 1: []}
    for _, seed, record in found:
        winner = record["result"]["winner"]
        if len(out[winner]) < per_winner:
            record |= {"seats": MARKS[0], "match_id": MARKS[1]}
            record |= {"clock": DEFAULT_CLOCK.to_json(), "faults": MARKS[2]}
            text = json.dumps(record)
            for mark in MARKS:
                text = text.replace(json.dumps(mark), "\0")
            parts = text.split("\0")
            assert len(parts) == 4
            score = record["result"]["score"]
            out[winner].append(Template(parts, seed, score, hand_points(record)))
    return out


def games(n: int, seed: int = 7) -> Iterator[tuple[int, int, int, int]]:
    """The pool's history, the same on every pass: (number, seat 0's bot, seat 1's, winner).
    Bots have hidden strengths, so the leaderboard has an order to find. Bot 0 (the one
    whose page is read) plays one match in five, against anyone: its rating chart is full
    at both sizes, so that the paths that show it return as much at both, and what their
    ratio measures is the history around it."""
    rng = random.Random(seed)
    strength = [rng.gauss(0, 200) for _ in range(BOTS)]
    for i in range(n):
        a, b = rng.sample(range(BOTS), 2)
        if i % VETERAN == 0 and 0 not in (a, b):
            a, b = (0, b) if i % 2 else (a, 0)  # on either seat, in turn
        p = 1 / (1 + 10 ** ((strength[b] - strength[a]) / 400))
        yield i, a, b, 0 if rng.random() < p else 1


def faults(names: list[str], i: int) -> str:
    """The faults every seat's bot has in a record: now and then a timeout for seat 0."""
    timeouts = [int(i % 50 == 0), 0]
    return json.dumps(
        {
            name: {"timeouts": t, "rejected": 0, "disconnects": 0, "substituted": 0}
            for name, t in sorted(zip(names, timeouts, strict=True))
        }
    )


class Progress:
    """Prints how far a table's load has got, every tenth of it (every 100,000 rows at
    least), and its whole time once the COPY has ended (its checks done)."""

    def __init__(self, table: str, total: int) -> None:
        self.table, self.total, self.start = table, total, time.perf_counter()
        self.every = max(100_000, total // 10)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.say(f"{self.total:>10,} rows")

    def tick(self, done: int) -> None:
        if done % self.every == 0:
            self.say(f"{done:>10,}/{self.total:,}")

    def say(self, what: str) -> None:
        s = time.perf_counter() - self.start
        print(f"    {self.table:<14} {what}  {s:6.1f} s", flush=True)


def build(url: str, n: int) -> None:
    """A migrated database holding a pool of ``n`` finished, rated matches."""
    migrate(url)
    store = Store(url)
    try:
        bots = [store.register_bot(f"bot{k:03d}", "bench")[0] for k in range(BOTS)]
        tours = [
            create_tournament(
                store, Definition(name=f"nightly-{t}", pool=POOL, schedule=f"{t} 3 * * *")
            )
            for t in range(TOURNAMENTS)
        ]
    finally:
        store.close()
    ids, names = [b.id for b in bots], [b.name for b in bots]
    forms = templates()
    base = datetime.now(UTC) - (n + 1) * STEP - timedelta(days=1)
    with psycopg.connect(url) as conn:
        runs = _copy_runs(conn, n, tours, names, forms, base)
        _copy_matches(conn, n, names, forms, base, runs)
        _copy_seats(conn, n, ids, runs, base)
        _copy_ratings(conn, n, ids, runs, base)
    start = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
    print(f"    vacuum analyze {time.perf_counter() - start:6.1f} s", flush=True)
    start = time.perf_counter()
    store = Store(url)
    try:
        store.recount()  # COPY went around the recording path: count what it keeps
    finally:
        store.close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("ANALYZE")
    print(f"    recount {time.perf_counter() - start:.1f} s", flush=True)


def _match(i: int, runs: list[int]) -> tuple[str, int]:
    """Match number ``i``'s id and run."""
    run = runs[i // RUN_SIZE]
    return run_match_id(run, i % RUN_SIZE + 1), run


def _template(forms: dict[int, list[Template]], i: int, winner: int) -> Template:
    return forms[winner][i % len(forms[winner])]


def _copy_runs(
    conn: psycopg.Connection[Any],
    n: int,
    tours: list[TournamentRow],
    names: list[str],
    forms: dict[int, list[Template]],
    base: datetime,
) -> list[int]:
    """The finished runs the matches belong to, taking turns among the tournaments, every
    bot of the pool taking part; their ids. Every run keeps the same final table (a real
    one, of the first run's matches): its size is what a list of runs reads, not its
    numbers."""
    first_run = [
        Result(str(i), [names[a], names[b]], w, _template(forms, i, w).points, {})
        for i, a, b, w in games(min(n, RUN_SIZE))
    ]
    participants = sorted(names)
    table = json.dumps(standings(participants, first_run))
    count = -(-n // RUN_SIZE)
    start = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM runs").fetchone()
    assert start is not None
    ids = list(range(start[0], start[0] + count))
    columns = "id, tournament_id, definition, seed, status, participants, total, fired_for, "
    columns += "standings, created_at, finished_at"
    copying = conn.cursor().copy(f"COPY runs ({columns}) FROM STDIN")
    with Progress("runs", count), copying as copy:
        for k, run in enumerate(ids):
            began = base + k * RUN_SIZE * STEP - STEP
            total = min(RUN_SIZE, n - k * RUN_SIZE)
            tour = tours[k % len(tours)]
            copy.write_row(
                (run, tour.id, json.dumps(tour.definition), k, "finished", participants, total,
                 began, table, began, began + (total + 1) * STEP)
            )  # fmt: skip
    conn.execute("SELECT setval('runs_id_seq', %s)", (ids[-1],))
    conn.commit()
    return ids


def _copy_matches(
    conn: psycopg.Connection[Any],
    n: int,
    names: list[str],
    forms: dict[int, list[Template]],
    base: datetime,
    runs: list[int],
) -> None:
    columns = "id, pool, rules, status, rated, seed, record, winner, score, faults, run_id, "
    columns += "created_at, started_at, finished_at, points, clock"
    clock = json.dumps(DEFAULT_CLOCK.to_json())
    copying = conn.cursor().copy(f"COPY matches ({columns}) FROM STDIN")
    with Progress("matches", n) as progress, copying as copy:
        for i, a, b, winner in games(n):
            match_id, run = _match(i, runs)
            form = _template(forms, i, winner)
            seats = [names[a], names[b]]
            said = faults(seats, i)
            created = base + i * STEP
            copy.write_row(
                (match_id, POOL, str(RULES), "finished", True, form.seed,
                 form.fill(seats, match_id, said), winner, form.score, said, run,
                 created, created + timedelta(seconds=2), created + timedelta(seconds=20),
                 list(form.points), clock)
            )  # fmt: skip
            progress.tick(i + 1)
    conn.commit()


def _copy_seats(
    conn: psycopg.Connection[Any], n: int, ids: list[int], runs: list[int], base: datetime
) -> None:
    columns = "match_id, seat, bot_id, pool, created_at, listed_at"  # as the store keeps them
    copying = conn.cursor().copy(f"COPY match_seats ({columns}) FROM STDIN")
    with Progress("match_seats", n) as progress, copying as copy:
        for i, a, b, _ in games(n):
            match_id, _run = _match(i, runs)
            created = base + i * STEP
            finished = created + timedelta(seconds=20)  # the match's listed time
            copy.write_row((match_id, 0, ids[a], POOL, created, finished))
            copy.write_row((match_id, 1, ids[b], POOL, created, finished))
            progress.tick(i + 1)
    conn.commit()


def _copy_ratings(
    conn: psycopg.Connection[Any], n: int, ids: list[int], runs: list[int], base: datetime
) -> None:
    """The online Elo replayed over the history: its events, then the ratings it ends on."""
    elo, games_, wins = [1500.0] * BOTS, [0] * BOTS, [0] * BOTS
    columns = "bot_id, match_id, pool, before, after, created_at"
    copying = conn.cursor().copy(f"COPY rating_events ({columns}) FROM STDIN")
    with Progress("rating_events", n) as progress, copying as copy:
        for i, a, b, winner in games(n):
            match_id, _run = _match(i, runs)
            d = 24.0 * ((winner == 0) - 1 / (1 + 10 ** ((elo[b] - elo[a]) / rating.SCALE)))
            at = base + i * STEP + timedelta(seconds=20)
            moves = sorted([(ids[a], a, d), (ids[b], b, -d)])
            for bot_id, k, delta in moves:
                copy.write_row((bot_id, match_id, POOL, elo[k], elo[k] + delta, at))
            for _, k, delta in moves:
                elo[k] += delta
                games_[k] += 1
                wins[k] += delta > 0
            progress.tick(i + 1)
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO ratings (bot_id, pool, elo, games, wins, losses) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            [(ids[k], POOL, elo[k], games_[k], wins[k], games_[k] - wins[k]) for k in range(BOTS)],
        )
    conn.commit()


def timed(call: Callable[[], Any]) -> float:
    """Milliseconds one warm request takes (the median of three)."""
    samples = []
    for _ in range(3):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def paths(store: Store) -> dict[str, Callable[[], Any]]:
    """Every read path, as a call on ``store``."""
    bot = "bot000"  # the veteran (games)
    first = store.matches(pool=POOL, limit=20)
    after = (first[-1][0].listed_at, first[-1][0].id)
    run = first[0][0].run_id  # the latest run: as long at both sizes
    assert run is not None
    return {
        "leaderboard": lambda: ratings.leaderboard(store, POOL),
        "bot page": lambda: bots.bot(store, bot),
        "rating history": lambda: ratings.rating_history(store, bot, POOL),
        "matches, page 1": lambda: store.matches(pool=POOL, limit=20),
        "matches, page 2": lambda: store.matches(pool=POOL, limit=20, after=after),
        "bot's matches": lambda: store.matches(bot=bot, limit=20, after=after),
        "run page": lambda: arena.read.tournaments.run(store, str(run), organizer=False),
        "bots index": lambda: bots.bots(store),
        "tournaments": lambda: arena.read.tournaments.tournaments(store, organizer=False),
        "standings": lambda: ratings.standings(store, POOL),
    }


def recording(store: Store, records: list[dict[str, Any]], tag: str) -> float:
    """Milliseconds ``finish_match`` takes on a new match of the pool: the median."""
    bots = [b.id for b in store.bots()]
    samples = []
    for k, record in enumerate(records):
        match_id = f"bench-{tag}-{k}"
        request_match(store, match_id, RULES, random.Random(k).sample(bots, 2), seed=k)
        start = time.perf_counter()
        store.finish_match(match_id, record)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples[1:]) * 1000  # the first one warms the function's plan


@contextlib.contextmanager
def scratch(admin: str, n: int) -> Iterator[Store]:
    """A scratch database of ``n`` matches, dropped on exit."""
    with scratch_database(admin, "arena_bench") as url:
        print(f"  {n:,} matches: loading", flush=True)
        start = time.perf_counter()
        build(url, n)
        print(f"  {n:,} matches: loaded in {time.perf_counter() - start:.1f} s", flush=True)
        store = Store(url)
        try:
            yield store
        finally:
            store.close()


def paired(
    small: Store, large: Store, rounds: int, records: list[dict[str, Any]]
) -> dict[str, tuple[float, float, list[float]]]:
    """Each path timed on both databases one right after the other, ``rounds`` times (the
    machine's speed drifts: only times taken together are compared); per path the median
    times and every round's ratio."""
    calls = [paths(small), paths(large)]
    for store_calls in calls:  # the first request of each warms caches and plans
        for call in store_calls.values():
            call()
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in calls[0]}
    times["recording"] = []
    for r in range(rounds):
        for name in calls[0]:
            times[name].append((timed(calls[0][name]), timed(calls[1][name])))
        chunk = records[r * RECORDINGS // rounds : (r + 1) * RECORDINGS // rounds + 1]
        times["recording"].append(
            (recording(small, chunk, f"s{r}"), recording(large, chunk, f"l{r}"))
        )
        print(f"    round {r + 1} of {rounds}", flush=True)
    return {
        name: (
            statistics.median(a for a, _ in pairs),
            statistics.median(b for _, b in pairs),
            [b / a for a, b in pairs],
        )
        for name, pairs in times.items()
    }


def report(results: dict[str, tuple[float, float, list[float]]], sizes: tuple[int, int]) -> None:
    head = f"{'path':<16} {f'{sizes[0]:,} ms':>12} {f'{sizes[1]:,} ms':>14} {'ratio':>7}"
    print(f"{head}  {'rounds':<22} verdict")
    missed = 0
    for path, (s, large, ratios) in results.items():
        ratio = statistics.median(ratios)
        goal = RECORD_GOAL if path == "recording" else READ_GOAL
        ok = ratio <= goal
        missed += not ok
        verdict = f"{'met' if ok else 'MISSED'} (goal <= {goal:g})"
        if s > SLOW_MS:  # a constant cost this large hides what grows
            verdict += f"; over {SLOW_MS / 1000:g} s already when small"
        spread = f"{min(ratios):.2f}..{max(ratios):.2f}"
        print(f"{path:<16} {s:12.1f} {large:14.1f} {ratio:7.2f}  {spread:<22} {verdict}")
    print(
        f"{len(results) - missed} of {len(results)} paths meet the goal (median of paired rounds)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    small = "matches in the small pool (at least 1,000: it fills the tournaments' lists of runs, "
    small += "and connects the pool's bots by games)"
    parser.add_argument("--small", type=int, default=1_000, help=small)
    parser.add_argument("--large", type=int, default=1_000_000, help="matches in the large one")
    parser.add_argument("--rounds", type=int, default=7, help="paired rounds (7)")
    args = parser.parse_args()
    admin = server()
    records = [played(RULES, 1000 + k) for k in range(RECORDINGS + 1)]
    with scratch(admin, args.small) as small, scratch(admin, args.large) as large:
        results = paired(small, large, args.rounds, records)
    report(results, (args.small, args.large))


if __name__ == "__main__":
    main()
