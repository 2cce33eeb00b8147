"""A tournament's runs: made (their entries frozen), planned once, handed to the workers a
window at a time, paused, resumed and cancelled, a match of one voided or played again,
and their final table written. Who plays whom, in which seats and with which deals is the
domain's (:func:`arena.domain.tournament.plan_run`); the store reads and writes the rows.

A run keeps at most ``window`` matches in flight (sent to the broker and not done): each
recorded match sends the next. So runs and everything else the workers play share the
broker's queue in turns, a pause stops a run within the matches in flight, and a cancel
leaves little to drain (docs/events.md).
"""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta

from arena.domain.actors import SCHEDULER
from arena.domain.matches import replay_match_id
from arena.domain.pools import pool_of
from arena.domain.tournament import Definition, deal_seed, standings
from arena.domain.tournament import plan_run as plan_matches
from arena.engine import Rules, quoted
from arena.errors import Invalid, NotFound, NotReady
from arena.store.base import Unit
from arena.store.rows import MatchRow, RunRow, TournamentRow
from arena.store.store import Store
from arena.usecases.ratings import refit

log = logging.getLogger(__name__)

WINDOW = 32
"""A run's matches in flight at most, by default (ARENA_RUN_WINDOW)."""
OPEN = ("starting", "running", "paused")


def create_run(
    store: Store,
    tournament: TournamentRow,
    fired_for: datetime | None = None,
    *,
    actor: str = SCHEDULER,
) -> RunRow | None:
    """A new run of the tournament as it is defined now, dealt from the definition's seed
    or a fresh one, its entries frozen: each bot active now and who plays for it (its
    hosted version active now, or when entries closed). For a scheduled firing, None when
    that firing already has its run."""
    definition = Definition.from_json(tournament.definition)
    seed = definition.seed if definition.seed is not None else secrets.randbits(62)
    with store.unit() as conn:
        run = store.insert_run(conn, tournament, seed, fired_for)
        if run is None:
            return None
        closed = None
        if definition.entries_close_s is not None:
            closed = (fired_for or run.created_at) - timedelta(seconds=definition.entries_close_s)
        store.set_entries(conn, run.id, store.run_bots(conn, definition, closed))
        detail = {"tournament": tournament.name}
        if fired_for is not None:
            detail["fired_for"] = fired_for.isoformat()
        store.log_action(conn, actor, "start", f"run {run.id}", detail)
    return run


def plan_run(store: Store, run_id: int, window: int = WINDOW) -> list[str]:
    """Make the run's matches (once: the run row is locked while planning) from its frozen
    entries still active, and send its first window (:func:`next_matches`). Planned
    before (a retried start), the matches it sent and that have not started are sent again
    with it (a copy of a task is harmless; a lost one would hold the run up). A run that
    cannot be played (too few bots, unfair deals) fails, saying why, and has none."""
    key = store.deal_key()  # read now: not on a second connection while holding the lock
    with store.unit() as conn:
        run = store.lock_run(conn, run_id)
        if run.status == "starting":
            definition = Definition.from_json(run.definition)
            active = store.run_bots(conn, definition)
            frozen = (
                active if run.entries is None else {n: (e[0], e[1]) for n, e in run.entries.items()}
            )
            playing = {name: entry for name, entry in frozen.items() if name in active}
            gone = sorted(set(definition.bots) - set(playing))
            try:
                plan = plan_matches(run_id, definition, playing, run.seed, key)
            except Invalid as e:
                why = f"{e} ({', '.join(map(quoted, gone))} not active)" if gone else str(e)
                store.fail_run(conn, run_id, why)
                log.warning("run %d cannot start: %s", run_id, why)
                return []
            if gone:
                log.warning("run %d: %s not active; playing without", run_id, gone)
            store.insert_matches(conn, plan.matches)
            store.planned_run(conn, run_id, plan)
            return store.send_run_matches(conn, run_id, window)
        if run.status != "running":
            return []
        sent = store.run_in_flight(conn, run_id, started=False)
        return sorted({*sent, *store.send_run_matches(conn, run_id, window)})


def next_matches(store: Store, run_id: int, window: int = WINDOW) -> list[str]:
    """The run's next matches to send, marked sent, keeping at most ``window`` in flight;
    none unless it is running (paused, cancelled, over)."""
    with store.unit() as conn:
        run = store.lock_run(conn, run_id)
        if run.status != "running":
            return []
        return store.send_run_matches(conn, run_id, window)


def pause_run(store: Store, run_id: int, actor: str = "organizer") -> RunRow:
    """Pause a running run: no match of it starts until it is resumed (those playing end
    and are recorded; those sent come back unsent when a worker takes them)."""
    with store.unit() as conn:
        run = store.lock_run(conn, run_id)
        if run.status != "running":
            raise NotReady(f"run {run_id} is {run.status}: only a running run can be paused")
        store.set_run_status(conn, run_id, "paused")
        store.log_action(conn, actor, "pause", f"run {run_id}")
    return run


def resume_run(
    store: Store, run_id: int, actor: str = "organizer", window: int = WINDOW
) -> list[str]:
    """Resume a paused run; the matches to send (its window, again)."""
    with store.unit() as conn:
        run = store.lock_run(conn, run_id)
        if run.status != "paused":
            raise NotReady(f"run {run_id} is {run.status}: only a paused run can be resumed")
        store.set_run_status(conn, run_id, "running")
        store.log_action(conn, actor, "resume", f"run {run_id}")
        return store.send_run_matches(conn, run_id, window)


