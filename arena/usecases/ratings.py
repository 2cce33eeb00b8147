"""Fitting a pool's ratings again (arena/domain/poolfit.py) and keeping them: what the
worker does after every rated match it records, what finishing a run does for its pool,
and what the scheduler's minute sweep does for every pool that changed (the read model
only reads the last fit). A fit of an unchanged pool costs a lookup."""

from __future__ import annotations

from arena.domain.poolfit import anchors, fit, held_anchors
from arena.store.fits import KeptFit
from arena.store.store import Store


def refit(store: Store, pool: str) -> KeptFit:
    """The pool's ratings, fitted on everything recorded (fitted now if they were not),
    under the pool's lock: a second caller waits, then finds the fit done. The matches
    recorded before the fit began and not counted by an earlier one get their rating
    events; one recorded while it runs is counted, and given its events, by the next.
    The pool's mean is that of its bots neither retired nor absent for longer than the
    store's ``fit_absent_s`` (:func:`arena.domain.poolfit.anchors`): a pool is fitted
    again when one of them leaves, though nothing was recorded."""
    with store.unit() as conn:
        version, kept = store.lock_pool_fit(conn, pool)
        members = store.fit_members(conn, pool)
        anchored = anchors(members, store.fit_absent_s)
        if kept is not None and kept.anchors == held_anchors(anchored, kept.halves):
            return kept
        new = store.unfitted(conn, pool)
        lineups = store.fit_lineups(conn, pool)
        return store.keep_fit(conn, pool, version, fit(lineups, anchors=anchored), new)
