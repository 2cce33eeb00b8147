"""A pool's ratings: one Bayesian Bradley-Terry fit of every rated result, whose number
and interval come from the same model (docs/ratings.md).

A bot version never changes, so each of its games is equal evidence of one fixed
strength: the ratings are the most probable strengths given all of a pool's results at
once (as chess engine lists compute theirs), not a running sum of match-by-match steps
whose value depends on the order of the games and keeps wandering.

- **The law.** Team A beats team B with probability ``1 / (1 + 10 ** (-(a - b) / 400))``
  where ``a`` and ``b`` are the mean ratings of the teams' bots: one bot a team in 1x1,
  its members' mean in 2x2 to 4x4 (a member's strength is fitted from its teams'
  results). 400 points are a factor of ten in the odds, as ever.
- **The prior.** Each bot's rating starts as a normal distribution around the pool's
  mean, :data:`PRIOR_ELO` wide (a standard deviation): weak enough that a few dozen
  games outweigh it, strong enough that a clean sweep gives a finite rating, and wide
  enough for the bots a pool really holds: the house bots alone span some 800 points (random
  to heuristic), and a narrower prior pulled such outliers in so far, with 10 games
  each, that their intervals missed (docs/ratings-calibration.md). The ratings shown
  are the posterior's mode (maximum a posteriori); with many games it is the
  maximum-likelihood fit.
- **The scale's anchor.** The pool's mean rating is 1500 (:data:`ANCHOR`): a rating reads
  "this many points above the pool's average", and a bot's interval is that of its
  distance from the average. The average is of the bots that still play (``anchors``,
  :func:`anchors`): a bot retired, or absent for ``ABSENT_DAYS`` (arena/domain/pools.py),
  leaves it (its results still count for its opponents), so that a bot whose rating
  nobody measures any more, its interval wide, does not widen every other's with the
  average's own uncertainty.
- **The interval.** From the posterior's curvature at its mode (the Laplace
  approximation): the covariance of the ratings, their 95% intervals, the standard error
  of any difference (likelihood of superiority, the ladder's choices).
- **Duplicate pairs.** The two matches of a duplicate pair share their deals with the
  seats exchanged, so their results are not independent: the cards that won the first
  for one bot win the twin for the other. The pool's pairs measure how far their sums
  vary from what two independent matches would (:attr:`Fit.dispersion`, shrunk towards
  independence while there are few pairs), and the pairs' share of the covariance is
  scaled by it (a cluster-robust sandwich estimate, as the sequential test's pair model
  does with its own variance).

Pure: results in, ratings out (numpy for the algebra).
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as arena/domain/rating.py: small matrices
import numpy as np
import numpy.typing as npt

ANCHOR = 1500.0  # the pool's mean rating
SCALE = 400.0  # Elo points for a factor of ten in the odds
PRIOR_ELO = 600.0  # the prior's standard deviation, in Elo points (400 under-covered outliers)
Z95 = 1.959963984540054
PSEUDO_PAIRS = 10.0  # duplicate pairs' dispersion: the weight of the independent guess
TOLERANCE = 1e-10  # Newton: the largest step, in natural-log strength
MAX_ITERATIONS = 100
_PER_NAT = SCALE / math.log(10.0)  # Elo points per unit of natural-log strength

Team = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Lineup:
    """The results of one pairing of teams: ``games`` rated matches, ``wins`` of them
    won by ``team_a`` (credited wins: a forfeit is a loss), ``pairs`` of them played as
    the halves of duplicate pairs, whose outcomes for team A (both lost, split, both won)
    are ``paired``."""

    team_a: Team
    team_b: Team
    games: int
    wins: int
    paired: tuple[int, int, int] = (0, 0, 0)


@dataclass(frozen=True, slots=True)
class Estimate:
    """A bot's rating and its standard deviation, in Elo points."""

    elo: float
    sd: float

    @property
    def low(self) -> float:
        return self.elo - Z95 * self.sd

    @property
    def high(self) -> float:
        return self.elo + Z95 * self.sd

    @property
    def half(self) -> float:
        """Half its 95% interval."""
        return Z95 * self.sd


