"""Tournaments and their runs in the store: definitions, planning a run's matches once,
its progress and standings, and the runs the scheduler must push on."""

from __future__ import annotations

import logging
import secrets
from datetime import datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from arena.domain.pools import pool_of
from arena.domain.tournament import Definition, Result, deal_mode, plan, standings
from arena.engine import Rules, quoted
from arena.errors import Exists, NotFound, parse_id
from arena.store.base import MATCH_DEFAULTS, Connected
from arena.store.rows import MatchRow, RunRow, TournamentRow
from arena.store.sql import QUERIES as Q

log = logging.getLogger(__name__)


class Runs(Connected):
    def create_tournament(self, definition: Definition) -> TournamentRow:
        """Keep a definition; its listed bots must be registered."""
        listed = [*definition.bots, *([definition.challenger] if definition.challenger else [])]
        if listed:
            with self._transaction() as conn:
                found = conn.execute(Q["active_bots"], {"names": listed}).fetchall()
            seated = {r["name"]: r["seat"] for r in found}
            missing = [b for b in dict.fromkeys(listed) if b not in seated]
            if missing:
                raise NotFound(f"no active bot named {', '.join(map(quoted, missing))}")
            deal_mode(definition, seated)  # refused now, with the real reason, if unfair
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

    def create_run(
        self, tournament: TournamentRow, *, fired_for: datetime | None = None
    ) -> RunRow | None:
        """A new run of the tournament as it is defined now. For a scheduled firing, None
        when that firing already has its run."""
        definition = Definition.from_json(tournament.definition)
        seed = definition.seed if definition.seed is not None else secrets.randbits(62)
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

    def plan_run(self, run_id: int) -> list[str]:
        """Create the run's matches (once: the run row is locked while planning) and return
        the ids of those not yet finished or failed."""
        with self._transaction() as conn:
            row = conn.execute(Q["lock_run"], {"id": run_id}).fetchone()
            if row is None:
                raise NotFound(f"no run {run_id}")
            if row["status"] == "starting":
                try:
                    self._plan(conn, RunRow(**row))
                except ValueError as e:
                    conn.execute(Q["fail_run"], {"id": run_id, "error": str(e)})
                    log.warning("run %d cannot start: %s", run_id, e)
                    return []
        return self.run_unfinished(run_id)

    def _plan(self, conn: psycopg.Connection[Any], run: RunRow) -> None:
        definition = Definition.from_json(run.definition)
        if definition.pool:
            found = conn.execute(Q["pool_bots"], {"pool": definition.pool}).fetchall()
        else:
            found = conn.execute(Q["active_bots"], {"names": list(definition.bots)}).fetchall()
        gone = [b for b in definition.bots if b not in {r["name"] for r in found}]
        if gone:
            log.warning("run %d: %s no longer active; playing without", run.id, gone)
        # each bot is seated as who plays for it: its active hosted version, else itself
        ids = {r["name"]: r["id"] for r in found}
        seated = {r["name"]: r["seat"] for r in found}
        deals = deal_mode(definition, seated)
        matches = plan(definition, sorted(ids), run.seed, self.deal_key(), deals)
        rules = Rules.parse(definition.rules)
        clock = Jsonb(definition.clock.to_json())
        conn.cursor().executemany(
            Q["insert_match"],
            [
                MATCH_DEFAULTS | {
                    "id": run_match_id(run.id, m.number), "pool": pool_of(rules),
                    "rules": str(rules), "seed": m.seed, "clock": clock, "rated": True,
                    "run_id": run.id, "absent": definition.absent,
                    "twin": None if m.twin is None else run_match_id(run.id, m.twin),
                }
                for m in matches
            ],
        )  # fmt: skip
        conn.cursor().executemany(
            Q["insert_seat"],
            [
                {"match_id": run_match_id(run.id, m.number), "seat": seat, "bot_id": ids[bot]}
                for m in matches
                for seat, bot in enumerate(m.seats)
            ],
        )
        participants = sorted(seated.values())  # as its records and table name them
        conn.execute(
            Q["planned_run"],
            {"id": run.id, "total": len(matches), "participants": participants, "deals": deals},
        )

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

    def run_standings(self, run: RunRow, *, sealed: bool = True) -> dict[str, Any]:
        """The run's table from the matches finished so far; without ``sealed``, leaving
        out those whose duplicate twin is not played yet (what others than the organizer
        may see of a run in progress)."""
        with self._transaction() as conn:
            rows = conn.execute(Q["run_results"], {"id": run.id}).fetchall()
        results = [
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
        return standings(run.participants, results)

    def finish_run(self, run_id: int) -> bool:
        """Write the final table of a run whose matches are all done; False when it was
        finished before or still has matches to play."""
        found = self.run(run_id)
        if found is None:
            raise NotFound(f"no run {run_id}")
        run = found[0]
        if run.status != "running":
            return False
        if not self.run_done(run_id):
            return False
        table = self.run_standings(run)
        with self._transaction() as conn:
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


def run_match_id(run_id: int, number: int) -> str:
    return f"r{run_id}-{number:04d}"


def _run_and_name(row: dict[str, Any]) -> tuple[RunRow, str]:
    name = row.pop("tournament")
    return RunRow(**row), name
