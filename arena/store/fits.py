"""A pool's ratings in the store: the results the fit reads (lineup_stats, kept as matches
are recorded: migration 0015), and what a fit writes, on the unit of work of
arena/usecases/ratings.py under the pool's lock: every bot's rating and deviation, the
fit's version and intervals, and the rating events of the matches it is the first to
count (each bot's rating before that fit and after it). The fit itself is the use case's
(arena/domain/poolfit.py): the store reads and writes, and decides nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from psycopg.types.json import Jsonb

from arena.domain.poolfit import Fit, Lineup
from arena.store.base import Connected, Unit
from arena.store.sql import QUERIES as Q


@dataclass(frozen=True, slots=True)
class KeptFit:
    """What the store keeps of a pool's last fit: the version of the pool it fitted (its
    count of recorded matches then), half of each bot's 95% interval, and the duplicate
    pairs' dispersion."""

    version: int
    halves: dict[str, float]
    dispersion: float
    anchors: frozenset[str] | None = None  # the bots its mean is of; None: every one


class Fits(Connected):
    def pool_version(self, pool: str) -> int:
        """A number that grows whenever a match of the pool is recorded."""
        with self._statement() as conn:
            row = conn.execute(Q["pool_version"], {"pool": pool}).fetchone()
        return int(row["version"]) if row else 0

    def pool_fit(self, pool: str, version: int | None = None) -> KeptFit | None:
        """The pool's last fit, if it fitted ``version`` (None: whatever it fitted)."""
        with self._statement() as conn:
            row = conn.execute(Q["pool_fit"], {"pool": pool, "version": version}).fetchone()
        if row is None:
            return None
        return _kept(row)

    def pool_lineups(self, pool: str) -> list[Lineup]:
        """The pool's rated results, a lineup per pairing of teams."""
        with self._statement() as conn:
            return [_lineup(r) for r in conn.execute(Q["pool_lineups"], {"pool": pool})]

    def lock_pool_fit(self, conn: Unit, pool: str) -> tuple[int, KeptFit | None]:
        """The pool's version now and its fit of that version if it has one, the pool
        locked for fitting until the unit of work ends (a second fitter waits, then finds
        the fit done)."""
        conn.execute(Q["lock_pool_fit"], {"pool": pool})
        counted = conn.execute(Q["pool_version"], {"pool": pool}).fetchone()
        version = int(counted["version"]) if counted else 0
        kept = conn.execute(Q["pool_fit"], {"pool": pool, "version": version}).fetchone()
        return version, None if kept is None else _kept(kept)

    def fit_members(self, conn: Unit, pool: str) -> list[tuple[str, bool, float]]:
        """The pool's rated bots, each as (name, retired, seconds since its latest rated
        game in the pool), for :func:`arena.domain.poolfit.anchors`."""
        rows = conn.execute(Q["fit_members"], {"pool": pool})
        return [(r["name"], r["retired"], r["idle_s"]) for r in rows]

    def unfitted(self, conn: Unit, pool: str) -> list[dict[str, Any]]:
        """The pool's recorded matches no fit has counted yet (read before the results a
        fit reads: one recorded in between is counted by the next fit)."""
        return conn.execute(Q["matches_to_fit"], {"pool": pool}).fetchall()

    def fit_lineups(self, conn: Unit, pool: str) -> list[Lineup]:
        """The pool's rated results, a lineup per pairing of teams, in the unit of work."""
        return [_lineup(r) for r in conn.execute(Q["pool_lineups"], {"pool": pool})]

    def keep_fit(
        self, conn: Unit, pool: str, version: int, fit: Fit, new: list[dict[str, Any]]
    ) -> KeptFit:
        """Keep what a fit of the pool's ``version`` says: every bot's rating and
        deviation, the fit's intervals, and the rating events of the matches ``new`` to
        it (each bot's rating before this fit and after it)."""
        before = {r["bot_id"]: (r["name"], r["elo"]) for r in conn.execute(
            Q["pool_ratings"], {"pool": pool})}  # fmt: skip
        after = {
            bot_id: fit.ratings[name] for bot_id, (name, _) in before.items()
            if name in fit.ratings
        }  # fmt: skip
        conn.execute(
            Q["set_ratings"],
            {"pool": pool, "bot_ids": list(after),
             "elos": [e.elo for e in after.values()],
             "deviations": [e.sd for e in after.values()]},
        )  # fmt: skip
        _events(conn, pool, new, before, after)
        halves = {name: e.half for name, e in fit.ratings.items()}
        conn.execute(
            Q["keep_pool_fit"],
            {"pool": pool, "version": version, "halves": Jsonb(halves),
             "dispersion": fit.dispersion, "anchors": list(fit.anchors)},
        )  # fmt: skip
        return KeptFit(version, halves, fit.dispersion, frozenset(fit.anchors))


def _kept(row: dict[str, Any]) -> KeptFit:
    anchors = None if row["anchors"] is None else frozenset(row["anchors"])
    return KeptFit(row["version"], dict(row["halves"]), row["dispersion"], anchors)


def _lineup(row: dict[str, Any]) -> Lineup:
    paired = (row["lost_both"], row["split"], row["won_both"])
    return Lineup(tuple(row["team_a"]), tuple(row["team_b"]), row["games"], row["wins"], paired)


def _events(
    conn: Any,
    pool: str,
    new: list[dict[str, Any]],
    before: dict[int, tuple[str, float]],
    after: dict[int, Any],
) -> None:
    """The rating events of the matches a fit counts first (a match nobody was credited
    with, both teams having forfeited, moved nobody: none), and the matches marked
    counted."""
    bot_ids, match_ids, befores, afters = [], [], [], []
    for m in new:
        if not m["counted"]:
            continue
        for bot_id in m["bot_ids"]:
            if bot_id in after:
                bot_ids.append(bot_id)
                match_ids.append(m["id"])
                befores.append(before[bot_id][1])
                afters.append(after[bot_id].elo)
    if bot_ids:
        conn.execute(
            Q["insert_rating_events"],
            {"pool": pool, "bot_ids": bot_ids, "match_ids": match_ids, "befores": befores,
             "afters": afters},
        )  # fmt: skip
    if new:
        conn.execute(Q["mark_fitted"], {"ids": [m["id"] for m in new]})