def cancel_run(store: Store, run_id: int, reason: str = "", actor: str = "organizer") -> bool:
    """Cancel a run that is not over: its matches not started are cancelled (never
    played), those playing end and are recorded, and the run ends as cancelled with the
    table of what was played. Whether its table is written now (no match was playing)."""
    with store.unit() as conn:
        run = store.lock_run(conn, run_id)
        if run.status not in OPEN:
            raise NotReady(f"run {run_id} is {run.status}: only a run not over can be cancelled")
        store.set_run_status(conn, run_id, "cancelled")
        cancelled = store.cancel_run_matches(conn, run_id)
        detail = {"matches_cancelled": len(cancelled), "reason": reason}
        store.log_action(conn, actor, "cancel", f"run {run_id}", detail)
    return finish_run(store, run_id)


def void_match(
    store: Store, run_id: int, match_id: str, reason: str, actor: str = "organizer"
) -> None:
    """Void a finished match of the run: its result counts no more, for the run's table
    or any rating (its pool's kept counts recounted and its ratings fitted again)."""
    if not reason.strip():
        raise Invalid("say why the match is voided (--reason)")
    with store.unit() as conn:
        store.lock_run(conn, run_id)
        match = _run_match(store, conn, run_id, match_id)
        if match.status != "finished":
            raise NotReady(f"match {match_id} is {match.status}: only a finished match is voided")
        if match.voided is not None:
            raise NotReady(f"match {match_id} was voided before: {match.voided}")
        store.void_matches(conn, [match_id], reason)
        store.log_action(
            conn, actor, "void", f"match {match_id}", {"run": run_id, "reason": reason}
        )
    recounted(store, [match.pool], [run_id])


def replay_match(
    store: Store,
    run_id: int,
    match_id: str,
    reason: str,
    actor: str = "organizer",
    window: int = WINDOW,
) -> tuple[str, list[str]]:
    """Play a failed or finished match of the run again: a new match of the run with the
    same seats (a finished one is voided first, for ``reason``). Its deals are the same
    where no bot can remember them (the run's deals are duplicate or fixed: hosted bots,
    or trusted ones), else new secret ones: a bot that saw part of a deal must not meet it
    again. A finished run opens again until the replay is recorded. The new match's id,
    and the matches to send."""
    if not reason.strip():
        raise Invalid("say why the match is played again (--reason)")
    with store.unit() as conn:
        run = store.lock_run(conn, run_id)
        if run.status in ("starting", "cancelled", "failed"):
            raise NotReady(f"run {run_id} is {run.status}: its matches are not played again")
        match = _run_match(store, conn, run_id, match_id)
        if match.status not in ("failed", "finished"):
            raise Invalid(
                f"match {match_id} is {match.status}: only a failed or finished one is played again"
            )
        new_id = replay_match_id(match_id)
        same = (run.deals or "secret") != "secret"
        seed = match.seed if same else deal_seed(store.deal_key(), new_id)
        rated = Definition.from_json(run.definition).rated
        if not store.insert_replay(conn, match_id, new_id, seed, rated):
            raise NotReady(f"match {match_id} was played again before")
        voided = match.status == "finished" and match.voided is None
        if voided:
            store.void_matches(conn, [match_id], f"replayed as {new_id}: {reason}")
        if run.status == "finished":
            store.reopen_run(conn, run_id)
        detail = {"run": run_id, "replay": new_id, "reason": reason, "same_deals": same}
        store.log_action(conn, actor, "replay", f"match {match_id}", detail)
        ids = [] if run.status == "paused" else store.send_run_matches(conn, run_id, window)
    if voided:
        recounted(store, [match.pool], [])
    return new_id, ids


def _run_match(store: Store, conn: Unit, run_id: int, match_id: str) -> MatchRow:
    """The match of the run, locked; NotFound when the run has no such match."""
    match = store.lock_match(conn, match_id)
    if match.run_id != run_id:
        raise NotFound(f"match {quoted(match_id)} is not a match of run {run_id}")
    return match


def recounted(store: Store, pools: list[str], runs: list[int]) -> None:
    """The kept counts again from the history after voids, the pools' ratings fitted
    again on what counts, and the tables of ``runs`` written before written again."""
    store.recount()
    for pool in dict.fromkeys(pools):
        refit(store, pool)
    for run_id in runs:
        found = store.run(run_id)
        if found is not None and found[0].standings is not None:
            run = found[0]
            store.rewrite_run_table(run_id, standings(run.participants, store.run_results(run_id)))


def finish_run(store: Store, run_id: int) -> bool:
    """Write the final table of a run whose matches are all done (a running run is then
    finished; a cancelled one stays cancelled), its pool's ratings fitted first (its last
    matches counted); False when it was written before or matches are left to play."""
    found = store.run(run_id)
    if found is None:
        raise NotFound(f"no run {run_id}")
    run = found[0]
    if run.status not in ("running", "cancelled") or run.standings is not None:
        return False
    if not store.run_done(run_id):
        return False
    refit(store, pool_of(Rules.parse(Definition.from_json(run.definition).rules)))
    return store.finish_run(run_id, standings(run.participants, store.run_results(run_id)))
