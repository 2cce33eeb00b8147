"""No read path walks the history: what a page or an API call reads of ``matches``,
``match_seats`` and ``rating_events`` (the tables that grow with every match played) stays
the same when the history doubles, and no table of them is scanned sequentially.
``make bench``'s ``tests/bench/reads.py`` times the same paths at two sizes; this says which
statement to look at, in seconds.

A pool of 4 bots (each with a long history of its own, as in a large arena) is recorded
through the store, then recorded on to twice as many matches. At each size every read path
runs while the statements it sends are captured (psycopg's cursors' ``execute`` wrapped for
the call: no seam in the store), and each one runs again under ``EXPLAIN ANALYZE``, with
its own parameters and ``enable_seqscan`` off so that a plan keeps a sequential scan only
when it has no other way. A path fails on a Seq Scan of a growing table, or when a
statement reads more than ``GROWTH`` times as many rows of one at the larger size (with
sequential scans off, the planner walks a whole index instead, or every match of the pool
through the pool's index: those reads double with the history). A page that a Limit cuts
reads as many rows at both sizes.

The tables are vacuumed as well as analyzed before each look, as autovacuum leaves a
settled database: the rating history is an index-only scan, which needs pages marked
all-visible. What it cannot see: statements run inside a PL/pgSQL function (the outer
plan shows a Function Scan only), and plans the planner chooses only for tables far
larger than these (a statement that is free to read a bot's whole history at once, as a
join is, does so while that history is short: rating_changes looks matches up one by one
under a LIMIT for this reason)."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import psycopg
import pytest
from psycopg import sql

import arena.read.ladders
import arena.read.sprts
import arena.read.tournaments
from arena.domain.clock import TimeControl
from arena.domain.sprt import Asked, Sprt
from arena.domain.tournament import Definition
from arena.engine import Rules
from arena.read import bots, ratings
from arena.store.migrate import migrate
from arena.store.store import Store
from arena.usecases.ladder import fill, set_ladder
from arena.usecases.matches import record as record_match
from arena.usecases.matches import request as request_match
from arena.usecases.runs import create_run, finish_run, plan_run
from arena.usecases.sprts import start_sprt, step_sprt
from arena.usecases.tournaments import create_tournament
from tests.scratch import scratch_database
from tests.store.test_store import played

POOL = "paulista/1"
GROWING = ("matches", "match_seats", "rating_events")
BOTS = 4
HALF = 300  # challenges recorded before the first look; as many again before the second
LADDER_HALF = 120  # ladder matches too: over the 100 whose pace a ladder's page reads
LADDER_AT_ONCE = 4
GROWTH = 1.5  # how much more of a growing table a statement may read as the history doubles
SLACK = 10  # rows, so that a plan's small changes are not growth
BOT = "plan00"
SPRT_ID = 1  # the sequential test the fixture plays, a fresh database's first
RUN_ID = 1  # the nightly tournament's first run, the same size at both looks

Statement = tuple[Any, Any]  # a query as sent (str, bytes or composed) and its parameters
Page = tuple[datetime, str]  # the keyset a page of matches ends on: (listed_at, id)
Read = Callable[[Store, Page], object]

READS: dict[str, Read] = {
    "leaderboard": lambda s, _: ratings.leaderboard(s, POOL),
    "bot page": lambda s, _: bots.bot(s, BOT),
    "rating history": lambda s, _: ratings.rating_history(s, BOT, POOL),
    "matches page 1": lambda s, _: s.matches(pool=POOL, limit=20),
    "matches page 2": lambda s, after: s.matches(pool=POOL, limit=20, after=after),
    "matches since": lambda s, after: s.matches(since=after[0], limit=20),
    "bot's matches page 2": lambda s, after: s.matches(bot=BOT, limit=20, after=after),
    "run page": lambda s, _: arena.read.tournaments.run(s, str(RUN_ID), organizer=False),
    "run's matches of a bot": lambda s, _: s.matches(run=RUN_ID, bot=BOT, limit=20),
    "bots index": lambda s, _: bots.bots(s),
    "tournaments": lambda s, _: arena.read.tournaments.tournaments(s, organizer=False),
    "standings": lambda s, _: ratings.standings(s, POOL),
    "test page": lambda s, _: arena.read.sprts.sprt(s, SPRT_ID),
    "ladder": lambda s, _: arena.read.ladders.ladder(s, POOL),
    # the scheduler's step, every 5 s and after each ladder match (nobody connected: it
    # reads all it reads, and pairs nobody)
    "ladder step": lambda s, _: fill(s, POOL, {}),
}

# The check's own test: statements it must flag (with what it says), and must not.
PROBES: dict[str, tuple[str, str | None]] = {
    "seq scan": ("SELECT count(*) FROM matches WHERE record->>'x' = 'y'", "Seq Scan on matches"),
    "whole index": ("SELECT * FROM rating_events ORDER BY id", "rows of rating_events read"),
    "by key": ("SELECT * FROM matches WHERE id = 'c1'", None),
    "cut by a limit": ("SELECT * FROM rating_events ORDER BY id DESC LIMIT 3", None),
    "not a query": ("SET TIME ZONE 'UTC'", None),
}


@contextmanager
def captured() -> Iterator[list[Statement]]:
    """Every statement executed through a psycopg cursor (client or server side), in this
    process, while open."""
    seen: list[Statement] = []
    originals = {cls: cls.execute for cls in (psycopg.Cursor, psycopg.ServerCursor)}

    def wrapped(original: Any) -> Any:
        def execute(self: Any, query: Any, params: Any = None, **kw: Any) -> Any:
            seen.append((query, params))
            return original(self, query, params, **kw)

        return execute

    for cls, original in originals.items():
        setattr(cls, "execute", wrapped(original))  # noqa: B010 (mypy refuses a method assigned)
    try:
        yield seen
    finally:
        for cls, original in originals.items():
            setattr(cls, "execute", original)  # noqa: B010


@dataclass
class Reading:
    """What one statement (all its runs in a read path) read of the growing tables."""

    rows: Counter[str] = field(default_factory=Counter)
    seq_scans: set[str] = field(default_factory=set)
    scans: dict[str, set[str]] = field(default_factory=dict)  # how, by table, to say so

    def add(self, plan: dict[str, Any]) -> None:
        """Count a plan's scans of growing tables: the rows each read over all its loops,
        those its filter dropped included."""
        table = plan.get("Relation Name")
        if table in GROWING:
            read = plan.get("Actual Rows", 0) + plan.get("Rows Removed by Filter", 0)
            read += plan.get("Rows Removed by Index Recheck", 0)
            self.rows[table] += int(read * plan.get("Actual Loops", 1))
            index = plan.get("Index Name")
            how = plan["Node Type"] + (f" using {index}" if index else "")
            self.scans.setdefault(table, set()).add(how)
            if plan["Node Type"] == "Seq Scan":
                self.seq_scans.add(table)
        for child in plan.get("Plans", []):
            self.add(child)


_LEADING_COMMENTS = re.compile(r"^(\s|--[^\n]*\n)*")


def _text(conn: psycopg.Connection[Any], query: Any) -> str:
    if isinstance(query, sql.Composable):
        return query.as_string(conn)
    return query if isinstance(query, str) else bytes(query).decode()


def is_query(text: str) -> bool:
    """Whether a statement has a plan to look at (not SET, BEGIN, ...)."""
    first = _LEADING_COMMENTS.sub("", text).split(None, 1)
    return bool(first) and first[0].upper() in {"SELECT", "WITH", "TABLE", "VALUES"}


def readings(conn: psycopg.Connection[Any], statements: list[Statement]) -> dict[str, Reading]:
    """What each query among ``statements`` reads, by its text: each runs again under
    EXPLAIN ANALYZE, sequential scans off, in a transaction rolled back."""
    out: dict[str, Reading] = {}
    for query, params in statements:
        text = _text(conn, query)
        if not is_query(text):
            continue
        with conn.transaction(force_rollback=True):
            conn.execute("SET LOCAL enable_seqscan = off")
            row = conn.execute("EXPLAIN (ANALYZE, FORMAT JSON)\n" + text, params).fetchone()
        assert row is not None
        out.setdefault(text, Reading()).add(row[0][0]["Plan"])
    return out


def failures(small: dict[str, Reading], large: dict[str, Reading]) -> list[str]:
    """Each statement that scans a growing table sequentially, or reads more of one as the
    history doubled: why, and its text."""
    out = []
    for text, big in large.items():
        before = small.get(text, Reading())
        why = [f"Seq Scan on {t}" for t in sorted(big.seq_scans)]
        why += [
            f"{before.rows[t]} then {n} rows of {t} read ({'; '.join(sorted(big.scans[t]))})"
            for t, n in sorted(big.rows.items())
            if n > GROWTH * before.rows[t] + SLACK
        ]
        if why:
            out.append(f"{'; '.join(why)} in:\n{text}")
    return out


def record_more(store: Store, bots: list[int], start: int, trio: tuple[str, ...]) -> Page:
    """Record HALF more challenges between random pairs, and one more run of the nightly
    tournament; VACUUM ANALYZE. The keyset that ends the first page of matches."""
    rules = Rules()
    for k in range(start, start + HALF):
        request_match(store, f"c{k}", rules, random.Random(k).sample(bots, 2), seed=k)
        record_match(store, f"c{k}", played(rules, k))
    set_ladder(store, POOL, True, concurrency=LADDER_AT_ONCE)
    connected = {b.name: (LADDER_AT_ONCE, 0) for b in store.bots()}
    for k in range(LADDER_HALF // LADDER_AT_ONCE):  # the bots opted in: a ladder's history
        for n, match_id in enumerate(fill(store, POOL, connected)):
            record_match(store, match_id, played(rules, 20_000 + start + k * LADDER_AT_ONCE + n))
    t = store.tournament("nightly") or create_tournament(
        store, Definition(name="nightly", bots=trio, matches=1)
    )
    run = create_run(store, t)
    assert run is not None
    for k, match_id in enumerate(plan_run(store, run.id)):
        record_match(store, match_id, played(rules, 10_000 + start + k))
    assert finish_run(store, run.id)
    with store._statement() as conn:  # autocommit: VACUUM runs outside a transaction
        conn.execute("VACUUM ANALYZE")
    last = store.matches(pool=POOL, limit=20)[-1][0]
    return last.listed_at, last.id


def play_sprt(store: Store, new: str, base: str) -> None:
    """A sequential test of a few pairs, all counted (its page's read path)."""
    asked = Asked(Rules(), TimeControl(), max_games=8, at_once=8)
    test = start_sprt(store, new, base, Sprt(0, 200), asked, "organizer")
    assert test.id == SPRT_ID
    for k, match_id in enumerate(step_sprt(store, test.id)):
        record_match(store, match_id, played(Rules(), 30_000 + k))
    step_sprt(store, test.id)
    found = store.sprt(test.id)
    assert found is not None and found[0].split + found[0].won_both + found[0].lost_both == 4


def look(store: Store, url: str, after: Page) -> dict[str, dict[str, Reading]]:
    """What every read path and probe reads at the history's present size."""
    statements = {name: [(query, None)] for name, (query, _) in PROBES.items()}
    for name, read in READS.items():
        with captured() as seen:
            read(store, after)
        statements[name] = seen
    with psycopg.connect(url) as conn:
        return {name: readings(conn, said) for name, said in statements.items()}


@pytest.fixture(scope="module")
def verdicts(postgres: str) -> dict[str, list[str]]:
    """Each read path's and probe's failures, between a history and one twice as long."""
    with scratch_database(postgres) as url:
        migrate(url)
        store = Store(url)
        try:
            bots = [store.register_bot(f"plan{k:02d}")[0] for k in range(BOTS)]
            for b in bots:
                store.set_bot_ladder(b.name, True)
            ids, trio = [b.id for b in bots], tuple(b.name for b in bots[:3])
            play_sprt(store, bots[0].name, bots[1].name)
            small = look(store, url, record_more(store, ids, 0, trio))
            large = look(store, url, record_more(store, ids, HALF, trio))
        finally:
            store.close()
    out = {name: failures(small[name], large[name]) for name in large}
    for name in READS:  # a read that sent nothing through the capture was not checked
        if not large[name]:
            out[name].append("no query captured: it runs none, or not through psycopg's cursors")
    return out


@pytest.mark.parametrize("probe", PROBES)
def test_the_check_flags_what_walks_the_history(verdicts: dict[str, list[str]], probe: str) -> None:
    expected = PROBES[probe][1]
    if expected is None:
        assert verdicts[probe] == []
    else:
        assert len(verdicts[probe]) == 1 and expected in verdicts[probe][0], verdicts[probe]


@pytest.mark.parametrize("path", READS)
def test_read_path_reads_no_more_as_history_grows(
    verdicts: dict[str, list[str]], path: str
) -> None:
    assert not verdicts[path], "\n\n".join(verdicts[path])
