"""Matches read for an export (docs/exports.md): a run's, or a bot's, however many, a batch
at a time through a server-side cursor, so that what is held in memory is one batch and
not the whole list.

An export may last as long as its reader takes, so it does not hold a connection of the
pool (the pages' and the API's): each one opens a connection of its own, read-only, and
at most :data:`EXPORTS_AT_ONCE` are open at once in a process (one more is refused with
Exhausted, at once). A reader that stops reading for :data:`IDLE_S` seconds has its
export ended by the server (its transaction idles meanwhile)."""

from __future__ import annotations

import threading
from collections.abc import Generator, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.rows import dict_row

from arena.errors import Exhausted
from arena.store.base import Connected, _translated, bot_rows
from arena.store.rows import MatchRow
from arena.store.sql import QUERIES as Q

EXPORTS_AT_ONCE = 4  # exports streaming at once, each on a connection of its own
IDLE_S = 120  # an export whose reader waits longer between two batches is ended
CONNECT_S = 10  # the most an export waits for its connection

Batch = list[tuple[MatchRow, list[str]]]
"""Matches and the bot at each seat, as :meth:`Store.match` gives one."""
Batches = Generator[Batch, None, None]
"""Batches read while the generator lives: closing it ends the read, frees the connection."""


class Exports(Connected):
    def __init__(self, conninfo: str, *, max_size: int = 8, **settings: float | None) -> None:
        super().__init__(conninfo, max_size=max_size, **settings)
        self._conninfo = conninfo
        self._exports = threading.BoundedSemaphore(EXPORTS_AT_ONCE)

    def run_match_batches(self, run_id: int, *, records: bool, batch: int) -> Batches:
        """A run's matches in the order they were planned (those playing another again
        last), ``batch`` at a time; their records only with ``records``."""
        params = {"run": run_id, "bot": None, "pool": None, "records": records}
        return self._batches(params, batch)

    def bot_match_batches(
        self, bot: str, pool: str | None, *, records: bool, batch: int
    ) -> Batches:
        """A bot's matches, its hosted versions' too (in ``pool``, or in every pool),
        oldest first, ``batch`` at a
        time; their records only with ``records``."""
        params = {"run": None, "bot": bot, "pool": pool, "records": records}
        return self._batches(params, batch)

    def owners(self, names: Sequence[str]) -> dict[str, str]:
        """The owner of each of the bots named ('' for none)."""
        with self._statement() as conn:
            rows = conn.execute(Q["bot_owners"], {"names": list(names)})
            return {r["name"]: r["owner"] for r in rows}

    def _batches(self, params: dict[str, Any], batch: int) -> Batches:
        with (
            self._export_connection() as conn,
            conn.transaction(),
            conn.cursor(name="export", row_factory=dict_row) as cursor,
        ):
            cursor.itersize = batch
            bot = params.pop("bot")
            params["rows"] = None if bot is None else bot_rows(conn, bot)
            cursor.execute(Q["export_matches"], params)
            while rows := cursor.fetchmany(batch):
                out = []
                for row in rows:
                    names = row.pop("seat_names")
                    out.append((MatchRow(**row), names))
                yield out

    @contextmanager
    def _export_connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A read-only connection of the export's own, while one of the places is free."""
        if not self._exports.acquire(blocking=False):
            raise Exhausted(
                f"{EXPORTS_AT_ONCE} exports are being read already: try again when one ends"
            )
        try:
            options = f"-c jit=off -c idle_in_transaction_session_timeout={IDLE_S * 1000}"
            with (
                _translated(),
                psycopg.connect(self._conninfo, options=options, connect_timeout=CONNECT_S) as conn,
            ):
                conn.read_only = True
                yield conn
        finally:
            self._exports.release()
