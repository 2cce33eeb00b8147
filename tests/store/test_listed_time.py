"""The time lists show (migration 0018): a match is listed by when it finished, before that
by when it started, before that by when it was made; its seats follow it, so that a bot's
lists go by the same time; and every list filters and pages on it, a run's too."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import psycopg

from arena.domain.tournament import Definition
from arena.engine import Rules
from arena.store.migrate import migrate, migrations
from arena.store.store import Store
from arena.usecases.matches import record as record_match
from arena.usecases.matches import request as request_match
from arena.usecases.runs import create_run, plan_run
from arena.usecases.tournaments import create_tournament
from tests.store.test_store import played


def seat_times(database: str, match_id: str) -> set[datetime]:
    with psycopg.connect(database) as conn:
        rows = conn.execute(
            "SELECT listed_at FROM match_seats WHERE match_id = %s", (match_id,)
        ).fetchall()
    return {r[0] for r in rows}


def listed(store: Store, match_id: str) -> Any:
    found = store.match(match_id)
    assert found is not None
    return found[0]


def test_a_match_is_listed_as_made_then_as_started_then_as_finished(
    store: Store, database: str
) -> None:
    a, _ = store.register_bot("alpha")
    b, _ = store.register_bot("beta")
    request_match(store, "m-1", Rules(), [a.id, b.id], seed=1)
    made = listed(store, "m-1")
    assert made.listed_at == made.created_at and seat_times(database, "m-1") == {made.created_at}
    store.claim_match("m-1")
    started = listed(store, "m-1")
    assert started.started_at is not None and started.listed_at == started.started_at
    assert seat_times(database, "m-1") == {started.started_at}
    record_match(store, "m-1", played(Rules(), 1))
    done = listed(store, "m-1")
    assert done.finished_at is not None and done.listed_at == done.finished_at
    assert seat_times(database, "m-1") == {done.finished_at}


def test_a_runs_matches_are_listed_filtered_and_paged_by_when_they_were_played(
    store: Store,
) -> None:
    bots = [store.register_bot(name)[0] for name in ("ana", "bia", "caio")]
    t = create_tournament(store, Definition(name="cup", bots=("ana", "bia", "caio"), matches=2))
    run = create_run(store, t)
    assert run is not None
    planned = plan_run(store, run.id)
    assert len(planned) == 6
    request_match(store, "outside", Rules(), [bots[0].id, bots[1].id], seed=9)
    for k, match_id in enumerate(planned[:4]):  # played in plan order, after "outside" was made
        store.claim_match(match_id)
        record_match(store, match_id, played(Rules(), k))
    played_order = planned[:4]

    everything = [m.id for m, _ in store.matches(limit=100)]
    assert everything[:4] == played_order[::-1], "the latest finished first"
    assert everything.index("outside") == 4  # made after the run's, before they finished
    ours = store.matches(run=run.id, limit=100)
    assert [m.id for m, _ in ours][:4] == played_order[::-1]
    assert {m.id for m, _ in ours} == set(planned) and all(m.run_id == run.id for m, _ in ours)

    # every match of the run was made at its start, before "outside": only their listed
    # times put the played ones after it
    outside = listed(store, "outside")
    assert all(m.created_at <= outside.created_at for m, _ in ours)
    since = store.matches(run=run.id, since=outside.created_at + timedelta(microseconds=1))
    assert [m.id for m, _ in since] == played_order[::-1]
    third = listed(store, played_order[2])
    until = store.matches(run=run.id, until=third.listed_at, limit=100)
    assert {m.id for m, _ in until} == set(planned) - set(played_order[2:])
    with_ana = store.matches(run=run.id, bot="ana", limit=100)
    assert with_ana and all("ana" in names for _, names in with_ana)
    assert {m.id for m, _ in with_ana} < set(planned)
    by_bot = [m.id for m, _ in store.matches(bot="ana", limit=100)]
    assert by_bot == [m.id for m, names in store.matches(limit=100) if "ana" in names]

    pages, after = [], None
    while True:
        page = store.matches(run=run.id, limit=4, after=after)
        pages += [m.id for m, _ in page]
        if len(page) < 4:
            break
        after = (page[-1][0].listed_at, page[-1][0].id)
    assert pages == [m.id for m, _ in ours]


def test_the_migration_lists_the_seats_of_matches_played_before_it(database: str) -> None:
    (ours,) = [m for m in migrations() if m.name == "listed_time"]
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        for m in migrations()[: ours.version - 1]:
            conn.execute(m.sql.encode())
            conn.execute("INSERT INTO schema_migrations VALUES (%s, %s)", (m.version, m.name))
        for name in ("alpha", "beta"):
            conn.execute(
                "INSERT INTO bots (name, token_hash) VALUES (%s, %s)", (name, name.encode())
            )
        for k, finished in enumerate(("", "now() + interval '1 minute'", "")):
            started = "now() + interval '30 seconds'" if k == 2 else "NULL"
            conn.execute(
                "INSERT INTO matches (id, pool, rules, seed, status, started_at, finished_at)"
                f" VALUES ('old-{k}', 'paulista/1', 'paulista', {k},"
                f" '{'finished' if finished else 'scheduled'}', {started}, {finished or 'NULL'})"
            )
            conn.execute(
                "INSERT INTO match_seats (match_id, seat, bot_id, pool, created_at)"
                " SELECT m.id, b.id - 1, b.id, m.pool, m.created_at FROM matches m, bots b"
                " WHERE m.id = %s",
                (f"old-{k}",),
            )
    migrate(database)
    store = Store(database)
    try:
        for k in range(3):
            row = listed(store, f"old-{k}")
            assert row.listed_at == (row.finished_at or row.started_at or row.created_at)
            assert seat_times(database, f"old-{k}") == {row.listed_at}
        assert [m.id for m, _ in store.matches(bot="alpha")] == ["old-1", "old-2", "old-0"]
    finally:
        store.close()
