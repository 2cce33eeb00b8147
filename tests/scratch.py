"""Scratch databases for tests and benches: made fresh on a server, dropped after."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator

import psycopg
from psycopg.conninfo import make_conninfo


@contextlib.contextmanager
def scratch_database(server: str, prefix: str = "arena_test") -> Iterator[str]:
    """A new, empty database on ``server`` (an admin connection string): its connection
    string; dropped on exit, whoever is still connected to it."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield make_conninfo(server, dbname=name)
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
