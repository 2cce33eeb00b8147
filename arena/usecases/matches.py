"""Recording a match the referee has played: the exactly-once write of its record and of
the result it is credited with (arena/domain/absence.py), then its pool's ratings fitted
again (arena/usecases/ratings.py) when it is rated."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.domain.absence import Credit
from arena.store.store import Finish, Store
from arena.usecases.ratings import refit


def record(
    store: Store,
    match_id: str,
    played: dict[str, Any] | str,
    credited: Credit | Callable[[dict[str, Any]], Credit] | None = None,
    *,
    fit: bool = True,
) -> Finish:
    """Record the match (once, whoever asks again) as ``credited`` says (None: the result
    as played), and fit its pool's ratings again unless ``fit`` is False (a worker that
    has just fitted the pool leaves it to the next)."""
    done = store.finish_match(match_id, played, credited)
    if done.rated and fit:
        refit(store, done.pool)
    return done