@dataclass(frozen=True)
class Fit:
    """A pool's ratings, by bot."""

    ratings: Mapping[str, Estimate]
    dispersion: float = 1.0  # the variance of a duplicate pair's sum over two independent
    iterations: int = 0
    covariance: Any = field(default=None, repr=False)  # of the ratings, Elo points squared
    order: tuple[str, ...] = ()  # the bots, as the covariance's rows
    anchors: tuple[str, ...] = ()  # the bots whose mean is ANCHOR (sorted)

    @functools.cached_property
    def _rows(self) -> dict[str, int]:
        return {b: i for i, b in enumerate(self.order)}

    def difference_sd(self, a: str, b: str) -> float:
        """The standard deviation of ``rating(a) - rating(b)``, in Elo points."""
        if a == b:
            return 0.0
        rows = self._rows
        i, j = rows[a], rows[b]
        c = self.covariance
        return math.sqrt(max(c[i, i] + c[j, j] - 2.0 * c[i, j], 0.0))

    def superiority(self, a: str, b: str) -> float:
        """The probability that ``a`` is the stronger of the two."""
        diff = self.ratings[a].elo - self.ratings[b].elo
        sd = self.difference_sd(a, b)
        if sd == 0.0:
            return 0.5 if diff == 0.0 else float(diff > 0.0)
        return 0.5 * (1.0 + math.erf(diff / (sd * math.sqrt(2.0))))


def anchors(members: Iterable[tuple[str, bool, float]], absent_s: float) -> frozenset[str]:
    """The bots a pool's mean is of, from its rated bots, each as (name, retired, seconds
    since its latest rated game in the pool): those neither retired nor absent for longer
    than ``absent_s``."""
    return frozenset(b for b, retired, idle_s in members if not (retired or idle_s > absent_s))


def held_anchors(anchors: Collection[str] | None, rated: Collection[str]) -> frozenset[str]:
    """The bots a fit of the bots ``rated`` anchors on: those of ``anchors`` it rates, or
    all of them when that is none (or ``anchors`` is None)."""
    held = frozenset(rated).intersection(anchors or ())
    return held or frozenset(rated)


def fit(
    lineups: Iterable[Lineup],
    prior_elo: float = PRIOR_ELO,
    anchors: Collection[str] | None = None,
) -> Fit:
    """The pool's ratings from its results, their mean (ANCHOR) that of ``anchors``
    (None, or none of them rated: of every bot rated)."""
    rows = [r for r in lineups if r.games > 0]
    names = sorted({b for r in rows for b in (*r.team_a, *r.team_b)})
    if not names:
        return Fit({})
    index = {b: i for i, b in enumerate(names)}
    n = len(names)
    x = _Design(rows, index)
    games = np.array([r.games for r in rows], dtype=float)
    wins = np.array([r.wins for r in rows], dtype=float)
    precision = (_PER_NAT / prior_elo) ** 2  # of natural-log strength
    theta, iterations = _mode(x, games, wins, precision)
    p = 1.0 / (1.0 + np.exp(-x.times(theta)))
    v = p * (1.0 - p)
    paired = np.array([r.paired for r in rows], dtype=float)  # pairs by outcome
    pairs = paired.sum(axis=1)
    dispersion = _dispersion(p, v, paired)
    hessian = x.gram(games * v) + precision * np.eye(n)
    # the meat: single matches as the law says, pairs as their measured dispersion does
    weight = (games - 2.0 * pairs) * v + dispersion * 2.0 * pairs * v
    meat = x.gram(weight) + precision * np.eye(n)
    inverse = np.linalg.inv(hessian)
    covariance = inverse @ meat @ inverse
    # distances from the anchors' mean: C S C' for C = I - 1 w', w the anchors' weights
    # (1/k each), without the two products
    held = held_anchors(anchors, names)
    w = np.array([b in held for b in names], dtype=float)
    w /= w.sum()
    means = covariance @ w
    covariance = (covariance - means[:, None] - means[None, :] + w @ means) * _PER_NAT**2
    theta = theta - w @ theta
    ratings = {
        b: Estimate(ANCHOR + _PER_NAT * float(theta[i]), math.sqrt(max(covariance[i, i], 0.0)))
        for b, i in index.items()
    }
    return Fit(ratings, dispersion, iterations, covariance, tuple(names), tuple(sorted(held)))


