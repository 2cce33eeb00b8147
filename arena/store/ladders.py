"""Ladders in the store (migration 0011): each pool's switch and settings, the bots that
opted in, and the one place where a ladder's matches are made.

:meth:`Ladders.fill_ladder` makes them under the ladder row's lock, in one transaction
with the counter that names them: two schedulers asking at once take turns, and the
second sees the first's matches in the slots, so a slot is never filled twice. Nothing
about a ladder lives anywhere else: a scheduler that restarts reads it all again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from psycopg.types.json import Jsonb

from arena.domain.clock import TimeControl
from arena.domain.matchmaking import CONCURRENCY
from arena.domain.pools import pool_rules
from arena.domain.tournament import deal_seed
from arena.engine import quoted
from arena.errors import NotFound
from arena.store.base import Connected
from arena.store.rows import BotRow, LadderRow, MatchRow
from arena.store.sql import QUERIES as Q

RECENT = 60  # the latest pairings a ladder reads for its matchmaking


@dataclass(frozen=True, slots=True)
class Slots:
    """What a ladder's scheduler sees while it holds the ladder: its row, every ladder's
    unfinished matches (by ladder id, each its seats: bots play on more than one ladder)
    and this ladder's latest pairings, oldest first."""

    ladder: LadderRow
    open: dict[int, list[list[str]]]
    recent: list[list[str]]

    @property
    def free(self) -> int:
        return max(0, self.ladder.concurrency - len(self.open.get(self.ladder.id, [])))


@dataclass(frozen=True, slots=True)
class LadderBot:
    """A bot a ladder may pair: ``seat`` plays for it (its active hosted version, or
    itself), ``id`` is the seat's bot row."""

    id: int
    name: str
    seat: str
    hosted: bool


def ladder_match_id(ladder_id: int, number: int) -> str:
    return f"ladder{ladder_id}-{number:06d}"


class Ladders(Connected):
    def set_ladder(
        self,
        pool: str,
        running: bool,
        concurrency: int | None = None,
        clock: TimeControl | None = None,
    ) -> LadderRow:
        """Switch the pool's ladder on or off; ``concurrency`` and ``clock`` change when
        given, else stay as they were (or take their defaults)."""
        with self._transaction() as conn:
            conn.execute(
                Q["insert_ladder"],
                {
                    "pool": pool,
                    "concurrency": CONCURRENCY,
                    "clock": Jsonb(TimeControl().to_json()),
                },
            )
            row = conn.execute(Q["lock_ladder"], {"pool": pool}).fetchone()
            assert row is not None
            params = {
                "id": row["id"],
                "running": running,
                "concurrency": row["concurrency"] if concurrency is None else concurrency,
                "clock": Jsonb(row["clock"] if clock is None else clock.to_json()),
            }
            done = conn.execute(Q["update_ladder"], params).fetchone()
        assert done is not None
        return LadderRow(**done)

    def ladder(self, pool: str) -> LadderRow | None:
        with self._statement() as conn:
            row = conn.execute(Q["ladder"], {"pool": pool}).fetchone()
        return None if row is None else LadderRow(**row)

    def running_ladders(self) -> list[str]:
        with self._statement() as conn:
            return [r["pool"] for r in conn.execute(Q["running_ladders"])]

    def set_bot_ladder(self, name: str, on: bool) -> BotRow:
        """Whether ladders may schedule the bot, as it asked."""
        with self._statement() as conn:
            row = conn.execute(Q["set_bot_ladder"], {"name": name, "on": on}).fetchone()
        if row is None:
            raise NotFound(f"no bot named {quoted(name)}")
        return BotRow(**row)

    def ladder_bots(self) -> list[LadderBot]:
        """The bots ladders may pair (those that dial in still need to be connected)."""
        with self._statement() as conn:
            return [LadderBot(**r) for r in conn.execute(Q["ladder_bots"])]

    def fill_ladder(
        self,
        pool: str,
        choose: Callable[[Slots], Sequence[Sequence[int]]],
        available: Sequence[str],
        ended: str | None = None,
    ) -> list[str]:
        """Make the matches ``choose`` picks for the ladder's free slots (each its seats'
        bot ids, in order), under the ladder's lock; their ids. Nothing when the ladder
        is off. ``available``: the bots it could pair now, kept for its pages; ``ended``:
        a match the referee has ended, not yet recorded, whose slot is free."""
        rules = pool_rules(pool)
        key = self.deal_key()  # read now: not on a second connection while holding the lock
        with self._transaction() as conn:
            row = conn.execute(Q["lock_ladder"], {"pool": pool}).fetchone()
            if row is None or not row["running"]:
                return []
            ladder = LadderRow(**row)
            open_: dict[int, list[list[str]]] = {}
            for m in conn.execute(Q["ladder_open"]):
                if m["id"] != ended:
                    open_.setdefault(m["ladder_id"], []).append(m["seat_names"])
            recent = [
                r["seat_names"]
                for r in conn.execute(Q["ladder_recent"], {"id": ladder.id, "limit": RECENT})
            ][::-1]
            chosen = choose(Slots(ladder, open_, recent)) if ladder.concurrency else []
            ids: list[str] = []
            for seats in chosen:
                match_id = ladder_match_id(ladder.id, ladder.scheduled + len(ids) + 1)
                match = {"id": match_id, "pool": ladder.pool, "rules": str(rules),
                         "seed": deal_seed(key, match_id), "clock": Jsonb(ladder.clock),
                         "rated": True, "ladder_id": ladder.id}  # fmt: skip
                self._insert_match(conn, match, seats)
                ids.append(match_id)
            conn.execute(
                Q["ladder_scheduled"],
                {"id": ladder.id, "scheduled": ladder.scheduled + len(ids),
                 "available": sorted(available)},
            )  # fmt: skip
        return ids

    def ladder_activity(self, ladder_id: int) -> dict[str, Any]:
        """Its matches playing now, its matches an hour, the last one's id."""
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
