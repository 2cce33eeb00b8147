"""Matches recorded per second (record + result + Elo, exactly once) next to the bare
statements (INSERT the record, UPDATE two ratings), measured in the same run on the same
server. Part of ``make bench``; the goal is at least 50% of the bare rate.

The server is ``ARENA_DATABASE_URL``'s, else the machine's (127.0.0.1:5432), else the
embedded one; the measurement uses a scratch database that it drops afterwards.
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from arena.engine import Match, Rules, to_record
from arena.store.migrate import migrate
from arena.store.store import Store
from arena.usecases.matches import request as request_match
from tests.scratch import scratch_database

GOAL = 0.5
MATCHES = 400


def server() -> str:
    url = os.environ.get("ARENA_DATABASE_URL") or "postgresql://postgres@127.0.0.1:5432/postgres"
    try:
        with psycopg.connect(url, connect_timeout=3):
            return url
    except psycopg.OperationalError:
        import pgserver

        folder = tempfile.mkdtemp(prefix="arena-bench-")
        return str(pgserver.get_server(f"{folder}/pgdata", cleanup_mode="delete").get_uri())


def records(n: int) -> list[dict[str, Any]]:
    out = []
    for seed in range(n):
        match = Match(Rules(), seed=seed)
        choose = random.Random(seed)
        while not match.is_over:
            match.apply(choose.choice(match.legal_actions()))
        out.append(to_record(match))
    return out


def store_rate(url: str, played: list[dict[str, Any]]) -> float:
    store = Store(url)
    try:
        bots = [store.register_bot(f"bench{i}")[0].id for i in range(8)]
        for k in range(len(played)):
            a, b = random.Random(k).sample(bots, 2)
            request_match(store, f"b{k}", Rules(), [a, b], seed=k)
        start = time.perf_counter()
        for k, record in enumerate(played):
            store.finish_match(f"b{k}", record)
        return len(played) / (time.perf_counter() - start)
    finally:
        store.close()


def bare_rate(url: str, played: list[dict[str, Any]]) -> float:
    with psycopg.connect(url) as conn:
        conn.execute("CREATE TABLE bare_records (id text PRIMARY KEY, record jsonb)")
        conn.execute("CREATE TABLE bare_ratings (id int PRIMARY KEY, elo float8)")
        conn.execute("INSERT INTO bare_ratings SELECT g, 1500 FROM generate_series(0, 7) g")
        conn.commit()
        start = time.perf_counter()
        for k, record in enumerate(played):
            a, b = random.Random(k).sample(range(8), 2)
            with conn.transaction():
                conn.execute("INSERT INTO bare_records VALUES (%s, %s)", (f"b{k}", Jsonb(record)))
                conn.execute("UPDATE bare_ratings SET elo = elo + 12 WHERE id = %s", (a,))
                conn.execute("UPDATE bare_ratings SET elo = elo - 12 WHERE id = %s", (b,))
        return len(played) / (time.perf_counter() - start)


def main() -> None:
    with scratch_database(server(), "arena_bench") as url:
        migrate(url)
        played = records(MATCHES)
        bare = bare_rate(url, played)
        stored = store_rate(url, played)
    ratio = stored / bare
    print(f"{'matches recorded/s':<22} {'store':>8} {'bare':>8}")
    print(f"{'record + result + Elo':<22} {stored:8.0f} {bare:8.0f}")
    print(f"store / bare: {ratio:.0%} (goal {GOAL:.0%}: {'met' if ratio >= GOAL else 'MISSED'})")


if __name__ == "__main__":
    main()
