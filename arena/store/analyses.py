"""The analyses of matches in the store (migration 0022; queries in analyses.sql): one row
per match, seat and budget, asked once, filled in by the workers. The cap each owner's
analyses count against is the use case's (arena/usecases/analyses.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from importlib import resources
from typing import Any

from psycopg.types.json import Jsonb

from arena.store.base import Connected, Unit
from arena.store.rows import AnalysisRow
from arena.store.sql import load

Q = load(resources.files("arena.store").joinpath("analyses.sql").read_text(encoding="utf-8"))


class Analyses(Connected):
    def owner_analyses(self, conn: Unit, owner: str, since: datetime) -> int:
        """How many analyses ``owner`` asked for since ``since``; the owner is locked
        until the unit of work ends, so that two asked at once are counted in turn."""
        conn.execute(Q["lock_analyses_owner"], {"owner": owner})
        found = conn.execute(Q["owner_analyses"], {"owner": owner, "since": since}).fetchone()
        assert found is not None  # an aggregate has a row
        return int(found["n"])

    def insert_analyses(
        self, conn: Unit, match_id: str, seats: Sequence[int], samples: int, by: str, owner: str
    ) -> list[int]:
        """The seats' analyses asked; the seats that were not asked before."""
        new = []
        for seat in seats:
            params = {"match_id": match_id, "seat": seat, "samples": samples}
            row = conn.execute(Q["insert_analysis"], params | {"asked_by": by, "owner": owner})
            if row.fetchone() is not None:
                new.append(seat)
        return new

    def pending_analyses(self, match_id: str, samples: int) -> list[int]:
        """The seats of the match whose analysis at ``samples`` is still to do."""
        with self._statement() as conn:
            rows = conn.execute(Q["pending_analyses"], {"match_id": match_id, "samples": samples})
            return [r["seat"] for r in rows]

    def begin_analysis(self, match_id: str, samples: int, seat: int) -> None:
        """A worker begins the seat's pending analysis."""
        params = {"match_id": match_id, "samples": samples, "seat": seat}
        with self._transaction() as conn:
            conn.execute(Q["begin_analysis"], params)

    def sent_analysis(self, match_id: str, samples: int) -> None:
        """The match's pending analyses at ``samples`` handed to the workers again."""
        with self._transaction() as conn:
            conn.execute(Q["sent_analysis"], {"match_id": match_id, "samples": samples})

    def lost_analyses(self, now: datetime, stall_s: float, limit: int) -> list[tuple[str, int]]:
        """The (match, budget) of the pending analyses that no worker was sent or began
        for ``stall_s`` before ``now``, at most ``limit``, marked sent at ``now``."""
        params = {"now": now, "stall_s": stall_s, "limit": limit}
        with self._transaction() as conn:
            return [(r["match_id"], r["samples"]) for r in conn.execute(Q["lost_analyses"], params)]

    def finish_analysis(
        self,
        match_id: str,
        samples: int,
        seat: int,
        decisions: list[dict[str, Any]] | None,
        error: str = "",
    ) -> None:
        """A pending analysis done (its decisions) or failed (``error``)."""
        params = {
            "match_id": match_id, "samples": samples, "seat": seat, "error": error,
            "status": "failed" if decisions is None else "done",
            "decisions": None if decisions is None else Jsonb(decisions),
        }  # fmt: skip
        with self._transaction() as conn:
            conn.execute(Q["finish_analysis"], params)

    def match_analyses(self, match_id: str) -> list[AnalysisRow]:
        """Every analysis of the match, the largest budget first, by seat."""
        with self._statement() as conn:
            rows = conn.execute(Q["match_analyses"], {"match_id": match_id})
            return [AnalysisRow(**r) for r in rows]

    def version_decisions(self, name: str, limit: int) -> list[dict[str, Any]]:
        """The analysed decisions of the latest ``limit`` analyses of ``name``'s seats
        (a bot, or a version NAME@N, as it sat)."""
        with self._statement() as conn:
            rows = conn.execute(Q["version_losses"], {"name": name, "limit": limit})
            return [d for r in rows for d in r["decisions"] or ()]
