"""Tournaments and their runs in the store: definitions, the rows a run's planning reads
and writes (the planning is arena/usecases/runs.py's), its progress and standings, and
the runs the scheduler must push on."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from psycopg.types.json import Jsonb

from arena.domain.formats import RunPlan
from arena.domain.standings import Game, Result
from arena.domain.tournament import Definition
from arena.engine import quoted
from arena.errors import NotFound, parse_id
from arena.store.base import Connected, Unit
from arena.store.rows import MatchRow, RunRow, TournamentRow
from arena.store.sql import QUERIES as Q


class Runs(Connected):
    def insert_tournament(self, conn: Unit, definition: Definition) -> TournamentRow:
        """Keep a definition (checked by the use case that creates it)."""
        params = {
            "name": definition.name,
            "definition": Jsonb(definition.to_json()),
            "schedule": definition.schedule,
        }
        row = conn.execute(Q["insert_tournament"], params).fetchone()
        assert row is not None
        return TournamentRow(**row)

    def tournament(self, key: str) -> TournamentRow | None:
        """A tournament by id or by name (not deleted)."""
        params = {"id": parse_id(key), "name": key}
        with self._transaction() as conn:
            row = conn.execute(Q["tournament"], params).fetchone()
        return None if row is None else TournamentRow(**row)

    def lock_tournament(self, conn: Unit, key: str) -> TournamentRow:
        """A tournament by id or by name, locked until the unit of work ends."""
        row = conn.execute(Q["lock_tournament"], {"id": parse_id(key), "name": key}).fetchone()
        if row is None:
            raise NotFound(f"no tournament {quoted(key)}")
        return TournamentRow(**row)

    def update_tournament(
        self, conn: Unit, tournament_id: int, definition: Definition
    ) -> TournamentRow:
        """Keep a changed definition (a changed schedule fires from now on)."""
        params = {"id": tournament_id, "definition": Jsonb(definition.to_json()),
                  "schedule": definition.schedule}  # fmt: skip
        row = conn.execute(Q["update_tournament"], params).fetchone()
        assert row is not None
        return TournamentRow(**row)

    def delete_tournament(self, conn: Unit, tournament_id: int) -> None:
        """Mark the tournament deleted (its runs and their records stay)."""
        conn.execute(Q["delete_tournament"], {"id": tournament_id})

    def active_runs(self, conn: Unit, tournament_id: int) -> list[int]:
        """The tournament's runs that are starting, running or paused."""
        return [r["id"] for r in conn.execute(Q["active_runs"], {"id": tournament_id})]

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
        self,
        conn: Unit,
        tournament: TournamentRow,
        seed: int,
        fired_for: datetime | None = None,
        definition: dict[str, Any] | None = None,
    ) -> RunRow | None:
        """A new run of the tournament as it is defined now (or as ``definition`` for
        this run alone), dealt from ``seed``. For a scheduled firing, None when that
        firing already has its run."""
        params = {
            "tournament_id": tournament.id,
            "definition": Jsonb(tournament.definition if definition is None else definition),
            "seed": seed,
            "fired_for": fired_for,
        }
        row = conn.execute(Q["insert_run"], params).fetchone()
        if fired_for is not None:
            conn.execute(Q["mark_fired"], {"id": tournament.id, "fired_for": fired_for})
        return None if row is None else RunRow(**row)

    def set_entries(
        self, conn: Unit, run_id: int, entries: dict[str, tuple[int, str]], seeds: list[str]
    ) -> None:
        """Freeze the run's entries (each participant and who plays for it) and its field
        in seed order."""
        frozen = {name: list(seat) for name, seat in entries.items()}
        params = {"id": run_id, "entries": Jsonb(frozen), "seeds": seeds}
        conn.execute(Q["set_entries"], params)

    def source_run(self, conn: Unit, key: str) -> tuple[RunRow, str] | None:
        """The run a stage is seeded from: run ``key`` (an id), or the latest finished run
        of the tournament named ``key``; and its tournament's name."""
        row = conn.execute(Q["source_run"], {"id": parse_id(key), "name": key}).fetchone()
        return None if row is None else _run_and_name(row)

    def pool_elos(self, conn: Unit, pool: str, ids: list[int]) -> dict[int, float]:
        """The ratings in ``pool`` of the bot rows ``ids`` that are rated there."""
        rows = conn.execute(Q["pool_elos"], {"pool": pool, "ids": ids})
        return {r["bot_id"]: r["elo"] for r in rows}

    def add_round(self, conn: Unit, run_id: int, made: int, rounds: list[Any]) -> None:
        """A run in rounds paired further: ``made`` more matches, its rounds now."""
        conn.execute(Q["add_round"], {"id": run_id, "made": made, "rounds": Jsonb(rounds)})

    def set_run_status(self, conn: Unit, run_id: int, status: str) -> None:
        conn.execute(Q["set_run_status"], {"id": run_id, "status": status})

    def reopen_run(self, conn: Unit, run_id: int) -> None:
        """A finished run running again (a match of it to play again)."""
        conn.execute(Q["reopen_run"], {"id": run_id})

    def cancel_run_matches(self, conn: Unit, run_id: int) -> list[str]:
        """Cancel the run's matches not started; their ids."""
        return [r["id"] for r in conn.execute(Q["cancel_run_matches"], {"id": run_id})]

    def send_run_matches(self, conn: Unit, run_id: int, window: int) -> list[str]:
        """Mark sent the run's next matches, up to ``window`` in flight; their ids (under
        the run's lock)."""
        params = {"id": run_id, "window": window}
        return sorted(r["id"] for r in conn.execute(Q["send_run_matches"], params))

    def open_runs(self, conn: Unit) -> list[int]:
        """The runs not over: starting, running or paused."""
        return [r["id"] for r in conn.execute(Q["open_runs"])]

    def lock_match(self, conn: Unit, match_id: str) -> MatchRow:
        """A match, locked until the unit of work ends."""
        row = conn.execute(Q["lock_match"], {"id": match_id}).fetchone()
        if row is None:
            raise NotFound(f"no match {quoted(match_id)}")
        return MatchRow(**row)

    def insert_replay(self, conn: Unit, match_id: str, new_id: str, seed: int, rated: bool) -> bool:
        """A new match of the run playing ``match_id`` again: its seats, rules and clocks,
        dealt from ``seed``; False when it was played again before."""
        params = {"id": match_id, "new_id": new_id, "seed": seed, "rated": rated}
        row = conn.execute(Q["insert_replay"], params).fetchone()
        return bool(row and row["made"])

    def void_matches(self, conn: Unit, match_ids: list[str], reason: str) -> list[str]:
        """Void the matches (finished, or to finish) not voided before; their ids."""
        params = {"ids": match_ids, "reason": reason}
        return [r["id"] for r in conn.execute(Q["void_matches"], params)]

    def cancel_matches(self, conn: Unit, match_ids: list[str]) -> list[str]:
        """Cancel those of the matches not started; their ids."""
        return [r["id"] for r in conn.execute(Q["cancel_matches"], {"ids": match_ids})]

    def bot_run_matches(
        self, conn: Unit, bot_id: int, runs: list[int]
    ) -> dict[str, tuple[str, int]]:
        """The bot's matches (any of its versions') in ``runs``: {id: (status, run)}."""
        rows = conn.execute(Q["bot_run_matches"], {"bot_id": bot_id, "runs": runs})
        return {r["id"]: (r["status"], r["run_id"]) for r in rows}

    def run_notes(self, run_id: int) -> list[dict[str, Any]]:
        """The run's matches voided or playing again another (500 at most)."""
        with self._statement() as conn:
            return conn.execute(Q["run_notes"], {"id": run_id}).fetchall()

    def match_pools(self, match_ids: list[str]) -> list[str]:
        """The pools of the matches."""
        with self._statement() as conn:
            return [r["pool"] for r in conn.execute(Q["match_pools"], {"ids": match_ids})]

    def run_in_flight(self, conn: Unit, run_id: int, *, started: bool = True) -> list[str]:
        """The run's matches sent to the broker and not done (without ``started``: those
        not started yet only)."""
        params = {"id": run_id, "started": started}
        return [r["id"] for r in conn.execute(Q["run_in_flight"], params)]

    def lock_run(self, conn: Unit, run_id: int) -> RunRow:
        """The run, locked until the unit of work ends."""
        row = conn.execute(Q["lock_run"], {"id": run_id}).fetchone()
        if row is None:
            raise NotFound(f"no run {run_id}")
        return RunRow(**row)

    def run_bots(
        self,
        conn: Unit,
        definition: Definition | None = None,
        as_of: datetime | None = None,
        *,
        names: Sequence[str] = (),
    ) -> dict[str, tuple[int, str]]:
        """The active bots a run of ``definition`` may seat (those listed, or those rated
        in its pool; without a definition, those ``names``), each with the bot row and
        name of who plays for it (its hosted version active at ``as_of``, default now,
        else itself)."""
        if definition is not None and definition.pool:
            rows = conn.execute(Q["pool_bots"], {"pool": definition.pool, "as_of": as_of})
        else:
            listed = list(definition.bots) if definition is not None else list(names)
            rows = conn.execute(Q["active_bots"], {"names": listed, "as_of": as_of})
        return {r["name"]: (r["id"], r["seat"]) for r in rows}

    def fail_run(self, conn: Unit, run_id: int, error: str) -> None:
        """A run that was starting cannot be played, for ``error``."""
        conn.execute(Q["fail_run"], {"id": run_id, "error": error})

    def planned_run(self, conn: Unit, run_id: int, plan: RunPlan) -> None:
        """The run is planned: running, with its total, participants and deals."""
        rounds = None if plan.rounds is None else Jsonb(plan.rounds)
        params = {"id": run_id, "total": len(plan.matches), "participants": plan.participants,
                  "deals": plan.deals, "rounds": rounds}  # fmt: skip
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

    def run_games(self, run_id: int, conn: Unit | None = None) -> list[Game]:
        """Every match of the run as its formats read it (:class:`Game`), in order."""
        if conn is not None:
            return run_games(conn, run_id)
        with self._transaction() as own:
            return run_games(own, run_id)

    def finish_run(self, run_id: int, table: dict[str, Any]) -> bool:
        """Write the final table of a running run; False when it was finished before."""
        with self._statement() as conn:
            done = conn.execute(
                Q["finish_run"], {"id": run_id, "standings": Jsonb(table)}
            ).fetchone()
        return done is not None

    def rewrite_run_table(self, run_id: int, table: dict[str, Any]) -> None:
        """The final table of a run that has one, written again (a match of it voided)."""
        with self._statement() as conn:
            conn.execute(Q["rewrite_run_table"], {"id": run_id, "standings": Jsonb(table)})

    def run_done(self, run_id: int, conn: Unit | None = None) -> bool:
        """True when none of the run's matches is left to play (finished or failed)."""
        if conn is not None:
            row = conn.execute(Q["run_done"], {"id": run_id}).fetchone()
            return bool(row and row["done"])
        with self._statement() as own:
            return self.run_done(run_id, own)

    def stalled_runs(self, now: datetime, stall_s: float) -> list[tuple[int, str, bool]]:
        """Runs that need a push at ``now``: (id, status, whether no match is left)."""
        params = {"now": now, "stall_s": stall_s}
        with self._transaction() as conn:
            rows = conn.execute(Q["stalled_runs"], params).fetchall()
        return [(r["id"], r["status"], r["done"]) for r in rows]


def _run_and_name(row: dict[str, Any]) -> tuple[RunRow, str]:
    name = row.pop("tournament")
    return RunRow(**row), name


def run_games(conn: Unit, run_id: int) -> list[Game]:
    return [game_of(r) for r in conn.execute(Q["run_games"], {"id": run_id})]


def game_of(row: dict[str, Any]) -> Game:
    """A row of ``run_games``: its result once it counts (finished, not voided)."""
    result = None
    if row["status"] == "finished" and row["voided"] is None:
        result = Result(
            row["id"], row["seat_names"], row["winner"], tuple(row["points"]), row["faults"],
            row["forfeit"] or (),
        )  # fmt: skip
    return Game(row["id"], tuple(row["seat_names"]), row["status"], row["round"], result,
                row["sealed"])  # fmt: skip
