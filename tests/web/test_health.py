"""/healthz, a load balancer's check: 200 while the web's database answers, 503 as soon as
it refuses connections (its connections cut, new ones refused, on the real server), and
200 again once it takes them back."""

from __future__ import annotations

import time

import psycopg
from psycopg.conninfo import conninfo_to_dict
from starlette.testclient import TestClient

from arena.store.store import Store
from arena.web import create_app
from tests.webdata import ORGANIZER

WAIT_S = 30.0


def connections(admin: psycopg.Connection[tuple[int]], name: str) -> int:
    row = admin.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (name,))
    found = row.fetchone()
    assert found is not None
    return int(found[0])


def test_healthz_follows_the_database(store: Store, database: str, postgres: str) -> None:
    client = TestClient(create_app(store, organizer_token=ORGANIZER))
    answer = client.get("/healthz")
    assert (answer.status_code, answer.text) == (200, "ok")
    name = str(conninfo_to_dict(database)["dbname"])
    with psycopg.connect(postgres, autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
        )
        deadline = time.monotonic() + WAIT_S
        while connections(admin, name):  # the store's connections end as they are told to
            assert time.monotonic() < deadline, "the store's connections were not cut"
            time.sleep(0.05)  # polling the server, which says when a backend has gone
        started = time.monotonic()
        answer = client.get("/healthz")
        assert (answer.status_code, answer.text) == (503, "database unreachable")
        assert time.monotonic() - started < 10  # a load balancer's check is not kept waiting
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
    deadline = time.monotonic() + WAIT_S
    while (answer := client.get("/healthz")).status_code != 200:
        assert answer.status_code == 503 and time.monotonic() < deadline, answer.text
        time.sleep(0.2)  # the pool reconnects on its own backoff
    assert answer.text == "ok"
