"""The pool fit's 95% intervals hold the truth 95% of the time (arena/domain/poolfit.py).

Synthetic pools (tests/calibration.py says how they are made and what their truth is) of
8, 20 and 50 bots, of ordinary strengths (N(0, 200 Elo)) and of wide ones with outliers,
with 10, 50 and 200 games a bot on ladder-like and round-robin-like schedules, played by
the model's own law as independent matches, as duplicate pairs with a per-deal luck of
1.5 or 3 nats, and as 2x2 team matches. For each kind of match and each size, the
coverage of the bots' intervals (against the pool's mean, the truth a bot's pseudo-true
rating) and of the intervals of the differences of every two bots (against the logit of
their head-to-head chance) must lie between 92% and 98%. The same check fails on intervals half
or twice as wide, and on duplicate pairs fitted as if independent: it can fail.

Every pool is drawn from a fixed seed, so the figures are the same on every run; the
bounds leave room for the Monte Carlo error of about 2,400 intervals a case (a standard
error of 0.5 points). docs/ratings-calibration.md has the figures by setting (where
some settings fall outside these bounds, and why), and ``python -m tests.bench.ratings``
prints them.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from arena.domain.poolfit import PRIOR_ELO, Lineup, fit
from tests.calibration import (
    Coverage,
    Setting,
    Synthetic,
    coverage,
    ladder,
    lineups_of,
    marginal_chance,
    normal_strengths,
    pair_chances,
    play,
    pseudo_truth,
    round_robin,
)

LOW, HIGH = 0.92, 0.98
SIZES = (8, 20, 50)
GAMES = (10, 50, 200)
LUCKS = (1.5, 3.0)  # nats: a deal's luck in the duplicate pools (real truco: 0 to 6.5, see docs)
INTERVALS = 2400  # about this many bots' intervals for each kind of match and size
KINDS = ("independent", "duplicate", "teams")


def settings(kind: str, size: int) -> list[Setting]:
    """Every setting of a kind of match and a pool size: games a bot, strengths, and the
    schedule (single bots) or the luck (duplicate pairs)."""
    cases = itertools.product(GAMES, ("normal", "wide"), ("ladder", "round-robin"), LUCKS)
    out = []
    for games, strengths, schedule, luck in cases:
        if kind == "teams" and (schedule, luck) == ("ladder", LUCKS[0]):
            out.append(Setting(size, games, schedule, strengths, team_size=2))
        elif kind == "independent" and luck == LUCKS[0]:
            out.append(Setting(size, games, schedule, strengths))
        elif kind == "duplicate":
            out.append(Setting(size, games, schedule, strengths, duplicate=True, luck=luck))
    return out


def measured(kind: str, size: int, intervals: int = INTERVALS, **options: object) -> Coverage:
    """Coverage over about ``intervals`` bots' intervals of pools of every setting."""
    cases = settings(kind, size)
    pools = math.ceil(intervals / size / len(cases))
    return coverage(cases, pools, seed=2024 + size, old=False, **options)


def within(c: Coverage) -> bool:
    return LOW <= c.bots.share <= HIGH and LOW <= c.pairs.share <= HIGH


def shown(c: Coverage) -> str:
    return (
        f"bots {c.bots.share:.3f} of {c.bots.total}, pairs {c.pairs.share:.3f} of {c.pairs.total}"
    )


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("kind", KINDS)
def test_95_percent_intervals_cover_the_truth(kind: str, size: int) -> None:
    c = measured(kind, size)
    assert c.bots.total >= 0.95 * INTERVALS and c.disconnected <= c.pools // 20, c
    assert LOW <= c.bots.share <= HIGH, shown(c)
    assert LOW <= c.pairs.share <= HIGH, shown(c)


@pytest.mark.parametrize("widen", [0.5, 2.0])
@pytest.mark.parametrize("kind", KINDS)
def test_the_check_fails_intervals_of_the_wrong_width(kind: str, widen: float) -> None:
    """Half as wide, they cover about 68%; twice as wide, more than 99.9%."""
    c = measured(kind, 20, intervals=400, widen=widen)
    assert not within(c)
    assert (c.bots.share < LOW) if widen < 1 else (c.bots.share > HIGH), shown(c)


def test_the_check_fails_duplicate_pairs_fitted_as_independent() -> None:
    """Taken as independent matches, duplicate pairs' anti-correlated results make the
    intervals too wide (with a luck of 3 nats the pairs' sums vary half as much as two
    independent matches' would): the dispersion is what keeps them right."""
    cases = [Setting(20, g, duplicate=True, luck=3.0) for g in (50, 200)]
    right = coverage(cases, 10, seed=7, old=False)
    wrong = coverage(cases, 10, seed=7, old=False, as_independent=True)
    assert within(right), shown(right)
    assert wrong.bots.share > HIGH and wrong.pairs.share > HIGH, shown(wrong)


