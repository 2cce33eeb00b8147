"""The read model of ratings (see :mod:`arena.read`): a pool's leaderboard and
standings, the intervals of the pool's fit, a bot's rating history."""

from __future__ import annotations

from typing import Any, TypedDict

from arena.domain.poolfit import Z95
from arena.domain.pools import DEFAULT_POOL
from arena.domain.rating import is_wide
from arena.read import check_pool, ladders, stamp
from arena.read.matches import summaries
from arena.store.store import Store

TREND_POINTS = 20  # rating changes in a leaderboard's trend line
HISTORY_POINTS = 200  # the latest rating changes a bot's history shows
POOL_RECENT = 10  # matches listed under a leaderboard


class Standing(TypedDict):
    """A bot's line in a pool's leaderboard: its rating, the pool's fit of all its results
    (arena/domain/poolfit.py), with that fit's 95% interval."""

    rank: int
    bot: str  # the bot, listed once: a hosted bot by its active version's rating
    played_as: str  # the row rated: the bot itself, or its active version (NAME@N)
    elo: float
    low: float | None  # the rating's 95% interval, from the same fit
    high: float | None  # (None before the pool's first fit)
    sd: float | None  # the rating's standard deviation
    wide: bool  # no interval, or one wider than WIDE_HALF on a side: not settled yet
    games: int
    wins: int
    losses: int
    provisional: bool  # as wide: the pages and the API mark it so
    last_played: str | None  # its latest rated match in the pool
    trend: list[float]  # its latest ratings, oldest first (empty when not asked for)
    state: str  # active, withdrawn, disqualified or retired (docs/events.md)


def default_pool(store: Store) -> str:
    """The pool the front page shows: the default one when it has been played, else the
    most played one."""
    pools = store.pools()
    return DEFAULT_POOL if DEFAULT_POOL in pools or not pools else pools[0]


def leaderboard(store: Store, pool: str, *, retired: bool = False) -> dict[str, Any]:
    """A pool's standings with intervals and trends (retired bots only with ``retired``),
    the pools to switch to, its ladder (None when it never had one), and the pool's latest
    matches."""
    pool = check_pool(pool)
    pools = store.pools()
    return {
        "pool": pool,
        "pools": pools if pool in pools else sorted([*pools, pool]),
        "ladder": ladders.ladder(store, pool),
        "standings": standings(store, pool, retired=retired),
        "retired": retired,
        "recent_matches": summaries(store, store.matches(pool=pool, limit=POOL_RECENT)),
    }


def intervals(store: Store, pool: str) -> dict[str, float]:
    """Half the 95% interval of each bot's rating in the pool, from the pool's last fit
    (the worker that records a rated match fits its pool, and the scheduler every pool that
    changed, every minute: arena/usecases/ratings.py); empty before the first."""
    kept = store.pool_fit(pool)
    return {} if kept is None else kept.halves


def standings(
    store: Store, pool: str, *, trends: bool = True, retired: bool = False
) -> list[Standing]:
    """A pool's leaderboard, best first; with each bot's trend line when ``trends``: the
    ratings as the pool's last fit left them; retired bots only with ``retired``."""
    rows = store.leaderboard(pool, retired=retired)
    lines = store.rating_trends(pool, TREND_POINTS) if trends else {}
    out: list[Standing] = []
    for rank, s in enumerate(rows, 1):
        sd = s.rating.deviation
        half = None if sd is None else Z95 * sd
        trend = [round(v, 1) for v in lines.get(s.name, [])]  # the row's
        if trend and trend[-1] != round(s.rating.elo, 1):  # moved since by others' games
            trend.append(round(s.rating.elo, 1))
        out.append(
            Standing(
                rank=rank,
                bot=s.bot,
                played_as=s.name,
                elo=round(s.rating.elo, 1),
                low=None if half is None else round(s.rating.elo - half, 1),
                high=None if half is None else round(s.rating.elo + half, 1),
                sd=None if sd is None else round(sd, 1),
                wide=is_wide(half),
                games=s.rating.games,
                wins=s.rating.wins,
                losses=s.rating.losses,
                provisional=is_wide(half),
                last_played=stamp(s.rating.updated_at),
                trend=trend,
                state=s.state,
            )
        )
    return out


class Spread(TypedDict):
    half: float | None  # half the rating's 95% interval, rounded
    wide: bool  # unsettled (arena.domain.rating.is_wide)


def interval_half(half: float | None) -> Spread:
    """Half a rating's 95% interval, rounded, and whether that is wide."""
    return {"half": None if half is None else round(half, 1), "wide": is_wide(half)}


class RatingChange(TypedDict):
    played_as: str  # the row whose rating changed: the bot, or a hosted version (NAME@N)
    match_id: str
    before: float
    after: float
    at: str


def rating_history(store: Store, bot: str, pool: str) -> list[RatingChange]:
    """A bot's rating in a pool, one change per rated match, oldest first: the latest
    HISTORY_POINTS of them, but for those of sealed matches (listed once their twin is
    played: a change tells the match's result). A bot's are its hosted versions' too,
    each change naming the version (a version's, NAME@N, are its own): each version has
    its own rating."""
    changes = store.rating_history(bot, pool, HISTORY_POINTS)
    sealed = store.sealed([h["match_id"] for h in changes])
    return [
        RatingChange(
            played_as=h["played_as"],
            match_id=h["match_id"],
            before=round(h["before"], 1),
            after=round(h["after"], 1),
            at=stamp(h["created_at"]),
        )
        for h in changes
        if h["match_id"] not in sealed
    ]
