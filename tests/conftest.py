"""Shared fixtures: a real PostgreSQL for the store's tests.

The machine's server (127.0.0.1:5432, or ``ARENA_TEST_DATABASE_URL``) when it answers,
else an embedded one from ``pgserver`` in a temporary folder. Each test gets a fresh
database of its own, dropped afterwards.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from arena.store.migrate import migrate
from arena.store.store import Store
from tests.scratch import scratch_database

MACHINE = os.environ.get("ARENA_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


def embedded_server(folder: Path) -> str:
    import pgserver

    return str(pgserver.get_server(folder / "pgdata", cleanup_mode="stop").get_uri())


@contextlib.contextmanager
def open_folder() -> Iterator[Path]:
    """A fresh folder outside pytest's temporary root, for an embedded PostgreSQL. Run as
    root, pgserver starts the server as the user ``pgserver``, which must be able to reach
    its folder; pgserver opens the folder's parents to others, but pytest closes its own
    root (/tmp/pytest-of-root) to 0700 again whenever any pytest on the machine starts, and
    a server made under it in the meantime could not open its files ("could not open file
    global/pg_control: Permission denied", seen while another checkout ran its tests)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-test-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """:func:`open_folder` for one test."""
    with open_folder() as folder:
        yield folder


@pytest.fixture(scope="session")
def postgres() -> Iterator[str]:
    """An administrative connection string to a running server."""
    try:
        with psycopg.connect(MACHINE, connect_timeout=3):
            yield MACHINE
            return
    except psycopg.OperationalError:
        pass
    with open_folder() as folder:
        yield embedded_server(folder)


@pytest.fixture(scope="session")
def migrated(postgres: str) -> Iterator[str]:
    """The name of a database migrated once for the session, that the databases of the
    store's tests are copied from (CREATE DATABASE ... TEMPLATE): a copy costs less than
    half of the migrations it saves."""
    with scratch_database(postgres, prefix="arena_template") as url:
        migrate(url)
        yield str(conninfo_to_dict(url)["dbname"])


@pytest.fixture
def database(request: pytest.FixtureRequest, postgres: str) -> Iterator[str]:
    """A fresh database; its connection string. Empty, unless the test asks for the
    ``store``, for arenas, or for the template itself (``usefixtures("migrated")``: a test
    whose processes find the schema made, as they migrate a configured database only with
    ``--migrate``): then a copy of the migrated template, with a deal key of its own drawn
    as migration 0007 draws one (so that no two test databases deal alike)."""
    copied = {"store", "arena_factory", "migrated"} & set(request.fixturenames)
    template = request.getfixturevalue("migrated") if copied else None
    with scratch_database(postgres, template=template) as url:
        if template is not None:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(NEW_DEAL_KEY)
        yield url


NEW_DEAL_KEY = """UPDATE arena_secret SET deal_key =
    decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex')"""


@pytest.fixture
def store(database: str) -> Iterator[Store]:
    """A store on a fresh, migrated database (:func:`database`)."""
    migrate(database)  # nothing to apply: a copy of the migrated template
    s = Store(database)
    yield s
    s.close()


@pytest.fixture
def arena_factory(database: str, tmp_path: Path) -> Iterator[Any]:
    """Makes arenas (tests/arenaproc.py) on a fresh database; stops them afterwards."""
    from tests.arenaproc import arenas

    with arenas(database, tmp_path / "home") as make:
        yield make


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``long`` first: on the suite's processes (make test's -n, work
    stealing) one of them started last would run on alone at the end."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


def pytest_runtest_logreport(report: Any) -> None:
    """Count the attacks of the tests marked ``hostile``: each one that passed was held."""
    from tests import faultlog

    if report.when == "call" and "hostile" in report.keywords:
        faultlog.ATTACKS[report.outcome] += 1


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """`make faults` ends with the tallies of the hostile tests and tests/system/test_faults.py."""
    from tests import faultlog

    lines = [*faultlog.NOTES]
    if sum(faultlog.ATTACKS.values()):
        lines.append(faultlog.attacks_line())
    if faultlog.TALLY["injected"]:
        lines.append(faultlog.line())
    for line in lines:
        terminalreporter.write_line(line)
    summary = os.environ.get("ARENA_FAULTS_SUMMARY")
    if summary and lines:  # printed by `make faults` after pytest's own last line
        Path(summary).write_text("\n".join(lines) + "\n")
