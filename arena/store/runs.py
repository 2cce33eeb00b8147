"""Tournaments and their runs in the store: definitions, the rows a run's planning reads
and writes (the planning is arena/usecases/runs.py's), its progress and standings, and
the runs the scheduler must push on."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from psycopg.types.json import Jsonb

from arena.domain.tournament import Definition, Result, RunPlan
from arena.engine import quoted
from arena.errors import Exists, NotFound, parse_id
from arena.store.base import Connected, Unit
from arena.store.rows import MatchRow, RunRow, TournamentRow
from arena.store.sql import QUERIES as Q


class Runs(Connected):
    def insert_tournament(self, definition: Definition) -> TournamentRow:
        """Keep a definition (checked by the use case that creates it)."""
        params = {
            "name": definition.name,
            "definition": Jsonb(definition.to_json()),
            "schedule": definition.schedule,
        }
        try:
            with self._transaction() as conn:
                row = conn.execute(Q["insert_tournament"], params).fetchone()
        except Exists as e:
            raise Exists(f"a tournament named {quoted(definition.name)} already exists") from e
        assert row is not None
        return TournamentRow(**row)

    def tournament(self, key: str) -> TournamentRow | None:
        """A tournament by id or by name."""
        params = {"id": parse_id(key), "name": key}
        with self._transaction() as conn:
            row = conn.execute(Q["tournament"], params).fetchone()
        return None if row is None else TournamentRow(**row)

    def tournaments(self) -> list[tuple[TournamentRow, dict[str, Any]]]:
        """Every tournament with its number of runs and its last run's id and status."""
        with self._transaction() as conn:
            rows = conn.execute(Q["list_tournaments"]).fetchall()
        out = []
        for row in rows:
            extra = {k: row.pop(k) for k in ("last_run", "last_status", "runs")}
            out.append((TournamentRow(**row), extra))
        return out

    def scheduled_tournaments(self) -> list[TournamentRow]:
        with self._transaction() as conn:
            return [TournamentRow(**r) for r in conn.execute(Q["scheduled_tournaments"])]

    def insert_run(
        self, tournament: TournamentRow, seed: int, fired_for: datetime | None = None
    ) -> RunRow | None:
        """A new run of the tournament as it is defined now, dealt from ``seed``. For a
        scheduled firing, None when that firing already has its run."""
        params = {
            "tournament_id": tournament.id,
            "definition": Jsonb(tournament.definition),
            "seed": seed,
            "fired_for": fired_for,
        }
        with self._transaction() as conn:
            row = conn.execute(Q["insert_run"], params).fetchone()
            if fired_for is not None:
                conn.execute(Q["mark_fired"], {"id": tournament.id, "fired_for": fired_for})
        return None if row is None else RunRow(**row)

    def lock_run(self, conn: Unit, run_id: int) -> RunRow:
        """The run, locked until the unit of work ends."""
        row = conn.execute(Q["lock_run"], {"id": run_id}).fetchone()
        if row is None:
            raise NotFound(f"no run {run_id}")
        return RunRow(**row)

    def run_bots(self, conn: Unit, definition: Definition) -> dict[str, tuple[int, str]]:
        """The active bots a run of ``definition`` may seat (those listed, or those rated
        in its pool), each with the bot row and name of who plays for it (its active
        hosted version, else itself)."""
        if definition.pool:
            rows = conn.execute(Q["pool_bots"], {"pool": definition.pool})
        else:
            rows = conn.execute(Q["active_bots"], {"names": list(definition.bots)})
        return {r["name"]: (r["id"], r["seat"]) for r in rows}

    def fail_run(self, conn: Unit, run_id: int, error: str) -> None:
        """A run that was starting cannot be played, for ``error``."""
        conn.execute(Q["fail_run"], {"id": run_id, "error": error})

    def planned_run(self, conn: Unit, run_id: int, plan: RunPlan) -> None:
        """The run is planned: running, with its total, participants and deals."""
        params = {"id": run_id, "total": len(plan.matches), "participants": plan.participants,
                  "deals": plan.deals}  # fmt: skip
        conn.execute(Q["planned_run"], params)

    def run(self, run_id: int) -> tuple[RunRow, str] | None:
        """A run and its tournament's name."""
        with self._transaction() as conn:
            row = conn.execute(Q["run"], {"id": run_id}).fetchone()
        return None if row is None else _run_and_name(row)

    def runs(self, tournament_id: int | None = None, limit: int = 50) -> list[tuple[RunRow, str]]:
        with self._transaction() as conn:
            rows = conn.execute(
                Q["list_runs"], {"tournament_id": tournament_id, "limit": limit}
            ).fetchall()
        return [_run_and_name(r) for r in rows]

    def run_progress(self, run_id: int) -> dict[str, Any]:
        """How many of the run's matches are finished, failed and running."""
        with self._transaction() as conn:
            row = conn.execute(Q["run_progress"], {"id": run_id}).fetchone()
        assert row is not None
        return dict(row)

    def run_results(self, run_id: int, *, sealed: bool = True) -> list[Result]:
        """The results of the run's matches finished so far; without ``sealed``, leaving
        out those whose duplicate twin is not played yet (what others than the organizer
        may see of a run in progress)."""
        with self._transaction() as conn:
            rows = conn.execute(Q["run_results"], {"id": run_id}).fetchall()
        return [
            Result(
                r["id"],
                r["seat_names"],
                r["winner"],
                tuple(r["points"]),
                r["faults"],
                r["forfeit"] or (),
            )
            for r in rows
            if sealed or not r["sealed"]
        ]

    def finish_run(self, run_id: int, table: dict[str, Any]) -> bool:
        """Write the final table of a running run; False when it was finished before."""
        with self._statement() as conn:
            done = conn.execute(
                Q["finish_run"], {"id": run_id, "standings": Jsonb(table)}
            ).fetchone()
        return done is not None

    def run_matches(self, run_id: int, limit: int = 100) -> list[tuple[MatchRow, list[str]]]:
        """A run's matches and the bot at each seat, the latest played first."""
        with self._transaction() as conn:
            rows = conn.execute(Q["run_matches"], {"id": run_id, "limit": limit}).fetchall()
        out = []
        for row in rows:
            names = row.pop("seat_names")
            out.append((MatchRow(**row), names))
        return out

    def run_unfinished(self, run_id: int) -> list[str]:
        """The ids of the run's matches neither finished nor failed."""
        with self._transaction() as conn:
            return [r["id"] for r in conn.execute(Q["run_unfinished"], {"id": run_id})]

    def run_done(self, run_id: int) -> bool:
        """True when none of the run's matches is left to play (finished or failed)."""
        with self._statement() as conn:
            row = conn.execute(Q["run_done"], {"id": run_id}).fetchone()
        return bool(row and row["done"])

    def stalled_runs(self, now: datetime, stall_s: float) -> list[tuple[int, str, list[str]]]:
        """Runs that need a push at ``now``: (id, status, matches left to play)."""
        params = {"now": now, "stall_s": stall_s}
        with self._transaction() as conn:
            rows = conn.execute(Q["stalled_runs"], params).fetchall()
        return [(r["id"], r["status"], r["unfinished"]) for r in rows]


def _run_and_name(row: dict[str, Any]) -> tuple[RunRow, str]:
    name = row.pop("tournament")
    return RunRow(**row), name
