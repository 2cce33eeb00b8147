"""Scratch databases for tests and benches: made fresh on a server, dropped after."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator

import psycopg
from psycopg.conninfo import make_conninfo


@contextlib.contextmanager
def scratch_database(
    server: str, prefix: str = "arena_test", template: str | None = None
) -> Iterator[str]:
    """A new database on ``server`` (an admin connection string), empty or a copy of the
    database named ``template`` (nobody may be connected to it meanwhile): its connection
    string; dropped on exit, whoever is still connected to it."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    copied = "" if template is None else f' TEMPLATE "{template}"'
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"{copied}')
    try:
        yield make_conninfo(server, dbname=name)
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
