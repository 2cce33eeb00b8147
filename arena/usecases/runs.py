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
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from arena.domain.actors import SCHEDULER
from arena.domain.formats import (
    closing_rounds,
    next_round,
    pending,
    rating_order,
    settled,
    stage_field,
    table,
)
from arena.domain.formats import plan_run as plan_matches
from arena.domain.matches import replay_match_id
from arena.domain.pools import pool_of
from arena.domain.tournament import STAGED, Definition, deal_seed
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
    seed_from: str | None = None,
    top: int | None = None,
) -> RunRow | None:
    """A new run of the tournament as it is defined now (seeded from the run
    ``seed_from`` names, and cut to its ``top``, for this run alone when they are given),
    dealt from the definition's seed or a fresh one, its entries frozen: each bot active
    now and who plays for it (its hosted version active now, or when entries closed),
    and its field in seed order: a stage's from its source run's final table, else by
    rating in the pool (a stage whose source run is missing or not finished fails, saying
    so). For a scheduled firing, None when that firing already has its run."""
    definition = Definition.from_json(tournament.definition)
    if seed_from is not None:
        definition = replace(definition, bots=(), pool=None, seed_from=seed_from)
    if top is not None:
        definition = replace(definition, top=top)
    seed = definition.seed if definition.seed is not None else secrets.randbits(62)
    with store.unit() as conn:
        run = store.insert_run(conn, tournament, seed, fired_for, definition.to_json())
        if run is None:
            return None
        closed = None
        if definition.entries_close_s is not None:
            closed = (fired_for or run.created_at) - timedelta(seconds=definition.entries_close_s)
        try:
            entries, seeds = _field(store, conn, definition, closed)
        except (Invalid, NotFound) as e:  # a stage whose source is not over: it fails, saying why
            store.fail_run(conn, run.id, str(e))
            entries, seeds = {}, []
        store.set_entries(conn, run.id, entries, seeds)
        detail: dict[str, object] = {"tournament": tournament.name}
        if fired_for is not None:
            detail["fired_for"] = fired_for.isoformat()
        if definition.seed_from is not None:
            detail |= {"seed_from": definition.seed_from, "top": definition.top}
        store.log_action(conn, actor, "start", f"run {run.id}", detail)
    return run


def _field(
    store: Store, conn: Unit, definition: Definition, closed: datetime | None
) -> tuple[dict[str, tuple[int, str]], list[str]]:
    """A new run's entries and its field in seed order (its ``top`` alone, if it has
    one): a stage's from its source run's final table (NotFound when there is no such
    run), else every entry by its rating in the pool."""
    if definition.seed_from is not None:
        found = store.source_run(conn, definition.seed_from)
        if found is None:
            raise NotFound(f"no finished run {quoted(definition.seed_from)} to seed from")
        source = found[0]
        order = stage_field(source.standings, source.status, source.id)
        entries = store.run_bots(conn, names=order, as_of=closed)
        seeds = [name for name in order if name in entries]
    else:
        entries = store.run_bots(conn, definition, closed)
        pool = pool_of(Rules.parse(definition.rules))
        seeds = rating_order(entries, store.pool_elos(conn, pool, [i for i, _ in entries.values()]))
    if definition.top is not None:
        seeds = seeds[: definition.top]
        entries = {name: entries[name] for name in seeds}
    return entries, seeds


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
            frozen = _entries(store, conn, run)
            active = store.run_bots(conn, names=list(frozen))
            playing = {name: entry for name, entry in frozen.items() if name in active}
            gone = sorted(set(frozen) - set(playing))
            try:
                plan = plan_matches(run_id, definition, playing, run.seed, key, run.seeds or ())
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


def _entries(store: Store, conn: Unit, run: RunRow) -> dict[str, tuple[int, str]]:
    """The run's frozen entries (a run made before entries froze: its bots as now)."""
    if run.entries is None:
        return store.run_bots(conn, Definition.from_json(run.definition))
    return {name: (e[0], e[1]) for name, e in run.entries.items()}


