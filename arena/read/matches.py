"""The read model of matches (see :mod:`arena.read`): summaries as lists show them (a
sealed match's result withheld), a match with the replay of a hand, its record, a page
of matches, and a bot's matches told from its side."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

from arena.domain.identity import is_version, owner_bot, seats_of
from arena.engine import TrucoError, public_record, quoted
from arena.errors import Invalid, NotFound, Sealed
from arena.read import stamp
from arena.read.replay import replay_hand, teams
from arena.store.rows import MatchRow
from arena.store.store import Store


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
    test_id: int | None  # the sequential test it is a match of (docs/testing.md), if any
    seats: list[str]
    teams: list[str]
    score: list[int] | None  # as played at the table
    winner: int | None  # the team credited with the match (None: nobody, or not yet)
    forfeit: list[int] | None  # the teams that lost it by forfeit (arena/domain/absence.py)
    twin: str | None  # its duplicate twin, dealt the same cards with the seats exchanged
    sealed: bool  # withheld until its twin is played (score, result and record)
    voided: str | None  # why its result counts no more (docs/events.md)
    replay_of: str | None  # the failed or voided match of its run it plays again
    created_at: str
    finished_at: str | None
    # The time lists show, and order, filter and page by (migration 0017): finished_at
    # once finished, else when it started, else created_at.
    listed_at: str


SEALED = "public once its twin, {twin}, is played: the two are dealt the same cards"


def summary(row: MatchRow, names: list[str], *, sealed: bool = False) -> MatchSummary:
    """A match as lists show it; ``sealed``: its score and result withheld."""
    return MatchSummary(
        id=row.id,
        pool=row.pool,
        rules=row.rules,
        status=row.status,
        rated=row.rated,
        run_id=row.run_id,
        test_id=row.sprt_id,
        seats=names,
        teams=teams(names),
        score=None if sealed else row.score,
        winner=None if sealed else row.winner,
        forfeit=None if sealed else row.forfeit,
        twin=row.twin,
        sealed=sealed,
        voided=row.voided,
        replay_of=row.replay_of,
        created_at=stamp(row.created_at),
        finished_at=stamp(row.finished_at),
        listed_at=stamp(row.listed_at),
    )


def summaries(
    store: Store, rows: list[tuple[MatchRow, list[str]]], *, organizer: bool = False
) -> list[MatchSummary]:
    """Matches as lists show them, sealed ones withheld unless for the organizer."""
    sealed = set() if organizer else store.sealed([m.id for m, _ in rows if m.twin])
    return [summary(m, names, sealed=m.id in sealed) for m, names in rows]


def told(
    store: Store, name: str, matches: list[tuple[MatchRow, list[str]]]
) -> list[dict[str, Any]]:
    """Matches of a bot (rows and seats) as its page lists them, each from its side (of a
    bot with hosted versions: the side of the version that played, ``played_as``) with the
    rating change it made (none shown for a sealed match)."""
    sides = [(m.id, played_as(name, seats)) for m, seats in matches]
    changes = store.rating_changes(sides)
    return [
        _from_side(s, side, None if s["sealed"] else changes.get(s["id"]))
        for s, (_, side) in zip(summaries(store, matches), sides, strict=True)
    ]


def played_as(name: str, seats: list[str]) -> str:
    """Who played for ``name`` among a match's seats: the bot itself or the first of its
    hosted versions seated (NAME@N); a version stands for itself alone."""
    return next(s for s in seats if s == name or owner_bot(s) == name)


def _from_side(
    summary: MatchSummary, name: str, change: tuple[float, float] | None
) -> dict[str, Any]:
    """A match summary told from the side of the bot seated as ``name``: who played
    (``played_as``), its team, the result, its opponents."""
    match: dict[str, Any] = dict(summary)
    team = match["seats"].index(name) % 2
    match["played_as"] = name
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


def match(
    store: Store, match_id: str, hand: int = 1, *, organizer: bool, owner: str | None = None
) -> dict[str, Any]:
    """A match and the replay of its hand number ``hand`` (from 1), step by step, each
    step with what the referee wrote of its action (``decision``). Only the organizer sees
    every card in hand and the faces of covered cards; the owner of bot ``owner`` (signed
    in with its token) sees those its seats saw (``seats``: where its bot played, its
    versions included), never an opponent's hidden card, and nothing of a sealed match."""
    found = store.match(match_id)
    if found is None:
        raise NotFound(f"no match {quoted(match_id)}")
    row, names = found
    (shown,) = summaries(store, [(row, names)], organizer=organizer)
    seats = () if organizer or shown["sealed"] else seats_of(owner, names)
    out: dict[str, Any] = {
        "match": shown,
        "organizer": organizer,
        "seats": list(seats),  # the viewer's own (a bot's owner signed in)
        "log": not shown["sealed"]
        and any(is_version(names[s]) for s in (range(len(names)) if organizer else seats)),
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
    if not 1 <= hand <= len(record.get("hands", [])):
        raise NotFound(f"match {match_id} has no hand {hand}")
    try:
        played = replay_hand(record, hand - 1, organizer=organizer, own=seats)
    except (TrucoError, KeyError, TypeError, ValueError) as e:
        out["error"] = f"the record does not replay: {e}"
        return out
    out["hand"] = hand
    out["hands"] = played.hands
    out["steps"] = [
        {**step, "decision": told}
        for step, told in zip(played.steps, played.decisions, strict=True)
    ]
    return out


class ProcessLog(TypedDict):
    version: str  # NAME@N
    status: int | None  # its exit status (128 + signal when it was killed)
    log: str  # what it printed, as the sandbox capped it


def process_logs(
    store: Store, match_id: str, *, organizer: bool, owner: str | None = None
) -> dict[str, Any]:
    """What the hosted versions' processes printed in a match: those of bot ``owner``
    for its owner, every one for the organizer; nothing of a sealed match but for the
    organizer (a bot's log may name the cards its twin deals)."""
    found = store.match(match_id)
    if found is None:
        raise NotFound(f"no match {quoted(match_id)}")
    row, names = found
    (shown,) = summaries(store, [found], organizer=organizer)
    if shown["sealed"]:
        raise Sealed(f"match {match_id}: its logs are " + SEALED.format(twin=row.twin))
    bots = dict.fromkeys(owner_bot(n) for n in names) if organizer else [owner]
    logs = [
        ProcessLog(version=x["version"], status=x["status"], log=x["log"])
        for bot in bots
        if bot
        for x in store.bot_logs(match_id, bot)
    ]
    if not logs:
        whose = "any hosted version's" if organizer else f"{quoted(owner)}'s"
        raise NotFound(
            f"no process log of {whose} in match {match_id}: only hosted versions' "
            "processes leave one, in their own matches"
        )
    return {"match": shown, "logs": logs}


def record(
    store: Store, match_id: str, *, organizer: bool, owner: str | None = None
) -> dict[str, Any]:
    """The match record: whole for the organizer, else with hidden cards as null (but
    those the seats of bot ``owner`` saw, for its owner)."""
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
    return public_record(row.record, seats_of(owner, names))


class Shown(TypedDict):
    """A match with its record as the caller may see it: none while the match is sealed
    or unplayed, its hidden cards as null but for the organizer (and those its own seats
    saw, for a bot's owner)."""

    match: MatchSummary
    record: dict[str, Any] | None


def shown(store: Store, match_id: str, *, organizer: bool, owner: str | None = None) -> Shown:
    found = store.match(match_id)
    if found is None:
        raise NotFound(f"no match {quoted(match_id)}")
    (summed,) = summaries(store, [found], organizer=organizer)
    return with_record(found[0], summed, organizer=organizer, owner=owner)


def with_record(
    row: MatchRow, summed: MatchSummary, *, organizer: bool, owner: str | None = None
) -> Shown:
    """A match summed up (:func:`summaries`, for the same caller) with its record as the
    caller may see it (the organizer whole; the owner of bot ``owner`` with what its
    seats saw): GetMatch's answer, and each line of an export of records."""
    record = None if summed["sealed"] else row.record
    if record is not None and not organizer:
        record = public_record(record, seats_of(owner, summed["seats"]))
    return Shown(match=summed, record=record)


class Page(TypedDict):
    matches: list[MatchSummary]  # the latest listed first
    next_page: str | None  # the token of the page after this one (None: this is the last)


Rows = list[tuple[MatchRow, list[str]]]  # matches and the bot at each seat, as stored
API_HINT = "send the next_page_token of the page before, or none for the first page"
WEB_HINT = "follow the link to older matches, or leave it out for the latest"


def page_after(
    token: str, field: str = "page_token", hint: str = API_HINT
) -> tuple[datetime, str] | None:
    """The (listed_at, id) a page token names, the last match of the previous page; None
    for the first page (no token). Invalid, naming ``field`` with ``hint``, when it is not
    one this server gave."""
    if not token:
        return None
    at, bar, match_id = token.partition("|")
    try:
        when = datetime.fromisoformat(at)
    except ValueError:
        when = None
    if not bar or when is None or when.utcoffset() is None:
        raise Invalid(f"{field}: not one this server gave; {hint}")
    return when, match_id


def rows_page(
    store: Store, size: int, after: tuple[datetime, str] | None, **where: Any
) -> tuple[Rows, str | None]:
    """A page of ``size`` stored matches (``where``: :meth:`Store.matches`'s filters), the
    latest listed first, after the match ``after`` names; and the token of the next page
    (None: there is none)."""
    rows = store.matches(limit=size + 1, after=after, **where)
    if len(rows) <= size or not size:
        return rows, None
    last = rows[size - 1][0]
    return rows[:size], f"{stamp(last.listed_at)}|{last.id}"


def page(
    store: Store,
    *,
    size: int,
    organizer: bool,
    after: tuple[datetime, str] | None = None,
    **where: Any,
) -> Page:
    """A page of ``size`` matches as lists show them (``where``: of a bot, in a pool, of a
    run, listed from since until until), the latest listed first, after the match
    ``after`` names (:func:`page_after`)."""
    rows, token = rows_page(store, size, after, **where)
    return Page(matches=summaries(store, rows, organizer=organizer), next_page=token)
