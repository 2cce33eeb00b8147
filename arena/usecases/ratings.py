"""Fitting a pool's ratings again (arena/domain/poolfit.py) and keeping them: what the worker
does after every rated match it records, what the scheduler's minute sweep does for every
pool that changed, and what a reader does when it finds a pool changed since its last
fit. A fit of an unchanged pool costs a lookup; two callers at once fit once
(:meth:`arena.store.fits.Fits.refit` holds the pool's lock)."""

from __future__ import annotations

from arena.domain.poolfit import fit
from arena.store.fits import KeptFit
from arena.store.store import Store


def refit(store: Store, pool: str) -> KeptFit:
    """The pool's ratings, fitted on everything recorded (fitted now if they were not)."""
    return store.refit(pool, fit)
