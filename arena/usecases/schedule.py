"""The scheduler's tick (``arena beat`` sends it every minute): the runs whose cron
firing is due are made, and what was left behind is picked up again. The tick decides
and writes; the worker sends what it returns (:class:`Due`) to be played."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from arena.domain.schedule import STALL_S as STALL_S  # the domain's, read here by workers
from arena.domain.schedule import due_firing
from arena.store.store import Store
from arena.usecases import runs, sprts
from arena.usecases.ratings import refit

log = logging.getLogger(__name__)


@dataclass
class Due:
    """What a tick leaves to send: runs to start (planned, or planned again), runs to
    finish, and matches to play (left behind, or a test's next pairs)."""

    started: list[int] = field(default_factory=list)  # runs made by this tick
    start: list[int] = field(default_factory=list)
    finish: list[int] = field(default_factory=list)
    matches: list[str] = field(default_factory=list)


def tick(store: Store, now: datetime, stall_s: float = STALL_S) -> Due:
    """Make the runs due at ``now`` (another scheduler's firing is never made twice),
    take up runs and matches left without progress for ``stall_s`` (a copy of a match
    still queued finds it recorded; one playing is joined), step every running test (a
    step lost with its worker is taken again), and refit the pools that changed, so that
    pages seldom have to."""
    due = Due()
    for t in store.scheduled_tournaments():
        firing = due_firing(t.schedule, t.fired_at, now) if t.schedule else None
        if firing is None:
            continue
        run = runs.create_run(store, t, fired_for=firing)
        if run is not None:  # None: another scheduler started this firing
            log.info("tournament %s: run %d for %s", t.name, run.id, firing.isoformat())
            due.started.append(run.id)
    due.start += due.started
    for run_id, status, done in store.stalled_runs(now, stall_s):
        if run_id in due.started:  # made by this tick (at a ``now`` ahead of the clock)
            continue
        if status == "starting":
            log.warning("run %d was left starting; planning it", run_id)
            due.start.append(run_id)
        elif done:
            due.finish.append(run_id)
        else:
            log.warning("run %d made no progress; sending its matches in flight again", run_id)
            with store.unit() as conn:
                due.matches += store.run_in_flight(conn, run_id)
            due.matches += runs.next_matches(store, run_id)
    stalled = store.stalled_matches(now, stall_s)
    if stalled:
        log.warning("%d requested matches were left behind; sending them again", len(stalled))
        due.matches += stalled
    for test_id in store.running_sprts():
        due.matches += sprts.step_sprt(store, test_id)
    for pool in store.pools():
        refit(store, pool)
    return due