class _Design:
    """The lineups' design matrix, +1/k for team A's k members and -1/k for team B's,
    kept by its nonzero entries (a lineup has at most twice a team's size of them, the
    matrix as many columns as bots): its products cost the lineups' entries, not
    lineups times bots."""

    def __init__(self, rows: Sequence[Lineup], index: Mapping[str, int]) -> None:
        width = max(len(r.team_a) + len(r.team_b) for r in rows)
        self.n = len(index)
        self.bots = np.zeros((len(rows), width), dtype=np.intp)  # padding: bot 0, weight 0
        self.weights = np.zeros((len(rows), width))
        for k, r in enumerate(rows):
            for j, b in enumerate(r.team_a):
                self.bots[k, j], self.weights[k, j] = index[b], 1.0 / len(r.team_a)
            for j, b in enumerate(r.team_b, start=len(r.team_a)):
                self.bots[k, j], self.weights[k, j] = index[b], -1.0 / len(r.team_b)
        self._cells = (self.bots[:, :, None] * self.n + self.bots[:, None, :]).reshape(-1)
        self._products = (self.weights[:, :, None] * self.weights[:, None, :]).reshape(
            len(rows), -1
        )

    def times(self, theta: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """``X @ theta``: each lineup's difference of strengths."""
        return np.asarray((self.weights * theta[self.bots]).sum(axis=1))

    def transposed_times(self, r: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """``X.T @ r``: by bot, the sum over its lineups."""
        return np.bincount(
            self.bots.reshape(-1), (self.weights * r[:, None]).reshape(-1), minlength=self.n
        )

    def gram(self, w: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """``X.T @ diag(w) @ X``."""
        cells = np.bincount(
            self._cells, (self._products * w[:, None]).reshape(-1), minlength=self.n * self.n
        )
        return cells.reshape(self.n, self.n)


def _mode(
    x: _Design, games: npt.NDArray[Any], wins: npt.NDArray[Any], precision: float
) -> tuple[npt.NDArray[Any], int]:
    """The posterior's mode: Newton's method on a concave objective, from zero."""
    theta = np.zeros(x.n)
    for iteration in range(1, MAX_ITERATIONS + 1):
        p = 1.0 / (1.0 + np.exp(-x.times(theta)))
        grad = x.transposed_times(wins - games * p) - precision * theta
        hessian = x.gram(games * p * (1.0 - p)) + precision * np.eye(x.n)
        step = np.linalg.solve(hessian, grad)
        theta = theta + step
        if float(np.max(np.abs(step), initial=0.0)) < TOLERANCE:
            return theta, iteration
    raise RuntimeError(f"the pool's ratings did not settle in {MAX_ITERATIONS} iterations")


def _dispersion(p: npt.NDArray[Any], v: npt.NDArray[Any], paired: npt.NDArray[Any]) -> float:
    """How much a duplicate pair's sum of wins varies, over what two independent matches'
    would: observed squared deviations of the pairs' sums over their variance under
    independence, with :data:`PSEUDO_PAIRS` pairs at exactly 1 added (so that a few pairs
    cannot make the intervals of a whole pool narrow by chance)."""
    pairs = paired.sum(axis=1)
    if not pairs.any():
        return 1.0
    expected = 2.0 * p  # a pair's wins for team A, had its matches been independent
    squares = np.sum([paired[:, k] * (k - expected) ** 2 for k in range(3)], axis=0)
    independent = pairs * 2.0 * v
    typical = float(independent.sum() / pairs.sum())
    return float(
        (squares.sum() + PSEUDO_PAIRS * typical) / (independent.sum() + PSEUDO_PAIRS * typical)
    )


def lineup_of(seats: Sequence[str]) -> tuple[Team, Team]:
    """The two teams of a match's seats (seat i is on team i mod 2), each a sorted tuple of
    its bots."""
    return tuple(sorted(set(seats[0::2]))), tuple(sorted(set(seats[1::2])))


def lineups(results: Iterable[tuple[Sequence[str], int]]) -> list[Lineup]:
    """Lineups from (seats, winning team) of independent matches: a convenience for
    tests and simulations (the store keeps its own counts)."""
    counts: dict[tuple[Team, Team], list[int]] = {}
    for seats, winner in results:
        a, b = lineup_of(seats)
        flip = b < a
        key = (b, a) if flip else (a, b)
        won = (winner == 0) != flip
        entry = counts.setdefault(key, [0, 0])
        entry[0] += 1
        entry[1] += int(won)
    return [Lineup(a, b, g, w) for (a, b), (g, w) in sorted(counts.items())]
