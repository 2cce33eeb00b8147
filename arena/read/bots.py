"""The read model of bots (see :mod:`arena.read`): every bot with its ratings, a bot's
page, its hosted versions."""

from __future__ import annotations

from typing import Any, TypedDict

from arena.domain.identity import BotRef, is_version
from arena.engine import quoted
from arena.errors import NotFound
from arena.read import check_pool, ladders, sprts, stamp
from arena.read.matches import WEB_HINT, page_after, rows_page, told
from arena.read.ratings import interval_half, intervals, rating_history, standings
from arena.store.rows import BotRow, BotVersionRow
from arena.store.store import Store

RECENT = 20  # matches listed on a bot's page


def bots(store: Store) -> dict[str, Any]:
    """Every registered bot, once (a hosted bot with the version it plays as, its active
    one, and the number of its versions: its page lists them), with the ratings of the row
    it plays as, each with half its interval (the pools' fits are read once per pool, not
    per bot)."""
    index = store.bot_index()
    halves = {
        p: intervals(store, p) for p in sorted({r["pool"] for b in index for r in b["ratings"]})
    }
    return {
        "bots": [
            {
                "name": b["name"],
                "played_as": b["played_as"],
                "versions": b["versions"],
                "owner": b["owner"],
                "active": b["active"],
                "state": b["state"],
                "state_reason": b["state_reason"],
                "created_at": stamp(b["created_at"]),
                "ratings": [
                    {
                        "pool": r["pool"],
                        "elo": round(r["elo"], 1),
                        "games": r["games"],
                        **interval_half(halves[r["pool"]].get(b["played_as"])),
                    }
                    for r in b["ratings"]
                ],
            }
            for b in index
        ]
    }


def bot(store: Store, name: str, pool: str | None = None, page: str = "") -> dict[str, Any]:
    """A bot in one pool (by default its most played): its standing, rating history,
    latest matches (a page of them: ``page`` is the token of the one asked for, empty for
    the latest; ``next_page`` the next one's), tests, ladder matches, faults and results
    against each opponent. A hosted bot's standing is its active version's, and its
    history, matches and tests are its versions' too, each saying which version played;
    a version's page (NAME@N) is that version's alone."""
    after = page_after(page, "page", WEB_HINT)
    row = store.bot(name)
    if row is None:
        raise NotFound(f"no bot named {quoted(name)}")
    out_versions = versions(store, name, known=True)
    ratings = store.bot_ratings(name)
    games: dict[str, int] = {}  # in each pool, of the bot and its versions
    for p, n in [(r.pool, r.games) for r in ratings] + [
        (r["pool"], r["games"]) for v in out_versions for r in v["ratings"]
    ]:
        games[p] = games.get(p, 0) + n
    pools = sorted(games, key=lambda p: (-games[p], p))  # the most played first
    if pool is not None:
        pool = check_pool(pool)
    elif pools:
        pool = pools[0]
    out: dict[str, Any] = {
        "bot": name,
        "owner": row.owner,
        "active": row.active,
        "created_at": stamp(row.created_at),
        "pool": pool,
        "pools": pools,
        "standing": None,
        "history": [],
        "recent_matches": [],
        "next_page": None,
        "faults": None,
        "head_to_head": [],
        "versions": out_versions,
        "tests": sprts.bot_tests(store, name),
        "ladder_opt_in": None,  # whether the pool's ladder may pair it
        "ladder_default": row.ladder is None,  # by its kind's default, not its own choice
        "ladder_pools": {},  # its choices for single pools' ladders
        "ladder_matches": [],
        "version_of": BotRef.parse(name).bot if is_version(name) else None,
        "humans": row.humans,  # its owner lets people challenge it (docs/web.md)
    }
    recent, out["next_page"] = rows_page(store, RECENT, after, bot=name, pool=pool)
    out["recent_matches"] = told(store, name, recent)
    if row.token_hash is not None:  # a hosted version's own row: its bot opts in, not it
        hosted = any(v["status"] == "active" for v in out["versions"])
        chosen = store.ladder_choices(name).get(name, (hosted, {}))[1]
        mine = chosen.get(pool) if pool is not None else None
        out["ladder_pools"] = chosen
        out["ladder_default"] = mine is None and row.ladder is None
        out["ladder_opt_in"] = next(c for c in (mine, row.ladder, hosted) if c is not None)
    if pool is None:
        return out
    out["ladder_matches"] = ladders.bot_ladder_matches(store, name, pool)
    ours = [s for s in standings(store, pool, trends=False) if name in (s["bot"], s["played_as"])]
    out["standing"] = ours[0] if ours else None
    out["history"] = rating_history(store, name, pool)
    rated = ours[0]["played_as"] if ours else name  # faults and opponents: of the row rated
    out["faults"] = store.bot_faults(rated, pool)
    out["head_to_head"] = [
        {
            "opponent": h["opponent"],
            "games": h["games"],
            "wins": h["wins"],
            "losses": h["games"] - h["wins"],
        }
        for h in store.head_to_head(rated, pool)
    ]
    return out


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
    candidate: bool  # submitted as a candidate: a clean check leaves it one, not active


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
        candidate=row.candidate,
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


class BotLine(TypedDict):
    """A bot as the Arena API lists it (who is connected is the referee's to add)."""

    name: str
    owner: str
    active: bool
    created_at: str
    ladder: bool | None  # opted in to ladders; None: the default (hosted in, dial-in out)
    state: str  # active, withdrawn, disqualified or retired
    state_reason: str
    hosted: bool  # it has an active hosted version: the arena starts it for its matches
    ladder_pools: dict[str, bool]  # its choices for single pools' ladders, over ``ladder``
    humans: bool  # people may challenge it from the web pages (docs/web.md)


def bot_line(row: BotRow, choices: tuple[bool, dict[str, bool]] = (False, {})) -> BotLine:
    """A bot's row as listed, with ``choices`` (:meth:`Store.ladder_choices`; a new bot's
    by default): also what a write that changed it answers with."""
    hosted, pools = choices
    return BotLine(
        name=row.name,
        owner=row.owner,
        active=row.active,
        created_at=stamp(row.created_at),
        ladder=row.ladder,
        state=row.state,
        state_reason=row.state_reason,
        hosted=hosted,
        ladder_pools=pools,
        humans=row.humans,
    )


def line(store: Store, row: BotRow) -> BotLine:
    """A bot's row as listed, read now: what a write that changed it answers with."""
    return bot_line(row, store.ladder_choices(row.name).get(row.name, (False, {})))


def roster(store: Store) -> list[BotLine]:
    """Every registered bot, by name, once: its hosted versions are not bots of their own
    here (``arena bot versions`` and ListVersions list them)."""
    choices = store.ladder_choices()
    return [
        bot_line(r, choices.get(r.name, (False, {})))
        for r in store.bots()
        if not is_version(r.name)
    ]
