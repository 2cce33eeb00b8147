"""Fitting a pool's ratings again (arena/domain/poolfit.py) and keeping them: what the
worker does after every rated match it records, what finishing a run does for its pool,
and what the scheduler's minute sweep does for every pool that changed (the read model
only reads the last fit). A fit of an unchanged pool costs a lookup."""

from __future__ import annotations

from arena.domain.poolfit import fit
from arena.store.fits import KeptFit
from arena.store.store import Store


def refit(store: Store, pool: str) -> KeptFit:
    """The pool's ratings, fitted on everything recorded (fitted now if they were not),
    under the pool's lock: a second caller waits, then finds the fit done. The matches
    recorded before the fit began and not counted by an earlier one get their rating
    events; one recorded while it runs is counted, and given its events, by the next."""
    with store.unit() as conn:
        version, kept = store.lock_pool_fit(conn, pool)
        if kept is not None:
            return kept
        new = store.unfitted(conn, pool)
        return store.keep_fit(conn, pool, version, fit(store.fit_lineups(conn, pool)), new)
