"""Deal seeds are the organizer's: a seed and the rules deal every hidden card, so no page,
JSON twin or record a visitor can fetch holds one. The organizer's do."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from starlette.testclient import TestClient

from arena.domain.tournament import Definition
from arena.engine import Rules, public_record
from arena.store.store import Store
from arena.usecases.matches import record as record_match
from arena.usecases.matches import request as request_match
from arena.web import create_app
from tests.webdata import ORGANIZER, play_run, played, start_run

BOTS = ("alpha", "beta", "gamma")
MATCH_SEED = 8_164_529_037  # long numbers, so finding one in a page means it is the seed
DEFINITION_SEED = 5_302_817_466


def seeded_arena(store: Store) -> None:
    """Bots, played and scheduled matches with long seeds, a tournament with a seed and a
    played run of it, and a tournament whose run draws its own seed."""
    bots = {name: store.register_bot(name)[0].id for name in BOTS}
    rules = Rules()
    for k, seats in enumerate([("alpha", "beta"), ("gamma", "alpha")]):
        seed = MATCH_SEED + k
        request_match(store, f"m-{k}", rules, [bots[s] for s in seats], seed=seed)
        record_match(store, f"m-{k}", played(rules, list(seats), seed))
    request_match(store, "m-later", rules, [bots["beta"], bots["gamma"]], seed=MATCH_SEED + 9)
    run_id, ids = start_run(
        store, Definition("weekly", bots=BOTS, seed=DEFINITION_SEED, trusted=True)
    )
    play_run(store, run_id, ids)
    start_run(store, Definition("drawn", bots=BOTS[:2]))


def stored_seeds(database: str) -> set[str]:
    """Every seed in the database: of matches and their records, of runs, of definitions
    (a tournament's and each run's copy)."""
    with psycopg.connect(database) as conn:
        rows = conn.execute(
            """SELECT seed FROM matches UNION SELECT (record->>'seed')::bigint FROM matches
               UNION SELECT seed FROM runs
               UNION SELECT (definition->>'seed')::bigint FROM tournaments
               UNION SELECT (definition->>'seed')::bigint FROM runs"""
        ).fetchall()
    return {str(seed) for (seed,) in rows if seed is not None}


def urls(client: TestClient) -> list[str]:
    """Every page of the arena and its JSON twin, every hand of every match, every
    record."""
    pages = ["/pools/paulista/1", "/bots", "/tournaments"]
    pages += [f"/bots/{name}" for name in BOTS]
    for t in client.get("/api/tournaments").json()["tournaments"]:
        pages += [f"/runs/{r['id']}" for r in t["runs"]]
    records = []
    for match_id in [*(f"m-{k}" for k in range(2)), "m-later"] + [
        m["id"] for m in client.get("/api/runs/1").json()["matches"]
    ]:
        hands = client.get(f"/api/matches/{match_id}").json()["hands"]
        pages += [f"/matches/{match_id}?hand={h['number']}" for h in hands] or [
            f"/matches/{match_id}"
        ]
        if hands:
            records.append(f"/api/matches/{match_id}/record")
    return pages + ["/api" + page for page in pages] + records


def test_no_page_twin_or_record_shows_a_visitor_a_seed(store: Store, database: str) -> None:
    seeded_arena(store)
    seeds = stored_seeds(database)
    assert {str(MATCH_SEED), str(DEFINITION_SEED)} <= seeds and len(seeds) > 6
    client = TestClient(create_app(store, organizer_token=ORGANIZER))
    fetched = urls(client)
    assert len(fetched) > 30
    for url in fetched:
        response = client.get(url)
        assert response.status_code == 200, url
        shown = {seed for seed in seeds if seed in response.text}
        assert not shown, (url, shown)


def test_the_organizer_sees_the_seeds(store: Store) -> None:
    seeded_arena(store)
    client = TestClient(
        create_app(store, organizer_token=ORGANIZER),
        headers={"Authorization": f"Bearer {ORGANIZER}"},
    )
    weekly = client.get("/api/tournaments").json()["tournaments"][1]
    assert weekly["name"] == "weekly" and weekly["definition"]["seed"] == DEFINITION_SEED
    run = client.get(f"/api/runs/{weekly['last_run']}").json()
    assert run["run"]["seed"] == DEFINITION_SEED == run["definition"]["seed"]
    assert str(DEFINITION_SEED) in client.get(f"/runs/{weekly['last_run']}").text
    assert client.get("/api/matches/m-0/record").json()["seed"] == MATCH_SEED


@pytest.mark.parametrize("seed", [0, MATCH_SEED])
def test_the_public_record_drops_the_seed_and_nothing_else(seed: int) -> None:
    record = played(Rules(), ["alpha", "beta"], seed)
    assert record["seed"] == seed
    public = public_record(record)
    without: dict[str, Any] = {k: v for k, v in record.items() if k != "seed"}
    assert "seed" not in public and public == public_record(without)
    assert list(public) == list(without)
    assert record["seed"] == seed  # the organizer's record is left whole
