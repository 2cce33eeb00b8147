"""The read model: what people look at (leaderboards, bots, matches, tournaments, runs),
as typed plain values read from the store.

Each function answers one question and returns dicts whose shapes are declared here
(:class:`typing.TypedDict`): the web pages render them and their JSON twins are exactly
them, the Arena API turns them into its messages (``referee/api.py``), and the CLI
presents the API's answers; :mod:`arena.read.tournaments` holds tournaments and runs. Nothing here
writes to the store. Numbers are rounded here,
once, and "no value" is always None. :class:`arena.errors.NotFound` says what is missing,
quoting what was asked for short.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

from arena.domain.identity import BotRef, is_version
from arena.domain.poolfit import Z95
from arena.domain.pools import DEFAULT_POOL, parse_pool
from arena.domain.rating import is_wide
from arena.engine import TrucoError, public_record, quoted
from arena.errors import Invalid, NotFound, Sealed
from arena.read.replay import replay_hand, teams
from arena.store.rows import BotVersionRow, MatchRow
from arena.store.store import Store

TREND_POINTS = 20  # rating changes in a leaderboard's trend line
HISTORY_POINTS = 200  # the latest rating changes a bot's history shows
RECENT = 20  # matches listed on a bot's page
POOL_RECENT = 10  # matches listed under a leaderboard


class Standing(TypedDict):
    """A bot's line in a pool's leaderboard: its rating, the pool's fit of all its results
    (arena/domain/poolfit.py), with that fit's 95% interval."""

    rank: int
    bot: str
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


class MatchSummary(TypedDict):
    """What a list of matches shows of one. A sealed match (its duplicate twin, dealt the
    same cards, is not played yet) shows neither its score nor its result to anyone but
    the organizer: they say something of the cards the twin deals."""

    id: str
    pool: str
    rules: str
    status: str
    rated: bool
    run_id: int | None  # the tournament run, when there is one
    seats: list[str]
    teams: list[str]
    score: list[int] | None  # as played at the table
    winner: int | None  # the team credited with the match (None: nobody, or not yet)
    forfeit: list[int] | None  # the teams that lost it by forfeit (arena/domain/absence.py)
    twin: str | None  # its duplicate twin, dealt the same cards with the seats exchanged
    sealed: bool  # withheld until its twin is played (score, result and record)
    created_at: str
    finished_at: str | None


SEALED = "public once its twin, {twin}, is played: the two are dealt the same cards"


def check_pool(pool: str) -> str:
    """A pool's name checked (:func:`arena.domain.pools.parse_pool`): a page of no pool is 404."""
    try:
        return parse_pool(pool)
    except Invalid as e:
        raise NotFound(str(e)) from None


def default_pool(store: Store) -> str:
    """The pool the front page shows: the default one when it has been played, else the
    most played one."""
    pools = store.pools()
    return DEFAULT_POOL if DEFAULT_POOL in pools or not pools else pools[0]


def leaderboard(store: Store, pool: str) -> dict[str, Any]:
    """A pool's standings with intervals and trends, the pools to switch to, its ladder
    (None when it never had one), and the pool's latest matches."""
    from arena.read import ladders  # it builds on this module: imported once both are

    pool = check_pool(pool)
    pools = store.pools()
    return {
        "pool": pool,
        "pools": pools if pool in pools else sorted([*pools, pool]),
        "ladder": ladders.ladder(store, pool),
        "standings": standings(store, pool),
        "recent_matches": summaries(store, store.matches(pool=pool, limit=POOL_RECENT)),
    }


def intervals(store: Store, pool: str) -> dict[str, float]:
    """Half the 95% interval of each bot's rating in the pool, from the pool's last fit
    (the worker that records a rated match fits its pool, and the scheduler every pool that
    changed, every minute: arena/usecases/ratings.py); empty before the first."""
    kept = store.pool_fit(pool)
    return {} if kept is None else kept.halves


def standings(store: Store, pool: str, *, trends: bool = True) -> list[Standing]:
    """A pool's leaderboard, best first; with each bot's trend line when ``trends``: the
    ratings as the pool's last fit left them."""
    rows = store.leaderboard(pool)
    lines = store.rating_trends(pool, TREND_POINTS) if trends else {}
    out: list[Standing] = []
    for rank, s in enumerate(rows, 1):
        sd = s.rating.deviation
        half = None if sd is None else Z95 * sd
        trend = [round(v, 1) for v in lines.get(s.name, [])]
        if trend and trend[-1] != round(s.rating.elo, 1):  # moved since by others' games
            trend.append(round(s.rating.elo, 1))
        out.append(
            Standing(
                rank=rank,
                bot=s.name,
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
            )
        )
    return out


