"""The audit's reads (docs/events.md, "The audit"): the kept counts and the same counts
recounted from the history, the rating events and matches that look wrong, the runs and
their matches, in one read-only REPEATABLE READ transaction (:meth:`Audits.snapshot`), so
that every read sees the same moment and nothing can be written by mistake. Nothing is
recounted in place. What is wrong is judged by arena/domain/audit.py; the store only
reads.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from arena.domain.audit import COUNTED, Kept
from arena.domain.standings import Game
from arena.store.base import Connected, Unit
from arena.store.runs import run_games
from arena.store.sql import QUERIES as Q


class Audits(Connected):
    @contextmanager
    def snapshot(self) -> Iterator[Unit]:
        """A read-only transaction at REPEATABLE READ: every read in it sees the database
        as it was at its first statement."""
        with self._transaction() as conn:
            conn.execute(Q["audit_snapshot"])
            yield conn

    def audit_tally(self, conn: Unit, scope: Scope) -> dict[str, Any]:
        """What the audit looks at: ``at`` (the snapshot's time), matches and runs by
        status, voided matches, replays, rating rows and events."""
        row = conn.execute(Q["audit_tally"], scope.params()).fetchone()
        assert row is not None
        return dict(row)

    def audit_counts(self, conn: Unit, table: str, scope: Scope) -> tuple[Kept, Kept]:
        """A kept count (``table``, one of :data:`arena.domain.audit.COUNTED`) as kept,
        and as the history gives it, each keyed by its key columns' values."""
        keys = COUNTED[table]
        params = scope.params()
        kept = conn.execute(Q[f"audit_kept_{table}"], params).fetchall()
        recount = Q["audit_counted"] + "\n" + Q[f"audit_recount_{table}"]
        again = conn.execute(recount, params).fetchall()
        return _keyed(kept, keys), _keyed(again, keys)

    def audit_rows(self, conn: Unit, name: str, scope: Scope, **more: Any) -> list[dict[str, Any]]:
        """The rows of one of the audit's other reads (``odd_events``, ``unfitted``,
        ``stuck``, ``runs``, ``strays``); ``missing_events`` is read on the counted
        matches."""
        sql = Q[f"audit_{name}"]
        if name == "missing_events":
            sql = Q["audit_counted"] + "\n" + sql
        return conn.execute(sql, scope.params() | more).fetchall()

    def audit_elos(
        self, conn: Unit, scope: Scope
    ) -> dict[str, tuple[dict[str, float], list[str] | None]]:
        """The kept ratings (pool -> bot -> Elo) of the pools whose kept fit is of their
        current version (no match recorded since it was fitted), each with the bots that
        fit's mean is of (None: every bot)."""
        rows = conn.execute(Q["audit_fitted_elos"], scope.params()).fetchall()
        out: dict[str, tuple[dict[str, float], list[str] | None]] = {}
        for r in rows:
            out.setdefault(r["pool"], ({}, r["anchors"]))[0][r["bot"]] = r["elo"]
        return out

    def audit_run(self, conn: Unit, run_id: int) -> tuple[dict[str, Any] | None, list[Game]]:
        """The run (status, definition, participants, rounds, standings kept) and its
        matches as its table reads them."""
        row = conn.execute(Q["audit_run"], {"run": run_id}).fetchone()
        return (None if row is None else dict(row)), run_games(conn, run_id)

    def audit_run_pools(self, conn: Unit, run_id: int) -> list[str]:
        """The pools the run's matches are played in."""
        row = conn.execute(Q["audit_run_pools"], {"run": run_id}).fetchone()
        return list(row["pools"]) if row else []


@dataclass(frozen=True, slots=True)
class Scope:
    """What an audit reads: every run and pool (None), or one run's matches and the
    counts of its pools."""

    run: int | None = None
    pools: tuple[str, ...] | None = None

    def params(self) -> dict[str, Any]:
        return {"run": self.run, "pools": None if self.pools is None else list(self.pools)}


def _keyed(rows: list[dict[str, Any]], keys: Sequence[str]) -> Kept:
    return {
        tuple(str(r[k]) for k in keys): {c: int(v) for c, v in r.items() if c not in keys}
        for r in rows
    }
