"""Sequential tests in the store (migration 0012): is NEW stronger than BASE? A test makes
its matches in pairs, counts each pair once both its matches are recorded, and stops
making them once it has decided (docs/testing.md).

The rows a test's start and its steps read and write, on the unit of work of the use case
that does them (arena/usecases/sprts.py; the step itself: :func:`arena.domain.sprt.step`):
the test row locked, its matches and counted pairs, a pair counted by the insert of its
row (once, whoever counts it first), and the test's tally written back.
"""

from __future__ import annotations

from psycopg.types.json import Jsonb

from arena.domain.matches import match_number
from arena.domain.sprt import Asked, Counted, Sprt, SprtMatch, Step
from arena.errors import NotFound
from arena.store.base import Connected, Unit, bot_rows
from arena.store.rows import SprtPairRow, SprtRow
from arena.store.sql import QUERIES as Q


class Sprts(Connected):
    def owner_tests(self, conn: Unit, bot: str) -> tuple[str, int, int]:
        """The owner of ``bot`` (its bots' owner; empty: the bot is its own), the tests
        its bots have running and their matches in all; the owner is locked until the unit
        of work ends, so that two tests asked at once are counted one after the other."""
        conn.execute(Q["lock_owner"], {"bot": bot})
        found = conn.execute(Q["owner_tests"], {"bot": bot}).fetchone()
        assert found is not None  # an aggregate has a row
        return found["owner"] or "", found["tests"], found["games"]

    def insert_sprt(
        self,
        conn: Unit,
        new_id: int,
        base_id: int,
        test: Sprt,
        asked: Asked,
        duplicate: bool,
        by: str,
    ) -> SprtRow:
        params = {
            "new_id": new_id, "base_id": base_id, "rules": str(asked.rules),
            "clock": Jsonb(asked.clock.to_json()), "elo0": test.elo0, "elo1": test.elo1,
            "alpha": test.alpha, "beta": test.beta, "max_games": asked.max_games,
            "at_once": asked.at_once, "rated": asked.rated, "duplicate": duplicate,
            "asked_by": by,
        }  # fmt: skip
        row = conn.execute(Q["insert_sprt"], params).fetchone()
        assert row is not None
        return SprtRow(**row)

    def sprt(self, test_id: int) -> tuple[SprtRow, str, str] | None:
        """A test, with the names of who plays NEW and BASE."""
        with self._statement() as conn:
            row = conn.execute(Q["sprt"], {"id": test_id}).fetchone()
        if row is None:
            return None
        new, base = row.pop("new_name"), row.pop("base_name")
        return SprtRow(**row), new, base

    def sprts(
        self, bot: str | None, *, running: bool | None, before: int | None, limit: int
    ) -> list[tuple[SprtRow, str, str]]:
        """Tests (of ``bot``: where it or one of its hosted versions plays NEW or BASE),
        the latest first, with the names of who plays NEW and BASE: running ones, finished
        ones, or both (``running`` None); of ids below ``before`` when given."""
        with self._transaction() as conn:
            params = {
                "rows": None if bot is None else bot_rows(conn, bot),
                "running": running,
                "before": before,
                "limit": limit,
            }
            rows = conn.execute(Q["list_sprts"], params).fetchall()
        named = [(r.pop("new_name"), r.pop("base_name"), r) for r in rows]
        return [(SprtRow(**r), new, base) for new, base, r in named]

    def sprt_pairs(self, test_id: int) -> list[SprtPairRow]:
        """The test's pairs in the order they were counted, each with the LLR after it."""
        with self._statement() as conn:
            return [SprtPairRow(**r) for r in conn.execute(Q["sprt_pairs"], {"id": test_id})]

    def running_sprts(self) -> list[int]:
        with self._statement() as conn:
            return [r["id"] for r in conn.execute(Q["running_sprts"])]

    def lock_sprt(self, conn: Unit, test_id: int) -> SprtRow:
        """The test, locked until the unit of work ends."""
        row = conn.execute(Q["lock_sprt"], {"id": test_id}).fetchone()
        if row is None:
            raise NotFound(f"no test {test_id}")
        return SprtRow(**row)

    def sprt_matches(self, conn: Unit, test_id: int) -> list[SprtMatch]:
        """The test's matches, in order."""
        return [
            SprtMatch(match_number(r["id"]), r["status"], r["winner"], r["first"],
                      r["finished_at"])
            for r in conn.execute(Q["sprt_matches"], {"id": test_id})
        ]  # fmt: skip

    def sprt_counted(self, conn: Unit, test_id: int) -> set[int]:
        """The places of the test's pairs counted so far."""
        return {p["pair"] for p in conn.execute(Q["sprt_pairs"], {"id": test_id})}

    def stepped_sprt(self, conn: Unit, test_id: int, step: Step) -> None:
        """What a step did: the pairs it counted, and the test's tally and status."""
        conn.cursor().executemany(Q["insert_sprt_pair"], [_pair(test_id, c) for c in step.counted])
        lost, split, won = step.tally.pairs
        conn.execute(
            Q["update_sprt"],
            {"id": test_id, "status": step.verdict or "running",
             "scheduled": step.tally.scheduled, "lost_both": lost, "split": split,
             "won_both": won, "llr": step.tally.llr},
        )  # fmt: skip


def _pair(test_id: int, counted: Counted) -> dict[str, object]:
    return {"test_id": test_id, "pair": counted.pair, "score": counted.score,
            "number": counted.number, "llr": counted.llr}  # fmt: skip
