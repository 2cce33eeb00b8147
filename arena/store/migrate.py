"""Numbered SQL migrations (``migrations/NNNN_name.sql``), applied in order, each in its
own transaction with its version recorded; concurrent migrators queue on an advisory
lock, so several processes may migrate at start-up at once. Where a database stands
against this code (:func:`schema`), and the refusal of one that is not where the code
is (:func:`ready`): a database newer than the code is never migrated, nor used
(docs/operations.md, Migrations and upgrades)."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from importlib import resources

import psycopg

from arena.errors import NotReady

log = logging.getLogger(__name__)

LOCK_KEY = 0x7472_7563_6F  # "truco": the advisory lock that serialises migrators
_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    """Every migration shipped with the package, in order."""
    found = []
    for entry in resources.files("arena.store").joinpath("migrations").iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match[1]), match[2], entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migrations must be numbered 1, 2, 3... without gaps: {versions}")
    return found


def migrate(conninfo: str) -> list[Migration]:
    """Apply the migrations the database lacks; returns those applied."""
    applied = []
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (LOCK_KEY,))  # one migrator at a time
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version integer PRIMARY KEY, name text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())"
            )
            done = {v for (v,) in conn.execute("SELECT version FROM schema_migrations")}
            every = migrations()
            if max(done, default=0) > len(every):
                raise NotReady(newer(max(done), len(every)))
            for migration in every:
                if migration.version in done:
                    continue
                with conn.transaction():
                    conn.execute(migration.sql.encode())  # no parameters: several statements
                    conn.execute(
                        "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)",
                        (migration.version, migration.name),
                    )
                log.info("applied migration %04d %s", migration.version, migration.name)
                applied.append(migration)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (LOCK_KEY,))
    return applied


@dataclass(frozen=True, slots=True)
class Schema:
    """Where a database's schema stands: its version (the highest migration applied, 0
    for none), the code's (its last migration's), and the code's migrations it lacks."""

    database: int
    code: int
    pending: tuple[Migration, ...]

    @property
    def state(self) -> str:
        """``up to date``, ``behind`` (migrations pending) or ``ahead`` (newer than the
        code)."""
        if self.database > self.code:
            return "ahead"
        return "behind" if self.pending else "up to date"

    def names(self) -> list[str]:
        """The pending migrations' names, ``NNNN_name``."""
        return [f"{m.version:04d}_{m.name}" for m in self.pending]


def schema(conninfo: str) -> Schema:
    """Where the database stands against this code (reading only: a database never
    migrated is at version 0, every migration pending)."""
    with psycopg.connect(conninfo) as conn:
        found = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
        done: set[int] = set()
        if found and found[0]:
            done = {v for (v,) in conn.execute("SELECT version FROM schema_migrations")}
    every = migrations()
    pending = tuple(m for m in every if m.version not in done)
    return Schema(max(done, default=0), len(every), pending)


def ready(conninfo: str) -> Schema:
    """The database's :class:`Schema` when it is where the code is; :class:`NotReady`
    saying which versions, and what to do, when it is behind or ahead."""
    found = schema(conninfo)
    if found.state == "ahead":
        raise NotReady(newer(found.database, found.code))
    if found.state == "behind":
        raise NotReady(
            f"the database is at schema version {found.database}, older than this code's "
            f"{found.code} ({len(found.pending)} migrations pending): run `arena db migrate` "
            "(or start with --migrate)"
        )
    return found


def newer(database: int, code: int) -> str:
    return (
        f"the database is at schema version {database}, newer than this code's {code}: "
        "upgrade truco-arena"
    )


def schema_version(conninfo: str) -> int:
    return schema(conninfo).database