def _active(store: Store, conn: Unit, run: RunRow) -> tuple[dict[str, tuple[int, str]], set[str]]:
    """The run's entries, and who plays for those of them still active (seat names)."""
    entries = _entries(store, conn, run)
    return entries, {entries[n][1] for n in store.run_bots(conn, names=list(entries))}


@dataclass(frozen=True, slots=True)
class Advanced:
    """What came of a run with none of its matches left to play: its next round's
    matches to send (a format played in rounds), or whether its final table was
    written."""

    finished: bool
    next: list[str]


def advance_run(store: Store, run_id: int, window: int = WINDOW) -> Advanced:
    """Move a run on once none of its matches is left to play: a knockout or a Swiss
    pairs its next round (arena/domain/formats.py) and sends its first window; a run that
    is over (or cancelled) has its final table written (:func:`finish_run`). Nothing while
    matches are left, or while it is paused (resuming it moves it on)."""
    key = store.deal_key()  # read now: not on a second connection while holding the lock
    with store.unit() as conn:
        run = store.lock_run(conn, run_id)
        definition = Definition.from_json(run.definition)
        staged = definition.format in STAGED and run.status == "running"
        if staged and store.run_done(run_id, conn):
            games = store.run_games(run_id, conn)
            entries, active = _active(store, conn, run)
            ids = {seat: row for row, seat in entries.values()}
            rounds, deals = run.rounds or [], run.deals or "secret"
            paired = next_round(run_id, definition, run.participants, rounds, games, active,
                                ids, run.seed, key, deals, run.total + 1)  # fmt: skip
            if paired is not None:
                store.insert_matches(conn, paired.matches)
                store.add_round(conn, run_id, len(paired.matches), paired.rounds)
                log.info("run %d: %d more matches paired", run_id, len(paired.matches))
                return Advanced(False, store.send_run_matches(conn, run_id, window))
            closing = closing_rounds(definition, run.participants, rounds, games, active)
            store.add_round(conn, run_id, 0, closing)
    return Advanced(finish_run(store, run_id), [])


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
        sent = store.send_run_matches(conn, run_id, window)
    return sent or advance_run(store, run_id, window).next  # a round closed while paused


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
        run = store.lock_run(conn, run_id)
        match = _run_match(store, conn, run, match_id)
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
        match = _run_match(store, conn, run, match_id)
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


def _run_match(store: Store, conn: Unit, run: RunRow, match_id: str) -> MatchRow:
    """The match of the run, locked; NotFound when the run has no such match, NotReady
    when a later round of the run was paired from its result (a knockout, a Swiss)."""
    match = store.lock_match(conn, match_id)
    if match.run_id != run.id:
        raise NotFound(f"match {quoted(match_id)} is not a match of run {run.id}")
    found = store.match(match_id)
    names = found[1] if found is not None else []
    why = settled(Definition.from_json(run.definition), run.rounds, match.round, names)
    if why is not None:
        raise NotReady(f"match {match_id} stands: {why}")
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
            store.rewrite_run_table(run_id, run_table(store, found[0]))


def run_table(store: Store, run: RunRow) -> dict[str, Any]:
    """The run's table as it stands, every result counted (:func:`formats.table`)."""
    definition = Definition.from_json(run.definition)
    return table(definition, run.participants, run.rounds, store.run_games(run.id))


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
    definition = Definition.from_json(run.definition)
    if run.status == "running" and definition.format in STAGED and not _over(store, run):
        return False  # its next round is to pair first (advance_run)
    refit(store, pool_of(Rules.parse(definition.rules)))
    return store.finish_run(run_id, run_table(store, run))


def _over(store: Store, run: RunRow) -> bool:
    """Whether a run in rounds has nothing more to pair."""
    definition = Definition.from_json(run.definition)
    with store.unit() as conn:
        _, active = _active(store, conn, run)
    games = store.run_games(run.id)
    return not pending(definition, run.participants, run.rounds or [], games, active)
