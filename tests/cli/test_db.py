"""Safe schema changes: a process on a configured database migrates it only when told
(``--migrate``), and refuses a database behind or ahead of the code, naming both versions;
``arena db status`` says where it stands; ``arena db migrate`` refuses a newer one."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from arena.service import free_address
from arena.store.migrate import migrations
from arena.store.store import Store
from tests.cli.common import arena, organizer_env, served_log

CODE = len(migrations())


def test_arena_serve_refuses_an_empty_database_unless_told_to_migrate(
    database: str, tmp_path: Path
) -> None:
    env = organizer_env(database, tmp_path / "home")
    refused = arena("serve", "--address", free_address(), env=env)
    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr.splitlines()[-1] == (
        f"arena serve: the database is at schema version 0, older than this code's {CODE} "
        f"({CODE} migrations pending): run `arena db migrate` (or start with --migrate)"
    ), refused.stderr
    assert "Traceback" not in refused.stderr
    status = arena("db", "status", env=env)
    assert status.returncode == 0, status.stderr
    lines = status.stdout.splitlines()
    assert lines[:2] == ["database: schema version 0", f"code:     schema version {CODE}"]
    assert lines[2].startswith("pending:  0001_initial, 0002_tournaments, ")
    assert lines[3:] == ["behind"]
    with psycopg.connect(database) as conn:  # nothing was made
        assert conn.execute("SELECT to_regclass('schema_migrations')").fetchone() == (None,)

    log = served_log(env, "--migrate")
    assert f"applied migration {CODE:04d}" in log, log  # and it stopped cleanly (served_log)
    status = arena("db", "status", "--json", env=env)
    assert json.loads(status.stdout) == {
        "database": CODE, "code": CODE, "pending": [], "state": "up to date"
    }  # fmt: skip


@pytest.fixture
def newer(store: Store, database: str) -> str:
    """A migrated database on which a newer version of the arena ran its next migration."""
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO schema_migrations (version, name) VALUES (%s, 'from_the_future')",
            (CODE + 1,),
        )
    return database


@pytest.mark.parametrize("command", ["serve", "worker", "beat", "web"])
@pytest.mark.parametrize("migrate", [False, True])
def test_no_process_starts_on_a_database_newer_than_its_code(
    command: str, migrate: bool, newer: str, tmp_path: Path
) -> None:
    env = organizer_env(newer, tmp_path / "home")
    done = arena(command, *(["--migrate"] if migrate else []), env=env)
    assert (done.returncode, done.stdout) == (1, ""), done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"arena {command}: the database is at schema version {CODE + 1}, newer than this "
        f"code's {CODE}: upgrade truco-arena"
    ), done.stderr
    assert "Traceback" not in done.stderr


def test_db_migrate_and_status_on_a_newer_database(newer: str, tmp_path: Path) -> None:
    env = organizer_env(newer, tmp_path / "home")
    done = arena("db", "migrate", env=env)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"arena db migrate: the database is at schema version {CODE + 1}, newer than this "
        f"code's {CODE}: upgrade truco-arena\n"
    )
    status = arena("db", "status", "--json", env=env)
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout) == {
        "database": CODE + 1, "code": CODE, "pending": [], "state": "ahead"
    }  # fmt: skip
    assert arena("db", "status", env=env).stdout.splitlines()[-1] == "ahead"


def test_db_status_on_a_database_that_cannot_be_reached(tmp_path: Path) -> None:
    env = organizer_env("postgresql://nobody@127.0.0.1:1/none", tmp_path / "home")
    done = arena("db", "status", env=env)
    assert done.returncode == 1 and done.stderr.startswith("arena db status: "), done.stderr
    assert "Traceback" not in done.stderr
