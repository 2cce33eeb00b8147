"""Migrations on a real PostgreSQL: from zero they make exactly the schema the code
expects (the row dataclasses), they apply once, and concurrent migrators agree."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import threading
from pathlib import Path

import psycopg
import pytest

from arena.store.migrate import migrate, migrations, schema_version
from arena.store.rows import TABLES
from tests.conftest import embedded_server


def columns(conninfo: str) -> dict[str, list[str]]:
    with psycopg.connect(conninfo) as conn:
        rows = conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = 'public' ORDER BY table_name, ordinal_position"
        ).fetchall()
    found: dict[str, list[str]] = {}
    for table, column in rows:
        found.setdefault(table, []).append(column)
    return found


def test_a_fresh_database_gets_exactly_the_expected_schema(database: str) -> None:
    applied = migrate(database)
    assert [m.version for m in applied] == [m.version for m in migrations()]
    found = columns(database)
    expected = {t: [f.name for f in dataclasses.fields(row)] for t, row in TABLES.items()}
    assert found.pop("schema_migrations") == ["version", "name", "applied_at"]
    assert found == expected
    assert schema_version(database) == len(migrations())


def test_migrating_again_changes_nothing(database: str) -> None:
    migrate(database)
    before = columns(database)
    assert migrate(database) == []
    assert columns(database) == before


def test_concurrent_migrators_apply_each_migration_once(database: str) -> None:
    results: list[int] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            results.append(len(migrate(database)))
        except BaseException as e:  # surfaced below
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert sorted(results) == [0, 0, 0, len(migrations())]


def test_the_schema_refuses_what_the_code_never_writes(database: str) -> None:
    migrate(database)
    with psycopg.connect(database) as conn:
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute("INSERT INTO bots (name, token_hash) VALUES ('no spaces', 'x')")
        conn.rollback()
        conn.execute("INSERT INTO bots (name, token_hash) VALUES ('alpha', 'x')")
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute("INSERT INTO bots (name, token_hash) VALUES ('alpha', 'y')")


def test_the_embedded_server_runs_the_same_migrations(open_tmp: Path) -> None:
    url = embedded_server(open_tmp)
    assert [m.version for m in migrate(url)] == [m.version for m in migrations()]
    assert schema_version(url) == len(migrations())


def test_arena_db_migrate_uses_the_configured_database(database: str) -> None:
    env = {"ARENA_DATABASE_URL": database, "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "db", "migrate"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"schema version {len(migrations())}" in done.stdout
    again = subprocess.run(
        [sys.executable, "-m", "arena.cli", "db", "migrate"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert "nothing to apply" in again.stdout


def test_arena_db_migrate_reports_an_unreachable_server() -> None:
    env = {"ARENA_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/x", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "db", "migrate"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1 and done.stderr.startswith("arena db migrate:")


def test_migration_0019_keeps_when_the_versions_before_it_became_active(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A version active or retired before migration 0019 was made active as its check
    ended: its activation is kept at that time, so a run whose entries closed then still
    seats the version active then."""
    import arena.store.migrate

    every = migrations()
    monkeypatch.setattr(arena.store.migrate, "migrations", lambda: every[:18])
    assert [m.version for m in migrate(database)][-1] == 18
    with psycopg.connect(database) as conn:
        conn.execute("INSERT INTO bots (name, token_hash) VALUES ('alpha', 'x')")
        conn.execute("INSERT INTO bot_archives (hash, data) VALUES ('a', '')")
        for n, status, hours in [(1, "retired", 3), (2, "active", 2), (3, "rejected", 1)]:
            conn.execute(
                "WITH b AS (INSERT INTO bots (name, token_hash) VALUES (%s, NULL) RETURNING id)"
                " INSERT INTO bot_versions (id, bot_id, number, hash, archive, runtime, entry,"
                " size, unpacked, files, status, checked_at) SELECT b.id, (SELECT id FROM bots"
                " WHERE name = 'alpha'), %s, %s, 'a', 'python', 'bot.py', 0, 0, 0, %s,"
                " now() - make_interval(hours => %s) FROM b",
                (f"alpha@{n}", n, str(n), status, hours),
            )
    monkeypatch.undo()
    assert [m.version for m in migrate(database)][:1] == [19]  # and those after it
    with psycopg.connect(database) as conn:

        def seated(hours_ago: float) -> str:
            row = conn.execute(
                "SELECT b.name FROM bots b WHERE b.id = playing_version((SELECT id FROM bots"
                " WHERE name = 'alpha'), now() - make_interval(secs => %s))",
                (hours_ago * 3600,),
            ).fetchone()
            return row[0] if row else "none"

        assert [seated(h) for h in (4, 2.5, 1.5, 0)] == ["none", "alpha@1", "alpha@2", "alpha@2"]
