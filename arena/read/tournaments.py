"""The read model of tournaments and their runs (see :mod:`arena.read`): definitions as
stored, schedules, a run's progress, standings and crosstable."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypedDict

from arena.domain.formats import expected_total, table
from arena.domain.identity import is_version
from arena.domain.pools import pool_of
from arena.domain.schedule import next_firing
from arena.domain.standings import public
from arena.domain.tournament import DEALS, STORED_DEFAULTS, Definition
from arena.engine import Rules, RulesError, quoted
from arena.errors import Invalid, NotFound, parse_id
from arena.read import stamp
from arena.read.matches import WEB_HINT, page_after, rows_page, summaries
from arena.store.rows import RunRow, TournamentRow
from arena.store.store import Store

TOURNAMENT_RUNS = 10  # runs listed under each tournament
RUN_MATCHES = 100  # matches listed on a run's page
REFRESH_S = 5  # how often the page of a run being played reloads itself


class Progress(TypedDict):
    """How far a run has got."""

    total: int  # planned, and played again
    expected: int  # the whole run's, as far as can be told (a format in rounds pairs as it goes)
    finished: int
    failed: int
    running: int
    cancelled: int
    voided: int
    replays: int
    percent: float
    per_minute: float | None
    eta_s: int | None
    first_started: str | None


def _pool_of(definition: dict[str, Any]) -> str | None:
    """The rating pool a definition's matches are played in (its rules' pool)."""
    try:
        return pool_of(Rules.parse(definition.get("rules", "paulista")))
    except (RulesError, ValueError):
        return None


def _schedule(cron: str | None, now: datetime) -> dict[str, Any] | None:
    if not cron:
        return None
    try:
        upcoming: str | None = stamp(next_firing(cron, now))
    except ValueError:
        upcoming = None
    return {"cron": cron, "next": upcoming}


def definition(stored: dict[str, Any], *, organizer: bool) -> dict[str, Any]:
    """A stored tournament definition, every field of :class:`Definition` (a default for
    one it predates), as stored: not checked again, the rules may have changed since.
    Its seed for the organizer alone."""
    out = {k: stored.get(k, default) for k, default in STORED_DEFAULTS.items()}
    out["bots"] = list(out["bots"] or [])
    out["trusted"] = bool(out["trusted"])  # the organizer says no bot remembers a match
    return out if organizer else _without_seed(out)


def _without_seed(data: dict[str, Any]) -> dict[str, Any]:
    """A seed deals every card of a match, hidden ones too: only the organizer sees it."""
    return {k: v for k, v in data.items() if k != "seed"}


def _run_summary(run: RunRow, tournament: str, *, organizer: bool) -> dict[str, Any]:
    out = {
        "id": run.id,
        "tournament": tournament,
        "tournament_id": run.tournament_id,
        "status": run.status,
        "error": run.error,
        "seed": run.seed,
        "participants": run.participants,
        "total": run.total,
        "fired_for": stamp(run.fired_for),
        "created_at": stamp(run.created_at),
        "finished_at": stamp(run.finished_at),
        "deals": run.deals,
        "entries": {name: seat for name, (_, seat) in (run.entries or {}).items()},
        "deals_text": None if run.deals is None else DEALS[run.deals],
        "seeds": run.seeds or [],
    }
    return out if organizer else _without_seed(out)


def tournaments(
    store: Store, now: datetime | None = None, *, organizer: bool, runs: int = TOURNAMENT_RUNS
) -> dict[str, Any]:
    """Every tournament: its definition, its schedule with the next firing, and its latest
    ``runs`` runs."""
    now = now or datetime.now(UTC)
    out = []
    for t, extra in store.tournaments():
        recent = [
            _run_summary(r, name, organizer=organizer)
            for r, name in (store.runs(t.id, limit=runs) if runs else [])
        ]
        out.append(tournament(t, extra, recent, now, organizer=organizer))
    return {"tournaments": out}


def tournament_named(store: Store, name: str, now: datetime) -> dict[str, Any]:
    """One tournament, as the organizer sees it, with no runs listed."""
    for t, extra in store.tournaments():
        if t.name == name:
            return tournament(t, extra, [], now, organizer=True)
    raise NotFound(f"no tournament {quoted(name)}")


def tournament(
    t: TournamentRow,
    extra: Mapping[str, Any],
    recent: list[dict[str, Any]],
    now: datetime,
    *,
    organizer: bool,
) -> dict[str, Any]:
    """One tournament: ``extra`` counts its runs (``runs``, ``last_run``,
    ``last_status``), ``recent`` lists the latest."""
    return {
        "id": t.id,
        "name": t.name,
        "definition": definition(t.definition, organizer=organizer),
        "pool": _pool_of(t.definition),
        "schedule": _schedule(t.schedule, now),
        "created_at": stamp(t.created_at),
        "run_count": int(extra["runs"]),
        "last_run": extra["last_run"],
        "last_status": extra["last_status"],
        "runs": recent,
    }


def _definition_of(run: RunRow) -> Definition:
    """The run's definition as a value; one no longer valid (its rules changed since) is
    read as a round robin of its participants, which is how such a run was played."""
    try:
        return Definition.from_json(run.definition)
    except (Invalid, RulesError, TypeError):
        return Definition(run.definition.get("name", "run"), bots=("a", "b"))


def progress(store: Store, run: RunRow, now: datetime) -> Progress:
    """How many of the run's matches are done, failed and running; while it runs, its
    pace and when it should end."""
    counts = store.run_progress(run.id)
    total = run.total + int(counts["replays"])
    done = int(counts["finished"]) + int(counts["failed"]) + int(counts["cancelled"])
    started = counts["first_started"]
    whole = expected_total(_definition_of(run), run.participants, run.rounds, run.total)
    expected = whole + int(counts["replays"])
    out = Progress(
        total=total,
        expected=expected,
        finished=int(counts["finished"]),
        failed=int(counts["failed"]),
        running=int(counts["running"]),
        cancelled=int(counts["cancelled"]),
        voided=int(counts["voided"]),
        replays=int(counts["replays"]),
        percent=round(100 * done / expected, 1) if expected else 0.0,
        per_minute=None,
        eta_s=None,
        first_started=stamp(started),
    )
    if run.status == "running" and started is not None and done:
        elapsed = (now - started).total_seconds()
        if elapsed > 0:
            per_s = done / elapsed
            out["per_minute"] = round(60 * per_s, 2)
            out["eta_s"] = round((expected - done) / per_s)
    return out


def _crosstable(order: list[str], cross: dict[str, dict[str, list[int]]]) -> list[dict[str, Any]]:
    """One row per bot (in standings order): its wins and losses against each bot, with
    its share of the wins (None where the two never met)."""
    rows = []
    for a in order:
        cells: list[dict[str, Any] | None] = []
        for b in order:
            wl = cross.get(a, {}).get(b)
            if a == b or not wl or not sum(wl):
                cells.append(None)
            else:
                cells.append(
                    {"opponent": b, "wins": wl[0], "losses": wl[1], "share": wl[0] / sum(wl)}
                )
        rows.append({"bot": a, "cells": cells})
    return rows


class RunState(TypedDict):
    """A run as the Arena API's GetRun and the web's run page both show it."""

    run: dict[str, Any]  # its summary: id, tournament, status, seed (organizer's), ...
    pool: str | None
    definition: dict[str, Any]
    progress: Progress
    live: bool  # the standings are the run's so far, and may change
    standings: list[dict[str, Any]]  # the table's lines, best first
    crosstable: dict[str, dict[str, list[int]]]  # bot -> opponent -> [wins, losses]
    # a knockout's bracket or a Swiss's pairings, round by round; a groups format's groups
    rounds: list[dict[str, Any]]
    groups: list[dict[str, Any]]
    tiebreaks: list[str]  # what orders the table after its first key, declared or the format's
    waiting: str | None  # what it waits for while nothing of it plays, in words
    notes: list[dict[str, Any]]  # its matches voided or played again


ACTIVE = ("starting", "running", "paused")  # a run whose matches are still to be played


def waiting(run: RunRow, progress: Progress, away: Sequence[str] = ()) -> str | None:
    """What a run waits for, in words, while nothing of it plays (None: it plays, or is
    over); ``away``: its bots that dial in and are not connected to any node."""
    left = progress["total"] - progress["finished"] - progress["failed"] - progress["cancelled"]
    if run.status == "starting":
        return "its start is queued: a worker plans it (is `arena worker` running?)"
    if run.status == "paused":
        return f"paused by the organizer: {left} matches wait until it is resumed"
    if run.status == "cancelled" and run.standings is None:
        return f"cancelled: {progress['running']} matches still playing end and are recorded"
    if run.status == "running" and progress["running"] == 0 and left:
        if away:
            return f"{left} matches to play, none playing: {', '.join(away)} not connected"
        return f"{left} matches to play, none playing: waiting for a free worker"
    return None


def _away(store: Store, run: RunRow, done: Progress) -> list[str]:
    """The run's bots that dial in and are not connected to a live node, asked only while
    it waits (a hosted version's process is started for its match)."""
    if run.status != "running" or done["running"]:
        return []
    dial_in = [p for p in run.participants if not is_version(p)]
    connected = store.presence(dial_in) if dial_in else {}
    return [p for p in dial_in if p not in connected]


def run_state(store: Store, run_id: int, now: datetime, *, organizer: bool) -> RunState:
    """A run, its progress and its standings. The standings are live while the run is
    starting or running: the table of its matches finished so far, leaving out, for
    anyone but the organizer, those whose duplicate twin is not played yet. A finished
    run's are the table written as it finished, and not live; a run that failed to start
    played nothing, and has none."""
    found = store.run(run_id)
    if found is None:
        raise NotFound(f"no tournament run {run_id}")
    row, name = found
    done = progress(store, row, now)
    live = row.standings is None and row.status in (*ACTIVE, "cancelled")
    rules = _definition_of(row)
    if live:
        games = store.run_games(row.id)
        shown = table(rules, row.participants, row.rounds, games if organizer else public(games))
    else:
        shown = row.standings or {"table": [], "crosstable": {}}
    return RunState(
        run=_run_summary(row, name, organizer=organizer),
        pool=_pool_of(row.definition),
        definition=definition(row.definition, organizer=organizer),
        progress=done,
        live=live,
        standings=shown["table"],
        crosstable=shown["crosstable"],
        rounds=shown.get("rounds", []),
        groups=shown.get("groups", []),
        tiebreaks=list(rules.order),
        waiting=waiting(row, done, _away(store, row, done)),
        notes=store.run_notes(row.id),
    )


def run(
    store: Store, run_id: str, now: datetime | None = None, *, organizer: bool, page: str = ""
) -> dict[str, Any]:
    """A tournament run's page: :func:`run_state`, with each bot's faults counted, the
    crosstable in standings order, the schedule and a page of the run's matches, the
    latest listed first (``page``: the token of the one asked for, empty for the latest;
    ``next_page`` the next one's)."""
    now = now or datetime.now(UTC)
    after = page_after(page, "page", WEB_HINT)
    number = parse_id(run_id)
    if number is None:
        raise NotFound(f"no tournament run {quoted(run_id)}")
    state = run_state(store, number, now, organizer=organizer)
    standings_rows = [
        {**r, "faults_total": sum(r.get("faults", {}).values())} for r in state["standings"]
    ]
    order = [r["bot"] for r in standings_rows]
    matches, next_page = rows_page(store, RUN_MATCHES, after, run=number)
    return {
        "run": state["run"],
        "pool": state["pool"],
        "definition": state["definition"],
        "schedule": _schedule(state["definition"].get("schedule"), now),
        "progress": state["progress"],
        "live": state["live"],
        "refresh": REFRESH_S if state["run"]["status"] in ACTIVE else None,
        "standings": standings_rows,
        "crosstable": _crosstable(order, state["crosstable"]),
        "rounds": state["rounds"],
        "groups": [
            {**g, "standings": [r for r in standings_rows if r.get("group") == g["name"]]}
            for g in state["groups"]
        ],
        "tiebreaks": state["tiebreaks"],
        "matches": summaries(store, matches, organizer=organizer),
        "next_page": next_page,
        "waiting": state["waiting"],
        "notes": state["notes"],
    }
