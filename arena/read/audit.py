"""The audit (docs/events.md, "The audit"): from the database alone, whether every
finished match was recorded once, every rating change applied once, no match lost and
none stuck; with the tally of what was looked at. One snapshot (a read-only REPEATABLE
READ transaction: arena/store/audit.py), judged by arena/domain/audit.py. Nothing is
written, nothing recounted in place."""

from __future__ import annotations

from datetime import timedelta
from typing import TypedDict

from arena.domain.audit import (
    COUNTED,
    STUCK_S,
    UNFITTED_S,
    Finding,
    check_events,
    check_fit,
    check_runs,
    check_standings,
    check_stuck,
    compare_counts,
    lineups_of,
)
from arena.domain.formats import table as run_table
from arena.domain.tournament import Definition
from arena.errors import NotFound
from arena.read import stamp
from arena.store.audit import Scope
from arena.store.store import Store


class FindingLine(TypedDict):
    check: str  # counted, rated, lost, stuck
    where: str
    what: str


class AuditReport(TypedDict):
    """What an audit found, and what it looked at."""

    run: int | None  # the run audited alone, or None: the whole arena
    at: str | None  # the snapshot's time
    clean: bool
    matches: dict[str, int]  # by status
    runs: dict[str, int]  # by status
    voided: int
    replays: int
    ratings: int  # rating rows checked
    events: int  # rating events checked
    # rows of each kept count compared with the history; fitted_pools: the pools whose
    # ratings were compared with a fit of their history (those fitted since their last match)
    checked: dict[str, int]
    findings: list[FindingLine]


def audit(store: Store, run_id: int | None = None) -> AuditReport:
    """Audit the arena, or one run: its matches, its total, its standings, and the kept
    counts of its pools."""
    findings: list[Finding] = []
    with store.snapshot() as conn:
        scope = Scope()
        if run_id is not None:
            run, games = store.audit_run(conn, run_id)
            if run is None:
                raise NotFound(f"no tournament run {run_id}")
            scope = Scope(run_id, tuple(store.audit_run_pools(conn, run_id)))
            if run["standings"] is not None:
                definition = Definition.from_json(run["definition"])
                recomputed = run_table(definition, run["participants"], run["rounds"], games)
                findings += check_standings(run_id, run["standings"], recomputed)
        tally = store.audit_tally(conn, scope)
        at = tally["at"]
        checked: dict[str, int] = {}
        recounted = {}
        for table in COUNTED:
            kept, recounted[table] = store.audit_counts(conn, table, scope)
            checked[table] = len(kept.keys() | recounted[table].keys())
            findings += compare_counts(table, kept, recounted[table])
        fitted = store.audit_elos(conn, scope)
        checked["fitted_pools"] = len(fitted)
        for pool, (elos, anchors) in sorted(fitted.items()):
            lineups = lineups_of(recounted["lineup_stats"], pool)
            findings += check_fit(pool, lineups, elos, anchors)
        unfitted_before = at - timedelta(seconds=UNFITTED_S)
        findings += check_events(
            store.audit_rows(conn, "odd_events", scope),
            store.audit_rows(conn, "missing_events", scope),
            store.audit_rows(conn, "unfitted", scope, before=unfitted_before),
            at,
        )
        stuck = store.audit_rows(conn, "stuck", scope, before=at - timedelta(seconds=STUCK_S))
        findings += check_stuck(stuck, at)
        findings += check_runs(
            store.audit_rows(conn, "runs", scope), store.audit_rows(conn, "strays", scope)
        )
    return AuditReport(
        run=run_id,
        at=stamp(at),
        clean=not findings,
        matches={k: int(v) for k, v in tally["matches"].items()},
        runs={k: int(v) for k, v in tally["runs"].items()},
        voided=int(tally["voided"]),
        replays=int(tally["replays"]),
        ratings=int(tally["ratings"]),
        events=int(tally["events"]),
        checked=checked,
        findings=[FindingLine(check=f.check, where=f.where, what=f.what) for f in findings],
    )