# ---- the helpers the check rests on ----------------------------------------------------


def test_the_luck_integral_is_exact() -> None:
    """Gauss-Hermite against a fine trapezoid over +/-12 standard deviations."""
    d = np.array([-900.0, -250.0, 0.0, 120.0, 600.0])
    for luck in (0.5, 1.5):
        grid = np.linspace(-12 * luck, 12 * luck, 40_001)
        density = np.exp(-(grid**2) / (2 * luck**2)) / (luck * np.sqrt(2 * np.pi))
        x = d[:, None] * np.log(10) / 400 + grid[None, :]
        reference = np.trapezoid(density / (1 + np.exp(-x)), grid, axis=1)
        assert np.max(np.abs(marginal_chance(d, luck) - reference)) < 1e-9
    both, neither = pair_chances(0.0, 1.5)
    assert both == pytest.approx(neither) and both < 0.25  # twins anti-correlated
    assert marginal_chance(300.0, 0.0) == pytest.approx(1 / (1 + 10 ** (-300 / 400)))


def test_the_pseudo_truth_is_the_true_strength_under_the_models_law() -> None:
    rng = np.random.default_rng(5)
    world = Synthetic(normal_strengths(12, rng))
    rows = lineups_of(play(world, *ladder(12, 30, rng), rng))
    truth = pseudo_truth(world, rows)
    assert np.max(np.abs(truth - (world.strengths - world.strengths.mean()))) < 1e-6
    lucky = Synthetic(world.strengths, 1.5)  # flatter: about 1 / sqrt(1 + pi s^2 / 8)
    ratio = pseudo_truth(lucky, rows) / truth
    assert np.all((ratio > 0.68) & (ratio < 0.8)), ratio


def test_schedules_give_the_games_asked() -> None:
    rng = np.random.default_rng(6)
    a, b = round_robin(9, 16, rng)
    played = np.bincount(np.concatenate([a[:, 0], b[:, 0]]), minlength=9)
    assert set(played) == {16} and not np.any(a == b)
    pairs = {tuple(sorted(p)) for p in zip(a[:, 0], b[:, 0], strict=True)}
    assert len(pairs) == 36  # every pair met (each twice)
    a, b = ladder(20, 50, rng, team_size=2)
    assert len(a) == 250 and a.shape[1] == 2
    seated = np.concatenate([a, b], axis=1)
    assert all(len(set(row)) == 4 for row in seated.tolist())


def test_the_fit_is_the_dense_algebra() -> None:
    """The fit's sparse products against the dense matrices they stand for: the mode's
    gradient is zero and the covariance is the sandwich, on mixed lineups (1x1, 2x2, a
    bot on both teams, 1 against 3, duplicate pairs)."""
    rows = [
        Lineup(("a", "b"), ("a", "c"), 10, 6),
        Lineup(("a",), ("b",), 12, 5, (2, 3, 1)),
        Lineup(("b", "c", "d"), ("e",), 7, 3),
        Lineup(("d",), ("e",), 8, 2, (1, 2, 1)),
        Lineup(("c", "e"), ("a", "d"), 9, 9),
        Lineup(("b",), ("e",), 5, 1),
    ]
    result = fit(rows)
    names, n = result.order, len(result.order)
    x = np.zeros((len(rows), n))
    for k, r in enumerate(rows):
        for b in r.team_a:
            x[k, names.index(b)] += 1 / len(r.team_a)
        for b in r.team_b:
            x[k, names.index(b)] -= 1 / len(r.team_b)
    per_nat = 400 / math.log(10)
    theta = np.array([(result.ratings[b].elo - 1500) / per_nat for b in names])
    games = np.array([r.games for r in rows], dtype=float)
    wins = np.array([r.wins for r in rows], dtype=float)
    pairs = np.array([sum(r.paired) for r in rows], dtype=float)
    precision = (per_nat / PRIOR_ELO) ** 2
    p = 1 / (1 + np.exp(-x @ theta))
    v = p * (1 - p)
    assert np.max(np.abs(x.T @ (wins - games * p) - precision * theta)) < 1e-8
    hessian = x.T @ np.diag(games * v) @ x + precision * np.eye(n)
    weight = (games - 2 * pairs) * v + result.dispersion * 2 * pairs * v
    meat = x.T @ np.diag(weight) @ x + precision * np.eye(n)
    inverse = np.linalg.inv(hessian)
    centre = np.eye(n) - 1 / n
    expected = centre @ inverse @ meat @ inverse @ centre * per_nat**2
    assert np.max(np.abs(result.covariance - expected)) < 1e-6
    assert result.dispersion != 1.0
