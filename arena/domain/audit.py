"""The audit's judgement (docs/events.md, "The audit"): given what the store keeps and
what its history gives when counted again, what is wrong and where, each finding one line
an organizer can act on. Pure: the reads are arena/store/audit.py's, put together by
arena/read/audit.py.

The checks, by kind:

- ``counted``: every kept count (:data:`COUNTED`) equals its recount from the finished
  matches: a finished match counted twice, or not at all, shows as a difference;
- ``rated``: at most one rating event per bot and match, and only for a bot seated in a
  finished rated match of the same pool that a fit has counted (or one voided since: its
  events stay, the history of the ratings as they were); every bot of a fitted
  match that counts for the ratings has its event; no rated match recorded more than
  :data:`UNFITTED_S` ago is left unfitted; a pool whose kept fit is of its current
  version has the ratings a fit of its recounted history gives (within :data:`ELO_EPS`);
- ``lost``: every run's planned total is the number of its matches that are not replays;
  a finished run has no match still running, and standings (and, when one run is
  audited, the standings its results give); no match belongs to a run that does not
  exist or has no seat;
- ``stuck``: no match running for longer than :data:`STUCK_S`, and none scheduled in a
  run that is over (finished, cancelled or failed).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from arena.domain.poolfit import Lineup, fit
from arena.domain.schedule import STALL_S

# Each kept count the audit recounts, with the columns that key its rows (the rest are
# its counts): bot_pool_stats and pair_stats (migration 0008), lineup_stats and the
# ratings' games, wins and losses (migration 0015).
COUNTED: dict[str, tuple[str, ...]] = {
    "bot_pool_stats": ("pool", "bot"),
    "pair_stats": ("pool", "bot", "opponent"),
    "lineup_stats": ("pool", "team_a", "team_b"),
    "ratings": ("pool", "bot"),
}
STUCK_S = STALL_S  # a match running longer than this is stuck (the scheduler takes it up)
UNFITTED_S = 300  # five of the scheduler's minutes, each of which fits every pool
ELO_EPS = 0.01  # a kept rating this far from a fresh fit of the same results is wrong
OVER = ("finished", "cancelled", "failed")  # a run in these plays nothing more

Kept = dict[tuple[str, ...], dict[str, int]]
"""A kept count's rows: the values of its key columns -> its counts by column."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing wrong: its kind of check, where (a pool and its bots, a match, a run) and
    what."""

    check: str
    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.check}: {self.where}: {self.what}"


def where_of(table: str, key: Sequence[str]) -> str:
    """Where a row of a kept count is, in words."""
    pool, *rest = key
    if table == "pair_stats":
        return f"{table} pool {pool}, {rest[0]} against {rest[1]}"
    if table == "lineup_stats":
        return f"{table} pool {pool}, team {rest[0]} against team {rest[1]}"
    return f"{table} pool {pool}, bot {rest[0]}"


def compare_counts(table: str, kept: Kept, recounted: Kept) -> list[Finding]:
    """Each row of ``table`` whose counts differ from the history's (a missing row counts
    zero), its first count saying whether matches were counted twice or lost."""
    found = []
    for key in sorted(kept.keys() | recounted.keys()):
        mine, history = kept.get(key, {}), recounted.get(key, {})
        columns = list(dict.fromkeys([*mine, *history]))
        off = [(c, mine.get(c, 0), history.get(c, 0)) for c in columns]
        off = [(c, a, b) for c, a, b in off if a != b]
        if not off:
            continue
        what = "; ".join(f"{c} {a} kept, {b} in the history" for c, a, b in off)
        a, b = mine.get(columns[0], 0), history.get(columns[0], 0)
        if a > b:
            what += (
                f" ({a - b} more than the history gives: a match counted twice, or still "
                "counted though voided or gone)"
            )
        elif a < b:
            what += f" ({b - a} fewer than the history gives: a finished match not counted)"
        found.append(Finding("counted", where_of(table, key), what))
    return found


def check_events(
    odd: Iterable[Mapping[str, Any]],
    missing: Iterable[Mapping[str, Any]],
    unfitted: Iterable[Mapping[str, Any]],
    at: datetime,
) -> list[Finding]:
    """Rating events that should not be (``odd``: each with its match's status, pool,
    whether it is rated and fitted and the bot seated, and how many events the bot has
    for it), events missing (``missing``: a bot of a fitted match), and rated matches
    recorded before ``at`` minus :data:`UNFITTED_S` no fit has counted (``unfitted``)."""
    found: dict[tuple[str, str], Finding] = {}
    for e in odd:
        where = f"match {e['match_id']}, bot {e['bot']}"
        if e["times"] > 1:
            what = f"{e['times']} rating events, not one: its rating changed more than once"
        elif e["status"] is None:
            what = "a rating event of a match that does not exist"
        elif e["status"] != "finished":
            what = f"a rating event of a match {e['status']}, not finished"
        elif not e["rated"] and not e["voided"]:
            what = "a rating event of an unrated match"
        elif e["pool"] != e["match_pool"]:
            what = f"a rating event in pool {e['pool']} of a match of pool {e['match_pool']}"
        elif not e["seated"]:
            what = "a rating event of a bot not seated in the match"
        else:
            what = "a rating event of a match no fit has counted (not marked fitted)"
        found.setdefault((where, what), Finding("rated", where, what))
    for m in missing:
        where = f"match {m['match_id']}, bot {m['bot']}"
        what = f"counted by a fit of pool {m['pool']}, but no rating event of this bot"
        found.setdefault((where, what), Finding("rated", where, what))
    out = list(found.values())
    for m in unfitted:
        age = round((at - m["finished_at"]).total_seconds())
        out.append(
            Finding(
                "rated",
                f"match {m['match_id']}",
                f"recorded {age} s ago and no fit of pool {m['pool']} has counted it "
                f"(more than {UNFITTED_S} s: does `arena beat` run?)",
            )
        )
    return out


def check_stuck(running: Iterable[Mapping[str, Any]], at: datetime) -> list[Finding]:
    """Matches running since before ``at`` minus :data:`STUCK_S`."""
    out = []
    for m in running:
        of_run = "" if m["run_id"] is None else f" of run {m['run_id']}"
        age = round((at - m["since"]).total_seconds())
        out.append(
            Finding(
                "stuck",
                f"match {m['match_id']}{of_run}",
                f"running for {age} s (more than {STUCK_S} s): its worker or referee is gone",
            )
        )
    return out


def check_runs(
    runs: Iterable[Mapping[str, Any]], strays: Iterable[Mapping[str, Any]]
) -> list[Finding]:
    """Each run's total against its matches that are not replays (``planned``), what is
    left to play in a run that is over, standings missing from a finished one; matches of
    no run that exists, or with no seat (``strays``)."""
    out = []
    for r in runs:
        where, status = f"run {r['id']} ({r['tournament']})", r["status"]
        total, planned = r["total"], r["planned"]
        if planned < total:
            what = f"{_matches(total)} planned, {planned} found: {total - planned} lost"
            out.append(Finding("lost", where, what))
        elif planned > total:
            what = f"{_matches(planned)} found, {total} planned: {planned - total} too many"
            out.append(Finding("lost", where, what))
        if status in OVER and r["scheduled"]:
            what = f"{status}, with {_matches(r['scheduled'])} still scheduled: never played"
            out.append(Finding("stuck", where, what))
        if status == "finished" and r["running"]:
            what = f"finished, with {_matches(r['running'])} still running: not in its standings"
            out.append(Finding("lost", where, what))
        if status == "finished" and not r["has_standings"]:
            out.append(Finding("lost", where, "finished without standings"))
    for m in strays:
        where = f"match {m['match_id']}"
        if m["no_run"]:
            out.append(Finding("lost", where, f"of run {m['run_id']}, which does not exist"))
        if m["no_seats"]:
            out.append(Finding("lost", where, "has no seats"))
    return out


def _matches(n: int) -> str:
    return f"{n} match" if n == 1 else f"{n} matches"


def check_standings(
    run_id: int, kept: Mapping[str, Any], recomputed: Mapping[str, Any]
) -> list[Finding]:
    """A run's kept standings against those its results give now (both as JSON keeps
    them): each bot whose line differs, and the crosstable."""
    again = json.loads(json.dumps(recomputed))
    where = f"run {run_id} standings"
    mine = {row["bot"]: row for row in kept.get("table", [])}
    theirs = {row["bot"]: row for row in again.get("table", [])}
    out = []
    for bot in sorted(mine.keys() | theirs.keys()):
        a, b = mine.get(bot), theirs.get(bot)
        if a is None or b is None:
            what = "not in the kept table" if a is None else "in the kept table, not in its results"
            out.append(Finding("lost", f"{where}, bot {bot}", what))
            continue
        # the fields both have: a table kept before a field was added lacks it
        off = [f"{k} {a[k]} kept, {b[k]} from its results"
               for k in dict.fromkeys([*a, *b]) if k in a and k in b and a[k] != b[k]]  # fmt: skip
        if off:
            out.append(Finding("lost", f"{where}, bot {bot}", "; ".join(off)))
    if not out and kept.get("crosstable") != again.get("crosstable"):
        out.append(Finding("lost", where, "the crosstable differs from its results'"))
    return out


def lineups_of(recounted: Kept, pool: str) -> list[Lineup]:
    """The pool's lineups, as recounted from its history (lineup_stats' rows), for a fit."""
    return [
        Lineup(tuple(a.split("+")), tuple(b.split("+")), c["games"], c["wins"],
               (c["lost_both"], c["split"], c["won_both"]))
        for (p, a, b), c in sorted(recounted.items()) if p == pool
    ]  # fmt: skip


def check_fit(
    pool: str,
    lineups: Sequence[Lineup],
    kept: Mapping[str, float],
    anchors: Collection[str] | None = None,
) -> list[Finding]:
    """The pool's kept ratings (bot -> Elo) against a fit of ``lineups`` (its history,
    recounted) on the kept fit's ``anchors``: each bot the fit rates whose kept rating is
    more than :data:`ELO_EPS` away from it."""
    out = []
    for name, estimate in sorted(fit(lineups, anchors=anchors).ratings.items()):
        mine = kept.get(name)
        if mine is None or abs(mine - estimate.elo) > ELO_EPS:
            shown = "none" if mine is None else f"{mine:.2f}"
            what = f"rating {shown} kept, {estimate.elo:.2f} by a fit of the pool's history"
            out.append(Finding("rated", f"ratings pool {pool}, bot {name}", what))
    return out