def bots(store: Store) -> dict[str, Any]:
    """Every registered bot and its ratings, each with half its interval (the pools' fits
    are read once per pool, not per bot)."""
    index = store.bot_index()
    halves = {
        p: intervals(store, p) for p in sorted({r["pool"] for b in index for r in b["ratings"]})
    }
    return {
        "bots": [
            {
                "name": b["name"],
                "owner": b["owner"],
                "active": b["active"],
                "created_at": b["created_at"].isoformat(),
                "ratings": [
                    {
                        "pool": r["pool"],
                        "elo": round(r["elo"], 1),
                        "games": r["games"],
                        **interval_half(halves[r["pool"]].get(b["name"])),
                    }
                    for r in b["ratings"]
                ],
            }
            for b in index
        ]
    }


class Spread(TypedDict):
    half: float | None  # half the rating's 95% interval, rounded
    wide: bool  # unsettled (arena.domain.rating.is_wide)


def interval_half(half: float | None) -> Spread:
    """Half a rating's 95% interval, rounded, and whether that is wide."""
    return {"half": None if half is None else round(half, 1), "wide": is_wide(half)}


def bot(store: Store, name: str, pool: str | None = None) -> dict[str, Any]:
    """A bot in one pool (by default its most played): its standing, rating history,
    latest matches and ladder matches, faults and results against each opponent."""
    from arena.read import ladders  # it builds on this module: imported once both are

    row = store.bot(name)
    if row is None:
        raise NotFound(f"no bot named {quoted(name)}")
    ratings = store.bot_ratings(name)
    pools = [r.pool for r in ratings]
    if pool is not None:
        pool = check_pool(pool)
    elif pools:
        pool = pools[0]
    out: dict[str, Any] = {
        "bot": name,
        "owner": row.owner,
        "active": row.active,
        "created_at": row.created_at.isoformat(),
        "pool": pool,
        "pools": pools,
        "standing": None,
        "history": [],
        "recent_matches": [],
        "faults": None,
        "head_to_head": [],
        "versions": [],
        "ladder_opt_in": None,
        "ladder_default": row.ladder is None,
        "ladder_matches": [],
        "version_of": BotRef.parse(name).bot if is_version(name) else None,
    }
    out["recent_matches"] = told(store, name, store.matches(bot=name, pool=pool, limit=RECENT))
    out["versions"] = versions(store, name, known=True)
    if row.token_hash is not None:  # a hosted version's own row: its bot opts in, not it
        hosted = any(v["status"] == "active" for v in out["versions"])
        out["ladder_opt_in"] = hosted if row.ladder is None else row.ladder
    if pool is None:
        return out
    out["ladder_matches"] = ladders.bot_ladder_matches(store, name, pool)
    ours = [s for s in standings(store, pool, trends=False) if s["bot"] == name]
    out["standing"] = ours[0] if ours else None
    out["history"] = rating_history(store, name, pool)
    out["faults"] = store.bot_faults(name, pool)
    out["head_to_head"] = [
        {
            "opponent": h["opponent"],
            "games": h["games"],
            "wins": h["wins"],
            "losses": h["games"] - h["wins"],
        }
        for h in store.head_to_head(name, pool)
    ]
    return out


class RatingChange(TypedDict):
    match_id: str
    before: float
    after: float
    at: str


def rating_history(store: Store, bot: str, pool: str) -> list[RatingChange]:
    """A bot's rating in a pool, one change per rated match, oldest first: the latest
    HISTORY_POINTS of them, but for those of sealed matches (listed once their twin is
    played: a change tells the match's result)."""
    changes = store.rating_history(bot, pool, HISTORY_POINTS)
    sealed = store.sealed([h["match_id"] for h in changes])
    return [
        RatingChange(
            match_id=h["match_id"],
            before=round(h["before"], 1),
            after=round(h["after"], 1),
            at=h["created_at"].isoformat(),
        )
        for h in changes
        if h["match_id"] not in sealed
    ]


def told(
    store: Store, name: str, matches: list[tuple[MatchRow, list[str]]]
) -> list[dict[str, Any]]:
    """Matches of a bot (rows and seats) as its page lists them, each from its side with
    the rating change it made (none shown for a sealed match)."""
    changes = store.rating_changes(name, [m.id for m, _ in matches])
    return [
        _from_side(s, name, None if s["sealed"] else changes.get(s["id"]))
        for s in summaries(store, matches)
    ]


def _from_side(
    summary: MatchSummary, name: str, change: tuple[float, float] | None
) -> dict[str, Any]:
    """A match summary told from one bot's side: its team, the result, its opponents."""
    match: dict[str, Any] = dict(summary)
    team = match["seats"].index(name) % 2
    match["team"] = team
    match["opponents"] = list(dict.fromkeys(match["seats"][1 - team :: 2]))
    match["partners"] = [b for b in dict.fromkeys(match["seats"][team::2]) if b != name]
    match["result"] = result_from(summary, team)
    match["elo_change"] = None if change is None else round(change[1] - change[0], 1)
    return match


def result_from(summary: MatchSummary, team: int) -> str | None:
    """How a finished match ended for ``team``: won, lost, or lost by forfeit (None while
    it is not finished, or sealed)."""
    if summary["status"] != "finished" or summary["sealed"]:
        return None
    if team in (summary["forfeit"] or ()):
        return "forfeit"
    return "won" if summary["winner"] == team else "lost"


