"""The read model of sequential tests on the arena (docs/testing.md)."""

from __future__ import annotations

from typing import TypedDict

from arena.domain.sprt import Sprt, shown_estimate
from arena.errors import NotFound
from arena.read import stamp
from arena.store.store import Store


class SprtTest(TypedDict):
    id: int
    new_bot: str
    base_bot: str
    rules: str
    elo0: float
    elo1: float
    alpha: float
    beta: float
    max_games: int
    rated: bool
    duplicate: bool
    status: str  # running, H1, H0 or undecided
    pairs: int
    lost_both: int
    split: int
    won_both: int
    llr: float
    lower: float
    upper: float
    elo: float | None  # None while infinite (one side won every pair) or before any pair
    elo_low: float | None
    elo_high: float | None
    games: int  # matches made
    created_at: str
    finished_at: str | None
    history: list[float]  # the LLR after each pair, in the order they ended


def sprt(store: Store, test_id: int) -> SprtTest:
    found = store.sprt(test_id)
    if found is None:
        raise NotFound(f"no test {test_id}")
    row, new, base = found
    test = Sprt(row.elo0, row.elo1, row.alpha, row.beta)
    elo, elo_low, elo_high = shown_estimate([row.lost_both, row.split, row.won_both])
    return SprtTest(
        id=row.id, new_bot=new, base_bot=base, rules=row.rules, elo0=row.elo0,
        elo1=row.elo1, alpha=row.alpha, beta=row.beta, max_games=row.max_games,
        rated=row.rated, duplicate=row.duplicate, status=row.status,
        pairs=row.lost_both + row.split + row.won_both, lost_both=row.lost_both,
        split=row.split, won_both=row.won_both, llr=round(row.llr, 3),
        lower=round(test.lower, 3), upper=round(test.upper, 3),
        elo=elo, elo_low=elo_low, elo_high=elo_high,
        games=row.scheduled, created_at=stamp(row.created_at),
        finished_at=stamp(row.finished_at),
        history=[round(p.llr, 3) for p in store.sprt_pairs(test_id)],
    )  # fmt: skip
