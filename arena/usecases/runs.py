"""Tournaments and their runs: define one, start a run, plan its matches once, and write
its final table. Who plays whom, in which seats and with which deals is the domain's
(:func:`arena.domain.tournament.plan_run`); the store reads and writes the rows.
"""

from __future__ import annotations

import logging
import secrets
from datetime import datetime

from arena.domain.pools import pool_of
from arena.domain.tournament import Definition, deal_mode, standings
from arena.domain.tournament import plan_run as plan_matches
from arena.engine import Rules, quoted
from arena.errors import Invalid, NotFound
from arena.store.rows import RunRow, TournamentRow
from arena.store.store import Store
from arena.usecases.ratings import refit

log = logging.getLogger(__name__)


def create_tournament(store: Store, definition: Definition) -> TournamentRow:
    """Keep a definition; its listed bots must be registered and active, and its deals
    fair for the bots as they play now (refused at once, with the real reason)."""
    listed = [*definition.bots, *([definition.challenger] if definition.challenger else [])]
    if listed:
        seated = {name: seat for name, (_, seat) in store.playing_as(listed).items()}
        missing = [b for b in dict.fromkeys(listed) if b not in seated]
        if missing:
            raise NotFound(f"no active bot named {', '.join(map(quoted, missing))}")
        deal_mode(definition, seated)
    return store.insert_tournament(definition)


def create_run(
    store: Store, tournament: TournamentRow, fired_for: datetime | None = None
) -> RunRow | None:
    """A new run of the tournament as it is defined now, dealt from the definition's seed
    or a fresh one. For a scheduled firing, None when that firing already has its run."""
    definition = Definition.from_json(tournament.definition)
    seed = definition.seed if definition.seed is not None else secrets.randbits(62)
    return store.insert_run(tournament, seed, fired_for)


def plan_run(store: Store, run_id: int) -> list[str]:
    """Make the run's matches (once: the run row is locked while planning) and return
    the ids of those not yet finished or failed. A run that cannot be played (too few
    bots, unfair deals) fails, saying why, and has none."""
    key = store.deal_key()  # read now: not on a second connection while holding the lock
    with store.unit() as conn:
        run = store.lock_run(conn, run_id)
        if run.status == "starting":
            definition = Definition.from_json(run.definition)
            playing = store.run_bots(conn, definition)
            gone = [b for b in definition.bots if b not in playing]
            if gone:
                log.warning("run %d: %s no longer active; playing without", run_id, gone)
            try:
                plan = plan_matches(run_id, definition, playing, run.seed, key)
            except Invalid as e:
                store.fail_run(conn, run_id, str(e))
                log.warning("run %d cannot start: %s", run_id, e)
                return []
            store.insert_matches(conn, plan.matches)
            store.planned_run(conn, run_id, plan)
    return store.run_unfinished(run_id)


def finish_run(store: Store, run_id: int) -> bool:
    """Write the final table of a run whose matches are all done, its pool's ratings
    fitted first (its last matches counted); False when it was finished before or still
    has matches to play."""
    found = store.run(run_id)
    if found is None:
        raise NotFound(f"no run {run_id}")
    run = found[0]
    if run.status != "running" or not store.run_done(run_id):
        return False
    refit(store, pool_of(Rules.parse(Definition.from_json(run.definition).rules)))
    return store.finish_run(run_id, standings(run.participants, store.run_results(run_id)))