def summary(row: MatchRow, names: list[str], *, sealed: bool = False) -> MatchSummary:
    """A match as lists show it; ``sealed``: its score and result withheld."""
    return MatchSummary(
        id=row.id,
        pool=row.pool,
        rules=row.rules,
        status=row.status,
        rated=row.rated,
        run_id=row.run_id,
        seats=names,
        teams=teams(names),
        score=None if sealed else row.score,
        winner=None if sealed else row.winner,
        forfeit=None if sealed else row.forfeit,
        twin=row.twin,
        sealed=sealed,
        created_at=row.created_at.isoformat(),
        finished_at=stamp(row.finished_at),
    )


def summaries(
    store: Store, rows: list[tuple[MatchRow, list[str]]], *, organizer: bool = False
) -> list[MatchSummary]:
    """Matches as lists show them, sealed ones withheld unless for the organizer."""
    sealed = set() if organizer else store.sealed([m.id for m, _ in rows if m.twin])
    return [summary(m, names, sealed=m.id in sealed) for m, names in rows]


def stamp(at: datetime | None) -> str | None:
    return None if at is None else at.isoformat()


def match(store: Store, match_id: str, hand: int = 0, *, organizer: bool) -> dict[str, Any]:
    """A match and the replay of one of its hands, step by step. Only the organizer sees
    cards in hand and the faces of covered cards."""
    found = store.match(match_id)
    if found is None:
        raise NotFound(f"no match {quoted(match_id)}")
    row, names = found
    (shown,) = summaries(store, [(row, names)], organizer=organizer)
    out: dict[str, Any] = {
        "match": shown,
        "organizer": organizer,
        "faults": None if shown["sealed"] else row.faults,
        "presence": None if shown["sealed"] or row.record is None else row.record.get("presence"),
        "sealed": SEALED.format(twin=row.twin) if shown["sealed"] else None,
        "hand": None,
        "hands": [],
        "steps": [],
        "error": None,
    }
    record = row.record
    if record is None or shown["sealed"]:
        return out
    if not 0 <= hand < len(record.get("hands", [])):
        raise NotFound(f"match {match_id} has no hand {hand}")
    try:
        played = replay_hand(record, hand, organizer=organizer)
    except (TrucoError, KeyError, TypeError, ValueError) as e:
        out["error"] = f"the record does not replay: {e}"
        return out
    out["hand"] = hand
    out["hands"] = played.hands
    out["steps"] = played.steps
    return out


def record(store: Store, match_id: str, *, organizer: bool) -> dict[str, Any]:
    """The match record: whole for the organizer, else with hidden cards as null."""
    found = store.match(match_id)
    if found is None:
        raise NotFound(f"no match {quoted(match_id)}")
    row, names = found
    if row.record is None:
        raise NotFound(f"match {match_id} has no record yet ({row.status})")
    if organizer:
        return row.record
    if summaries(store, [(row, names)])[0]["sealed"]:
        raise Sealed(f"match {match_id}: its record is " + SEALED.format(twin=row.twin))
    return public_record(row.record)


class VersionRating(TypedDict):
    pool: str
    elo: float
    games: int
    half: float | None  # half its 95% interval in the pool, as the leaderboard's
    wide: bool


class Version(TypedDict):
    bot: str
    number: int
    name: str  # its own bot row's: NAME@N
    hash: str
    runtime: str
    entry: str
    size: int
    unpacked: int
    files: int
    status: str
    reason: str
    created_at: str | None
    checked_at: str | None
    ratings: list[VersionRating]  # in each pool it has played, the most played first


def version(
    bot: str,
    row: BotVersionRow,
    ratings: list[dict[str, Any]] | None = None,
    halves: dict[str, dict[str, float]] | None = None,
) -> Version:
    """A version; with its ratings, each with half its interval from ``halves`` (the
    pools' fits, by pool)."""
    name = str(BotRef(bot, row.number))
    return Version(
        bot=bot,
        number=row.number,
        name=name,
        hash=row.hash,
        runtime=row.runtime,
        entry=row.entry,
        size=row.size,
        unpacked=row.unpacked,
        files=row.files,
        status=row.status,
        reason=row.reason,
        created_at=stamp(row.created_at),
        checked_at=stamp(row.checked_at),
        ratings=[
            VersionRating(
                pool=r["pool"], elo=round(r["elo"], 1), games=r["games"],
                **interval_half((halves or {}).get(r["pool"], {}).get(name)),
            )
            for r in ratings or []
        ],
    )  # fmt: skip


def versions(store: Store, bot: str, *, known: bool = False) -> list[Version]:
    """The bot's versions, the latest first (NotFound for no such bot, unless ``known``:
    the caller has just read it)."""
    if not known and store.bot(bot) is None:
        raise NotFound(f"no bot named {quoted(bot)}")
    ratings = store.version_ratings(bot)
    pools = {r["pool"] for rows in ratings.values() for r in rows}
    halves = {p: intervals(store, p) for p in sorted(pools)}
    return [version(bot, r, ratings.get(r.number), halves) for r in store.versions(bot)]
