"""The store's connection to PostgreSQL: a pool, transactions and single statements,
the one insert of new matches, and the one place that turns the driver's errors into the
kinds of :mod:`arena.errors` (:func:`_translated`).

A use case (arena/usecases/) runs its write in one unit of work (:meth:`Connected.unit`):
one transaction whose connection it hands to the store's row methods, each of which
reads, writes or locks rows on it and decides nothing.
"""

from __future__ import annotations

import hashlib
import select
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import psycopg
from psycopg.rows import dict_row, tuple_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from arena.domain.matches import NewMatch
from arena.domain.pools import ABSENT_DAYS
from arena.errors import Exists, Invalid, Unavailable
from arena.store.sql import QUERIES as Q

PING_S = 2.0  # the longest Connected.ping waits for a connection of the pool

Unit = psycopg.Connection[Any]
"""A unit of work: a connection in a transaction (:meth:`Connected.unit`)."""


def token_hash(token: str) -> bytes:
    """What the store keeps of a token (a bot's or an organizer's): its SHA-256."""
    return hashlib.sha256(token.encode()).digest()


def bot_rows(conn: Unit, name: str) -> list[int]:
    """The bot rows ``name`` stands for: a bot and its hosted versions, or a version alone
    (one look of the index of versions by bot, however many versions it has)."""
    with conn.cursor(row_factory=tuple_row) as cursor:  # whatever rows the connection makes
        return [r[0] for r in cursor.execute(Q["bot_rows"], {"name": name})]


def _check(conn: psycopg.Connection[Any]) -> None:
    """The pool's check of a connection it hands out. A round trip to the server costs as
    much as the statement it guards, so it is made only when the server has written to
    the connection while it sat idle: a server that shuts down or restarts says so, then
    closes it. A connection that breaks later fails its statement, as it would anyway."""
    if conn.closed or select.select([conn.fileno()], [], [], 0)[0]:
        ConnectionPool.check_connection(conn)


class Connected:
    """A pool of connections to the arena's database, and its secret deal key."""

    def __init__(
        self, conninfo: str, *, max_size: int = 8, fit_absent_s: float | None = None
    ) -> None:
        # a bot with no rated game in a pool for this long leaves its fit's anchor
        # (arena/usecases/ratings.py; ARENA_FIT_ABSENT_DAYS; None: ABSENT_DAYS)
        self.conninfo = conninfo
        self.fit_absent_s = ABSENT_DAYS * 86400.0 if fit_absent_s is None else fit_absent_s
        self.pool = ConnectionPool(
            conninfo,
            min_size=1,
            max_size=max_size,
            # autocommit: a transaction is opened explicitly (_transaction), and a single
            # statement (_statement) is its own transaction, without BEGIN and COMMIT
            # no JIT: the arena's queries are short, and a misjudged cost (a new column
            # without statistics yet) had PostgreSQL compile one for 13 ms of a 14 ms run
            kwargs={"row_factory": dict_row, "autocommit": True, "options": "-c jit=off"},
            check=_check,  # a restarted server's broken ones go
            open=True,
        )
        self._deal_key: bytes | None = None

    def close(self, wait_s: float = 5.0) -> None:
        """Close the pool: calls still waiting for a connection fail at once (Unavailable);
        its threads, connecting to a server that may be gone, are waited for ``wait_s`` at
        most."""
        self.pool.close(timeout=wait_s)

    @contextmanager
    def _transaction(self, wait_s: float | None = None) -> Iterator[psycopg.Connection[Any]]:
        """A transaction; ``wait_s``: how long to wait for a connection (None: the pool's
        30 s), then Unavailable."""
        with _translated(), self.pool.connection(timeout=wait_s) as conn, conn.transaction():
            yield conn

    @contextmanager
    def _statement(self) -> Iterator[psycopg.Connection[Any]]:
        """A connection for one statement, atomic by itself: one round trip, not three."""
        with _translated(), self.pool.connection() as conn:
            yield conn

    @contextmanager
    def _within(self, conn: Unit | None) -> Iterator[psycopg.Connection[Any]]:
        """``conn``, a use case's unit of work (its errors translated here, so that the
        row method may say what they mean); without one, a transaction of its own."""
        if conn is None:
            with self._transaction() as own:
                yield own
        else:
            with _translated():
                yield conn

    def unit(self) -> AbstractContextManager[Unit]:
        """A unit of work: one transaction, committed when the block ends, rolled back
        when it raises; its connection goes to the row methods the use case calls."""
        return self._transaction()

    def insert_matches(self, conn: Unit, matches: Sequence[NewMatch]) -> None:
        """The matches to play and the bot at each seat: the one insert of new matches,
        whoever makes them. A match whose id is taken already is left as it is."""
        conn.cursor().executemany(Q["insert_match"], [_match_params(m) for m in matches])
        conn.cursor().executemany(
            Q["insert_seat"],
            [
                {"match_id": m.id, "seat": seat, "bot_id": bot_id}
                for m in matches
                for seat, bot_id in enumerate(m.seats)
            ],
        )

    def ping(self, timeout_s: float = PING_S) -> None:
        """One round trip to the database; Unavailable when no connection is had within
        ``timeout_s`` (the server is down, or every connection is busy) or the statement
        fails."""
        with _translated(), self.pool.connection(timeout=timeout_s) as conn:
            conn.execute(Q["ping"])

    def deal_key(self) -> bytes:
        """The arena's secret deal key (migration 0007), read once."""
        if self._deal_key is None:
            with self._statement() as conn:
                row = conn.execute(Q["deal_key"]).fetchone()
            assert row is not None  # the migration made it
            self._deal_key = bytes(row["deal_key"])
        return self._deal_key


def _match_params(match: NewMatch) -> dict[str, Any]:
    return {
        "id": match.id,
        "pool": match.pool,
        "rules": str(match.rules),
        "seed": match.seed,
        "clock": Jsonb(match.clock.to_json()),
        "rated": match.rated,
        "absent": match.absent,
        "twin": match.twin,
        "run_id": match.run_id,
        "ladder_id": match.ladder_id,
        "sprt_id": match.sprt_id,
        "round": match.round,
        "human": match.human,
    }


@contextmanager
def _translated() -> Iterator[None]:
    """psycopg's errors as the kinds of :mod:`arena.errors`: the one place that knows the
    driver's. A value the database cannot hold (a NUL byte in text, a number out of range,
    a broken constraint) is the request's fault; a lost connection is not."""
    try:
        yield
    except psycopg.errors.UniqueViolation as e:
        raise Exists(f"already exists: {e.diag.message_detail or e}") from e
    except (psycopg.DataError, psycopg.IntegrityError) as e:
        raise Invalid(f"the database cannot take this: {str(e).splitlines()[0]}") from e
    except psycopg.OperationalError as e:
        raise Unavailable(f"the database is unreachable: {e}") from e
