"""Ladders in the store (migrations 0011 and 0020): each pool's switch, its settings and
its pace, the bots that opted in (to every pool's or to one pool's), and the rows
the ladder's scheduler reads and writes on its unit of work (arena/usecases/ladder.py):
the ladder row locked, the slots taken, its latest pairings and the counter that names
its matches. Nothing about a ladder lives anywhere else: a scheduler that restarts reads
it all again."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from psycopg.types.json import Jsonb

from arena.domain.clock import DEFAULT_CLOCK, TimeControl
from arena.domain.matchmaking import CONCURRENCY
from arena.engine import quoted
from arena.errors import NotFound
from arena.store.base import Connected, Unit
from arena.store.rows import BotRow, LadderRow, MatchRow
from arena.store.sql import QUERIES as Q


@dataclass(frozen=True, slots=True)
class LadderBot:
    """A bot a ladder may pair: ``seat`` plays for it (its active hosted version, or
    itself), ``id`` is the seat's bot row."""

    id: int
    name: str
    seat: str
    hosted: bool


class Ladders(Connected):
    def make_ladder(self, conn: Unit, pool: str) -> LadderRow:
        """The pool's ladder, made (off, with the default concurrency and clocks) if it
        had none, locked until the unit of work ends."""
        defaults = {
            "pool": pool,
            "concurrency": CONCURRENCY,
            "clock": Jsonb(DEFAULT_CLOCK.to_json()),
        }
        conn.execute(Q["insert_ladder"], defaults)
        found = self.lock_ladder(conn, pool)
        assert found is not None
        return found

    def update_ladder(
        self, conn: Unit, ladder_id: int, running: bool, concurrency: int, clock: TimeControl
    ) -> LadderRow:
        params = {
            "id": ladder_id,
            "running": running,
            "concurrency": concurrency,
            "clock": Jsonb(clock.to_json()),
        }
        row = conn.execute(Q["update_ladder"], params).fetchone()
        assert row is not None
        return LadderRow(**row)

    def ladder(self, pool: str) -> LadderRow | None:
        with self._statement() as conn:
            row = conn.execute(Q["ladder"], {"pool": pool}).fetchone()
        return None if row is None else LadderRow(**row)

    def running_ladders(self) -> list[str]:
        with self._statement() as conn:
            return [r["pool"] for r in conn.execute(Q["running_ladders"])]

    def set_bot_ladder(
        self, name: str, on: bool, pool: str | None = None, conn: Unit | None = None
    ) -> BotRow:
        """Whether ladders may schedule the bot, as it asked: in ``pool``'s, or (None) in
        every pool's, its choices for single pools replaced (on ``conn``, a use case's
        unit of work, when given)."""
        query, params = Q["set_bot_ladder"], {"name": name, "on": on, "pool": pool}
        if pool is not None:
            query = Q["set_bot_pool_ladder"]
        with self._within(conn) as c:
            row = c.execute(query, params).fetchone()
        if row is None:
            raise NotFound(f"no bot named {quoted(name)}")
        return BotRow(**row)

    def ladder_choices(self, name: str | None = None) -> dict[str, tuple[bool, dict[str, bool]]]:
        """Of bot ``name`` (None: of every bot), by name: whether it has an active hosted
        version, and its choices for single pools' ladders."""
        with self._statement() as conn:
            rows = conn.execute(Q["ladder_choices"], {"name": name})
            return {r["name"]: (r["hosted"], dict(r["pools"])) for r in rows}

    def ladder_bots(self, pool: str) -> list[LadderBot]:
        """The bots the pool's ladder may pair (those that dial in still need to be
        connected)."""
        with self._statement() as conn:
            return [LadderBot(**r) for r in conn.execute(Q["ladder_bots"], {"pool": pool})]

    def lock_ladder(self, conn: Unit, pool: str) -> LadderRow | None:
        """The pool's ladder, locked until the unit of work ends (None: it has none)."""
        row = conn.execute(Q["lock_ladder"], {"pool": pool}).fetchone()
        return None if row is None else LadderRow(**row)

    def ladder_open(self, conn: Unit) -> list[tuple[int, str, list[str]]]:
        """Every ladder's matches neither finished nor failed (its slots taken): each
        one's ladder, id and seats."""
        return [(m["ladder_id"], m["id"], m["seat_names"]) for m in conn.execute(Q["ladder_open"])]

    def ladder_recent(self, conn: Unit, ladder_id: int, limit: int) -> list[list[str]]:
        """The seats of the ladder's latest ``limit`` matches, oldest first."""
        rows = conn.execute(Q["ladder_recent"], {"id": ladder_id, "limit": limit})
        return [r["seat_names"] for r in rows][::-1]

    def ladder_scheduled(
        self, conn: Unit, ladder_id: int, scheduled: int, available: Sequence[str]
    ) -> None:
        """The ladder has made ``scheduled`` matches in all, and looked now at the bots
        ``available`` (kept for its pages)."""
        params = {"id": ladder_id, "scheduled": scheduled, "available": sorted(available)}
        conn.execute(Q["ladder_scheduled"], params)

    def ladder_activity(self, ladder_id: int) -> dict[str, Any]:
        """Its matches playing now, those it finished in the last hour while on, the last
        one's id, how many seconds ago it was switched on (None: it is off) and last
        looked (None: never)."""
        with self._statement() as conn:
            row = conn.execute(Q["ladder_activity"], {"id": ladder_id}).fetchone()
        assert row is not None
        return dict(row)

    def bot_ladder_matches(
        self, bot: str, pool: str, limit: int
    ) -> list[tuple[MatchRow, list[str]]]:
        """The bot's latest ladder matches in the pool, newest first."""
        params = {"bot": bot, "pool": pool, "limit": limit}
        with self._statement() as conn:
            rows = conn.execute(Q["bot_ladder_matches"], params).fetchall()
        out = []
        for row in rows:
            names = row.pop("seat_names")
            out.append((MatchRow(**row), names))
        return out
