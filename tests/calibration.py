"""Whether a rating's interval means what it says: synthetic and real pools, their truth,
and the measures of coverage, games to settle and wander, for the pool fit
(:mod:`arena.domain.poolfit`) and for the online Elo it replaces (:mod:`arena.domain.rating`).

Used by tests/domain/test_rating_calibration.py (fixed seeds, a few hundred pools) and by
tests/bench/ratings.py (more pools, the house bots, the timings). docs/ratings-calibration.md
gives the figures.

**Worlds.** A world knows the true chance that one team beats another and plays matches
by it. :class:`Synthetic`: every bot has a true strength (Elo points) and team A beats
team B by the model's own law on the members' mean strengths, plus, when ``luck`` is set,
a per-deal luck term: a match on deal ``l ~ N(0, luck)`` (natural-log odds) is won by A
with probability ``logistic(d + l)``, and its duplicate twin, the same deal with the seats
exchanged, with ``logistic(d - l)``. The luck averages out of one match, but it makes the
chance of a match flatter than the strengths say: the true (marginal) chance is
``E[logistic(d + l)]``, computed by Gauss-Hermite quadrature (:func:`marginal_chance`),
and the "true difference" of two teams is its logit. :class:`Bank`: real matches of the
house bots, played beforehand as duplicate pairs (:func:`house_bank`); a pool's matches
are drawn from the bank with replacement, so the world's true chances are exactly the
bank's own win shares.

**Truth.** Two definitions, both evaluated:

- *pairwise*: the true difference between bots i and j is the logit of the chance that i
  beats j head to head (in Elo points: ``400 log10(p / (1 - p))``), defined for every
  pair whether they met or not; the fit's interval of it is
  ``elo_i - elo_j +/- 1.96 Fit.difference_sd(i, j)``.
- *a bot against the pool's mean*: only the model's law makes "a bot's true rating"
  exact. When the truth is not Bradley-Terry (luck flattens the far pairings' chances; the
  house bots are what they are) a bot's true rating is the *pseudo-true* one
  (:func:`pseudo_truth`): the Bradley-Terry strengths, mean 0, whose win chances give every
  bot exactly its true expected number of wins on the pool's own schedule (the score
  equations with the true chances in place of the results). It is what the fit converges
  to as the same schedule is played again and again, and under the model's law it is the
  true strength minus the pool's mean exactly.

**Coverage** is the share of 95% intervals that contain the truth, counted over many
pools (:class:`Tally`). **Settled** is a half interval (:attr:`arena.domain.poolfit.Estimate.half`,
or the Bradley-Terry half printed beside the online Elo) of at most 50 Elo points.

**Today's online Elo** (:func:`online_elo`) is applied match by match from 1500 with
K = 24, as migration 0006 does: each team plays at its members' mean, every member gets
the team's change. The leaderboard printed it with ``+/-`` half of a separate
Bradley-Terry interval (of arena.domain.rating.bradley_terry) of how often each bot's team
beat each other bot's (every winner against every loser of a team match, as the store's
``pair_stats`` counts them); its interval of a difference is taken as the online
difference ``+/- 1.96`` times that fit's standard error of the difference.
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

# small matrices: BLAS threads only fight each other for the cores (as arena/domain/rating.py)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np
import numpy.typing as npt

from arena.domain.poolfit import Fit, Lineup, fit
from arena.domain.rating import SCALE, START, bradley_terry

Array = npt.NDArray[Any]
Rng = np.random.Generator

ELO_PER_NAT = SCALE / math.log(10.0)
Z95 = 1.959963984540054
SETTLED_HALF = 50.0  # Elo points: a rating is settled once its half interval is this small
HERMITE_NODES = 48  # Gauss-Hermite nodes of the luck's integral (exact to ~1e-12 here)
_NODES, _WEIGHTS = np.polynomial.hermite.hermgauss(HERMITE_NODES)

K = 24.0  # the online Elo's step that the leaderboard showed until migration 0015


def logistic(x: Array | float) -> Any:
    return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=float)))


def elo_of_chance(p: Array | float) -> Any:
    """The Elo difference whose chance of a win is ``p``."""
    p = np.asarray(p, dtype=float)
    return ELO_PER_NAT * np.log(p / (1.0 - p))


def marginal_chance(d_elo: Array | float, luck: float) -> Any:
    """``E[logistic(d + l)]`` for ``l ~ N(0, luck)`` (nats), ``d`` in Elo points: the
    chance that a side ``d`` points stronger wins one match on a random deal. With
    ``x = l / (sqrt(2) luck)`` the integral is Gauss-Hermite's ``sum w_k f(sqrt(2) luck
    x_k) / sqrt(pi)``."""
    d = np.asarray(d_elo, dtype=float) / ELO_PER_NAT
    if luck == 0.0:
        return logistic(d)
    shifts = math.sqrt(2.0) * luck * _NODES
    values = logistic(d[..., None] + shifts)
    return values @ _WEIGHTS / math.sqrt(math.pi)


def pair_chances(d_elo: Array | float, luck: float) -> tuple[Any, Any]:
    """For a duplicate pair of a side ``d`` points stronger: the chances that it wins
    both matches and that it loses both, ``E[s(d + l) s(d - l)]`` and
    ``E[(1 - s(d + l)) (1 - s(d - l))]``."""
    d = np.asarray(d_elo, dtype=float)[..., None] / ELO_PER_NAT
    shifts = math.sqrt(2.0) * luck * _NODES
    first, twin = logistic(d + shifts), logistic(d - shifts)
    both = (first * twin) @ _WEIGHTS / math.sqrt(math.pi)
    neither = ((1.0 - first) * (1.0 - twin)) @ _WEIGHTS / math.sqrt(math.pi)
    return both, neither


# ---- true strengths ----------------------------------------------------------------------


def normal_strengths(n: int, rng: Rng) -> Array:
    """N(0, 200 Elo): a pool of bots of ordinary spread."""
    return rng.normal(0.0, 200.0, n)


def wide_strengths(n: int, rng: Rng) -> Array:
    """N(0, 300 Elo), with one bot in ten (at least one) an outlier 600 to 1000 points
    above or below the rest: a pool with a bot that wins nearly everything."""
    s = rng.normal(0.0, 300.0, n)
    outliers = rng.choice(n, size=max(1, n // 10), replace=False)
    s[outliers] = rng.choice([-1.0, 1.0], size=len(outliers)) * rng.uniform(
        600, 1000, len(outliers)
    )
    return s


STRENGTHS: dict[str, Callable[[int, Rng], Array]] = {
    "normal": normal_strengths,
    "wide": wide_strengths,
}


# ---- worlds ------------------------------------------------------------------------------


class World(Protocol):
    """What a pool is played in: ``n`` bots, the true chances, and the matches."""

    @property
    def n(self) -> int: ...

    def chance(self, a: Array, b: Array) -> Array:
        """The true chance that team ``a[k]`` beats team ``b[k]`` (rows of bot indices)
        in one match on a random deal."""
        ...

    def play(self, a: Array, b: Array, rng: Rng) -> Array:
        """One independent match per row: whether team A won."""
        ...

    def play_pairs(self, a: Array, b: Array, rng: Rng) -> Array:
        """One duplicate pair per row, (m, 2): whether team A won the match and its twin."""
        ...


@dataclass
class Synthetic:
    """Bots of known strength (Elo points), the model's law, and a per-deal luck of
    ``luck`` nats (0: none; a duplicate pair's twin gets ``-l``)."""

    strengths: Array
    luck: float = 0.0

    @property
    def n(self) -> int:
        return len(self.strengths)

    def difference(self, a: Array, b: Array) -> Array:
        return np.asarray(self.strengths[a].mean(axis=1) - self.strengths[b].mean(axis=1))

    def chance(self, a: Array, b: Array) -> Array:
        return np.asarray(marginal_chance(self.difference(a, b), self.luck))

    def play(self, a: Array, b: Array, rng: Rng) -> Array:
        d = self.difference(a, b) / ELO_PER_NAT
        luck = rng.normal(0.0, self.luck, len(d)) if self.luck else 0.0
        return np.asarray(rng.random(len(d)) < logistic(d + luck))

    def play_pairs(self, a: Array, b: Array, rng: Rng) -> Array:
        d = self.difference(a, b) / ELO_PER_NAT
        luck = rng.normal(0.0, self.luck, len(d)) if self.luck else np.zeros(len(d))
        draws = rng.random((len(d), 2))
        return np.stack([draws[:, 0] < logistic(d + luck), draws[:, 1] < logistic(d - luck)], 1)


@dataclass
class Bank:
    """Real duplicate pairs of house bots, and a pool's bots as copies of them.

    ``results[u, v]`` (variant indices, u < v) is an (entries, 2) array: whether ``u``
    won the match of each pair where it sat on team 0, and its twin (the same seed, the
    seats exchanged); ``results[u, u]`` the same for two copies of one variant.
    ``variant[i]`` is the variant bot ``i`` of the pool is. A match is drawn from the
    bank with replacement: one half of a random pair (independent deals) or both halves
    (a duplicate pair), its sides turned to the pairing's, and between copies of one
    variant its sides drawn at random, so that their true chance is exactly 1/2."""

    results: Mapping[tuple[int, int], Array]
    variant: Array

    @property
    def n(self) -> int:
        return len(self.variant)

    def share(self, u: int, v: int) -> float:
        """The true chance that variant ``u`` beats ``v``: the bank's share."""
        if u == v:
            return 0.5
        if u > v:
            return 1.0 - self.share(v, u)
        return float(np.mean(self.results[u, v]))

    def chance(self, a: Array, b: Array) -> Array:
        return np.array(
            [
                self.share(self.variant[i], self.variant[j])
                for i, j in zip(a[:, 0], b[:, 0], strict=True)
            ]
        )

    def _draw(self, a: Array, b: Array, rng: Rng) -> Array:
        out = np.empty((len(a), 2), dtype=bool)
        for k, (i, j) in enumerate(zip(a[:, 0], b[:, 0], strict=True)):
            u, v = int(self.variant[i]), int(self.variant[j])
            rows = self.results[min(u, v), max(u, v)]
            won = rows[rng.integers(len(rows))]
            flip = u > v if u != v else bool(rng.integers(2))
            out[k] = ~won if flip else won
        return out

    def play(self, a: Array, b: Array, rng: Rng) -> Array:
        pairs = self._draw(a, b, rng)
        half = rng.integers(2, size=len(a))
        return pairs[np.arange(len(a)), half]

    def play_pairs(self, a: Array, b: Array, rng: Rng) -> Array:
        return self._draw(a, b, rng)


# ---- schedules ---------------------------------------------------------------------------


def ladder(
    n: int, games: float, rng: Rng, team_size: int = 1, spread: float = 4.0
) -> tuple[Array, Array]:
    """Random pairings, as a ladder makes them: each match draws its ``2 * team_size``
    bots at random (teams at random), each bot as often as its activity, drawn
    log-uniformly over a factor of ``spread``, so that some play ``spread`` times more
    than others; ``games`` is the mean number of matches a bot plays."""
    activity = np.exp(rng.uniform(0.0, math.log(spread), n))
    activity /= activity.sum()
    seats = 2 * team_size
    matches = max(1, round(n * games / seats))
    picks = rng.choice(n, size=(matches, seats), p=activity)
    while True:  # a match seats distinct bots: draw the rows that repeat one again
        ordered = np.sort(picks, axis=1)
        again = np.any(ordered[:, 1:] == ordered[:, :-1], axis=1)
        if not again.any():
            break
        picks[again] = rng.choice(n, size=(int(again.sum()), seats), p=activity)
    return np.sort(picks[:, :team_size], axis=1), np.sort(picks[:, team_size:], axis=1)


def round_robin(n: int, games: float, rng: Rng) -> tuple[Array, Array]:
    """Rounds of a round robin (the circle method over a random order; with an odd
    ``n`` one bot sits each round out), as many as give each bot about ``games``
    matches: every bot meets every other once before meeting anyone twice."""
    order = list(rng.permutation(n))
    if n % 2:
        order.append(-1)
    size = len(order)
    rounds = max(1, round(games * size / n))
    a_side, b_side = [], []
    ring = order[1:]
    for r in range(rounds):
        shift = r % (size - 1)
        seated = [order[0], *ring[shift:], *ring[:shift]]
        for k in range(size // 2):
            i, j = seated[k], seated[size - 1 - k]
            if i < 0 or j < 0:
                continue
            if rng.random() < 0.5:
                i, j = j, i
            a_side.append(i)
            b_side.append(j)
    return np.array(a_side)[:, None], np.array(b_side)[:, None]


# ---- results -----------------------------------------------------------------------------


@dataclass
class Results:
    """A pool's matches in the order played: team A's and B's bots (rows of indices),
    whether A won, and the duplicate pair a match belongs to (-1: none; the two matches of
    a pair are adjacent)."""

    a: Array
    b: Array
    a_won: Array
    pair: Array

    @property
    def matches(self) -> int:
        return len(self.a_won)

    def __add__(self, other: Results) -> Results:
        shift = int(self.pair.max(initial=-1)) + 1
        pair = np.where(other.pair >= 0, other.pair + shift, -1)
        return Results(
            np.concatenate([self.a, other.a]),
            np.concatenate([self.b, other.b]),
            np.concatenate([self.a_won, other.a_won]),
            np.concatenate([self.pair, pair]),
        )

    def head(self, matches: int) -> Results:
        return Results(
            self.a[:matches], self.b[:matches], self.a_won[:matches], self.pair[:matches]
        )


def play(world: World, a: Array, b: Array, rng: Rng, duplicate: bool = False) -> Results:
    """The schedule's matches played in ``world``: each row one independent match, or
    with ``duplicate`` one duplicate pair (two matches on the same deals, seats
    exchanged)."""
    if not duplicate:
        return Results(a, b, world.play(a, b, rng), np.full(len(a), -1))
    won = world.play_pairs(a, b, rng)
    return Results(
        np.repeat(a, 2, axis=0),
        np.repeat(b, 2, axis=0),
        won.reshape(-1),
        np.repeat(np.arange(len(a)), 2),
    )


NAMES = tuple(f"b{i:03d}" for i in range(1000))


def name(i: int) -> str:
    """Bot ``i``'s name in a pool (``b007``)."""
    return NAMES[i]


def lineups_of(results: Results, as_independent: bool = False) -> list[Lineup]:
    """The fit's input: one :class:`arena.domain.poolfit.Lineup` per pairing of teams, team A
    the one whose sorted names come first, with its duplicate pairs' outcomes
    (``as_independent``: the pairs' matches counted as if they were independent)."""
    counts: dict[tuple[tuple[str, ...], tuple[str, ...]], list[int]] = {}
    pair_won: dict[int, int] = {}
    rows = zip(
        results.a.tolist(),
        results.b.tolist(),
        results.a_won.tolist(),
        results.pair.tolist(),
        strict=True,
    )
    for a_row, b_row, a_won, p in rows:
        ta = tuple(NAMES[i] for i in sorted(a_row))
        tb = tuple(NAMES[i] for i in sorted(b_row))
        flip = tb < ta
        key = (tb, ta) if flip else (ta, tb)
        won = a_won != flip
        entry = counts.setdefault(key, [0, 0, 0, 0, 0])
        entry[0] += 1
        entry[1] += won
        if p >= 0 and not as_independent:
            if p in pair_won:
                entry[2 + pair_won.pop(p) + won] += 1
            else:
                pair_won[p] = int(won)
    return [
        Lineup(a, b, g, w, (l0, l1, l2)) for (a, b), (g, w, l0, l1, l2) in sorted(counts.items())
    ]


def lineup_rows(lineups: Sequence[Lineup]) -> tuple[Array, Array]:
    """The lineups' teams as index rows (for :meth:`World.chance`)."""
    width = max(len(r.team_a) for r in lineups)
    a = np.array([[int(x[1:]) for x in r.team_a] for r in lineups]).reshape(len(lineups), width)
    b = np.array([[int(x[1:]) for x in r.team_b] for r in lineups]).reshape(len(lineups), width)
    return a, b


def online_elo(results: Results, n: int, trace: bool = False) -> Array:
    """Today's online Elo after every match (``trace``: an (matches, n) array of the
    ratings after each match; else the final ratings): from 1500, K = 24, each team at its
    members' mean, every member moved by the team's change (migration 0006)."""
    elo = [START] * n
    history = np.empty((results.matches, n)) if trace else None
    a_rows, b_rows, won = results.a.tolist(), results.b.tolist(), results.a_won.tolist()
    for k in range(results.matches):
        a, b = a_rows[k], b_rows[k]
        mean_a = sum(elo[i] for i in a) / len(a)
        mean_b = sum(elo[i] for i in b) / len(b)
        change = K * (won[k] - 1.0 / (1.0 + 10.0 ** ((mean_b - mean_a) / SCALE)))
        for i in a:
            elo[i] += change
        for i in b:
            elo[i] -= change
        if history is not None:
            history[k] = elo
    return history if history is not None else np.array(elo)


def member_wins(results: Results) -> dict[tuple[str, str], int]:
    """How often each bot's team beat each other bot's: every member of the winning team
    over every member of the losing one (the store's ``pair_stats``, the counts behind
    the old leaderboard's interval)."""
    counts: dict[tuple[str, str], int] = {}
    for a, b, won in zip(
        results.a.tolist(), results.b.tolist(), results.a_won.tolist(), strict=True
    ):
        winners, losers = (a, b) if won else (b, a)
        for w in winners:
            for lo in losers:
                key = (name(w), name(lo))
                counts[key] = counts.get(key, 0) + 1
    return counts


# ---- truth -------------------------------------------------------------------------------


def design(lineups: Sequence[Lineup], n: int) -> tuple[Array, Array]:
    """The lineups' design matrix (+1/k for team A's k members, -1/k for B's) and games."""
    x = np.zeros((len(lineups), n))
    a, b = lineup_rows(lineups)
    rows = np.arange(len(lineups))[:, None]
    np.add.at(x, (rows, a), 1.0 / a.shape[1])
    np.add.at(x, (rows, b), -1.0 / b.shape[1])
    return x, np.array([r.games for r in lineups], dtype=float)


def connected(lineups: Sequence[Lineup]) -> bool:
    """Whether every bot of the lineups is linked to every other by games (else the pool
    falls into groups with no common scale but the prior, and no pseudo-truth)."""
    parent: dict[str, str] = {}

    def root(b: str) -> str:
        while parent.setdefault(b, b) != b:
            b = parent[b]
        return b

    for r in lineups:
        bots = [*r.team_a, *r.team_b]
        for b in bots[1:]:
            parent[root(b)] = root(bots[0])
    return len({root(b) for b in parent}) <= 1


def pseudo_truth(world: World, lineups: Sequence[Lineup]) -> Array:
    """Each bot's true rating against the pool's mean (Elo points, mean 0 over the bots
    that played): the Bradley-Terry strengths that give every bot its true expected wins
    on this schedule, ``X' g (p_true - logistic(X r)) = 0``. Under the model's law, the
    true strengths minus their mean. They maximise a concave function (the expected
    log-likelihood of the true chances), so Newton's method with halved steps finds them;
    the pool must be :func:`connected`."""
    if not connected(lineups):
        raise ValueError("the pool falls into groups that never met")
    x, games = design(lineups, world.n)
    target = world.chance(*lineup_rows(lineups))
    played = np.abs(x).sum(axis=0) > 0
    x = x[:, played]
    n = x.shape[1]

    def objective(r: Array) -> float:
        z = x @ r
        fit = -target * np.logaddexp(0.0, -z) - (1.0 - target) * np.logaddexp(0.0, z)
        return float(np.sum(games * fit) - r.sum() ** 2 / (2 * n))  # the mean is free: 0

    r = np.zeros(n)
    for _ in range(200):
        p = logistic(x @ r)
        grad = x.T @ (games * (target - p)) - r.sum() / n
        hessian = (x.T * (games * p * (1 - p))) @ x + 1.0 / n
        step = np.linalg.solve(hessian, grad)
        t, now = 1.0, objective(r)
        while objective(r + t * step) < now and t > 1e-6:
            t /= 2
        r = r + t * step
        if np.max(np.abs(t * step)) < 1e-10:
            break
    out = np.full(world.n, np.nan)
    out[played] = ELO_PER_NAT * (r - r.mean())
    return out


def pair_truth(world: World) -> Array:
    """(n, n): the true difference between every two bots, the logit of the chance that
    the first beats the second head to head, in Elo points."""
    i, j = np.triu_indices(world.n, 1)
    p = world.chance(i[:, None], j[:, None])
    out = np.zeros((world.n, world.n))
    out[i, j] = elo_of_chance(p)
    out[j, i] = -out[i, j]
    return out


# ---- coverage ----------------------------------------------------------------------------


@dataclass
class Tally:
    """How many intervals held the truth, of how many; misses above and below."""

    hits: int = 0
    total: int = 0
    high: int = 0  # the interval was above the truth
    low: int = 0

    def add(self, estimate: Array, half: Array, truth: Array) -> None:
        ok = np.isfinite(truth) & np.isfinite(half)
        e, h, t = estimate[ok], half[ok], truth[ok]
        self.hits += int(np.sum(np.abs(e - t) <= h))
        self.high += int(np.sum(e - h > t))
        self.low += int(np.sum(e + h < t))
        self.total += len(t)

    def __iadd__(self, other: Tally) -> Tally:
        self.hits += other.hits
        self.total += other.total
        self.high += other.high
        self.low += other.low
        return self

    @property
    def share(self) -> float:
        return self.hits / self.total if self.total else math.nan


@dataclass
class Coverage:
    """Coverage of the pool fit's intervals (:func:`fit_coverage`: the bots', the
    differences of every two bots, of far pairs, and against the pseudo-truths) and of the
    online Elo with its printed Bradley-Terry interval (``old_``, :func:`old_coverage`)."""

    bots: Tally = field(default_factory=Tally)
    pairs: Tally = field(default_factory=Tally)
    far_pairs: Tally = field(default_factory=Tally)  # the pairs' of true differences >= FAR
    model_pairs: Tally = field(default_factory=Tally)  # the pairs' against pseudo-truths
    old_bots: Tally = field(default_factory=Tally)
    old_pairs: Tally = field(default_factory=Tally)
    groups: dict[int, Tally] = field(default_factory=dict)  # the bots', by Bank variant
    pools: int = 0
    unshown: int = 0  # pools where the old interval could not be computed
    disconnected: int = 0  # pools of groups that never met: no truth on one scale, skipped

    def __iadd__(self, other: Coverage) -> Coverage:
        self.bots += other.bots
        self.pairs += other.pairs
        self.far_pairs += other.far_pairs
        self.model_pairs += other.model_pairs
        self.old_bots += other.old_bots
        self.old_pairs += other.old_pairs
        self.pools += other.pools
        self.unshown += other.unshown
        for group, tally in other.groups.items():
            self.groups.setdefault(group, Tally()).__iadd__(tally)
        self.disconnected += other.disconnected
        return self


FAR = 300.0  # Elo points: pairs at least this far apart are also counted apart


def fit_coverage(
    result: Fit,
    n: int,
    truth: Array,
    pairs: Array,
    widen: float = 1.0,
    groups: Array | None = None,
) -> Coverage:
    """Coverage of a fit's intervals, each ``widen`` times as wide as it says: of the
    bots' (against their pseudo-truth), of every two bots' differences (against the
    head-to-head truth; apart, those of pairs :data:`FAR` apart or more), and of the same
    differences against the difference of the two bots' pseudo-truths; with ``groups``
    (a group for every bot), the bots' by group too."""
    out = Coverage(pools=1)
    names = [name(i) for i in range(n)]
    present = np.array([i for i, b in enumerate(names) if b in result.ratings])
    est = np.array([result.ratings[names[i]].elo - 1500.0 for i in present])
    half = np.array([result.ratings[names[i]].half for i in present]) * widen
    out.bots.add(est, half, truth[present])
    if groups is not None:
        for group in np.unique(groups[present]):
            mine = groups[present] == group
            tally = out.groups.setdefault(int(group), Tally())
            tally.add(est[mine], half[mine], truth[present][mine])
    i, j = np.triu_indices(len(present), 1)
    bot = [names[k] for k in present]
    sd = [result.difference_sd(bot[p], bot[q]) for p, q in zip(i, j, strict=True)]
    diff, diff_half = est[i] - est[j], Z95 * np.array(sd) * widen
    head_to_head = pairs[present[i], present[j]]
    out.pairs.add(diff, diff_half, head_to_head)
    far = np.abs(head_to_head) >= FAR
    out.far_pairs.add(diff[far], diff_half[far], head_to_head[far])
    out.model_pairs.add(diff, diff_half, truth[present[i]] - truth[present[j]])
    return out


def old_coverage(
    results: Results, n: int, truth: Array, pairs: Array
) -> tuple[Tally, Tally] | None:
    """Coverage of the leaderboard as it was: the online Elo +/- the Bradley-Terry half
    interval; differences +/- 1.96 that fit's standard error of the difference. None when
    the Bradley-Terry fit has no common scale (groups that never met)."""
    try:
        bt = bradley_terry(member_wins(results))
    except (ValueError, RuntimeError):
        return None
    elo = online_elo(results, n) - START
    bots, differences = Tally(), Tally()
    present = [i for i in range(n) if any(r.player == name(i) for r in bt.ratings)]
    idx = np.array(present)
    half = np.array([(bt.rating(name(i)).high - bt.rating(name(i)).low) / 2 for i in present])
    bots.add(elo[idx], half, truth[idx])
    i, j = np.triu_indices(len(present), 1)
    se = np.array(
        [
            bt.stderr_difference(name(present[p]), name(present[q]))
            for p, q in zip(i, j, strict=True)
        ]
    )
    differences.add(elo[idx[i]] - elo[idx[j]], Z95 * se, pairs[idx[i], idx[j]])
    return bots, differences


@dataclass(frozen=True)
class Setting:
    """One kind of pool: its size, mean games per bot, schedule (``ladder`` or
    ``round-robin``), true strengths (:data:`STRENGTHS`), team size (1 or 2), whether
    matches come as duplicate pairs and the luck of a deal (nats)."""

    size: int
    games: float
    schedule: str = "ladder"
    strengths: str = "normal"
    team_size: int = 1
    duplicate: bool = False
    luck: float = 0.0

    @property
    def kind(self) -> str:
        if self.team_size > 1:
            return f"{self.team_size}x{self.team_size} teams" + (
                " duplicate" if self.duplicate else ""
            )
        return "duplicate" if self.duplicate else "independent"


def schedule(setting: Setting, rng: Rng) -> tuple[Array, Array]:
    """The setting's pairings; duplicate pairs count two matches each."""
    games = setting.games / 2 if setting.duplicate else setting.games
    if setting.schedule == "round-robin":
        if setting.team_size != 1:
            raise ValueError("round robins are of single bots")
        return round_robin(setting.size, games, rng)
    return ladder(setting.size, games, rng, setting.team_size)


def pool_coverage(
    setting: Setting,
    rng: Rng,
    world: World | None = None,
    widen: float = 1.0,
    as_independent: bool = False,
    old: bool = True,
) -> Coverage:
    """Play one pool of the setting (in ``world``, else a :class:`Synthetic` world of
    the setting's strengths and luck), fit it and count its intervals against the truth.
    ``widen`` and ``as_independent`` make deliberately wrong intervals (the checks that
    the measure can fail)."""
    if world is None:
        world = Synthetic(STRENGTHS[setting.strengths](setting.size, rng), setting.luck)
    results = play(world, *schedule(setting, rng), rng, setting.duplicate)
    rows = lineups_of(results, as_independent)
    if not connected(rows):
        return Coverage(disconnected=1)
    truth = pseudo_truth(world, rows)
    pairs = pair_truth(world)
    groups = world.variant if isinstance(world, Bank) else None
    out = fit_coverage(fit(rows), world.n, truth, pairs, widen, groups)
    if old:
        shown = old_coverage(results, world.n, truth, pairs)
        if shown is None:
            out.unshown = 1
        else:
            out.old_bots, out.old_pairs = shown
    return out


def coverage(settings: Iterable[Setting], pools: int, seed: int, **options: Any) -> Coverage:
    """Coverage over ``pools`` pools of every setting, from a fixed seed."""
    total = Coverage()
    for k, setting in enumerate(settings):
        rng = np.random.default_rng([seed, k])
        for _ in range(pools):
            total += pool_coverage(setting, rng, **options)
    return total


# ---- games to settle ---------------------------------------------------------------------


@dataclass(frozen=True)
class Settling:
    """How many games a newcomer played before its half interval was at most 50 Elo
    (None: not within the limit), and its error then (its rating minus its truth)."""

    games: int | None
    error: float
    half: float


def _first_settled(
    measure: Callable[[int], tuple[float, float]], steps: Sequence[int], coarse: int
) -> Settling:
    """The first of ``steps`` (games played) at which ``measure(games) -> (half, error)``
    is settled: every ``coarse``-th step first, then the steps just before the first
    settled one."""
    first = None
    for k in range(coarse - 1, len(steps), coarse):
        if measure(steps[k])[0] <= SETTLED_HALF:
            first = k
            break
    if first is None:
        return Settling(None, math.nan, math.nan)
    for k in range(max(0, first - coarse + 1), first + 1):
        half, error = measure(steps[k])
        if half <= SETTLED_HALF:
            return Settling(steps[k], error, half)
    raise AssertionError("unreachable: the coarse step was settled")


def games_to_settle(
    rng: Rng,
    duplicate: bool,
    size: int = 20,
    settled_games: int = 200,
    luck: float = 1.5,
    limit: int = 800,
) -> tuple[Settling, Settling]:
    """A newcomer joins a settled pool (``size`` bots of N(0, 200) strengths, each with
    ``settled_games`` round-robin games, the newcomer's strength drawn the same way) and
    plays random opponents of it, one match (or one duplicate pair) at a time: when is
    its half interval at most 50 Elo, for the pool fit and for the online Elo's printed
    interval? Duplicate pools have ``luck`` (nats) per deal; the games are the
    newcomer's matches (a pair counts two)."""
    world = Synthetic(normal_strengths(size + 1, rng), luck if duplicate else 0.0)
    a, b = round_robin(size, settled_games / 2 if duplicate else settled_games, rng)
    settled = play(world, a, b, rng, duplicate)
    per = 2 if duplicate else 1
    rounds = limit // per
    opponents = rng.integers(size, size=rounds)
    newcomer = np.full(rounds, size)
    seated = rng.random(rounds) < 0.5  # which side the newcomer is on
    a_new = np.where(seated, newcomer, opponents)[:, None]
    b_new = np.where(seated, opponents, newcomer)[:, None]
    joined = settled + play(world, a_new, b_new, rng, duplicate)
    steps = [per * (k + 1) for k in range(rounds)]
    everyone = joined.head(settled.matches + limit)
    truth = pseudo_truth(world, lineups_of(everyone))[size]
    me = name(size)

    def new(games: int) -> tuple[float, float]:
        r = fit(lineups_of(joined.head(settled.matches + games))).ratings[me]
        return r.half, r.elo - 1500.0 - truth

    def old(games: int) -> tuple[float, float]:
        part = joined.head(settled.matches + games)
        try:
            bt = bradley_terry(member_wins(part)).rating(me)
        except (ValueError, RuntimeError):
            return math.inf, math.nan
        return (bt.high - bt.low) / 2, float(online_elo(part, size + 1)[size]) - START - truth

    coarse = max(1, 10 // per)
    return _first_settled(new, steps, coarse), _first_settled(old, steps, coarse)


# ---- wander ------------------------------------------------------------------------------


def wander(
    rng: Rng, size: int = 16, matches: int = 4000, window: int = 1000, every: int = 10
) -> tuple[Array, Array]:
    """Fixed bots (N(0, 200) strengths) on a long ladder of ``matches`` random pairings:
    over its last ``window`` matches, how far each bot's rating swings (max - min, Elo
    points), for the online Elo (after every match) and for the pool fit of all results
    so far (refitted every ``every`` matches)."""
    world = Synthetic(normal_strengths(size, rng))
    results = play(world, *ladder(size, 2 * matches / size, rng, spread=1.0), rng)
    history = online_elo(results, size, trace=True)[-window:]
    online = history.max(axis=0) - history.min(axis=0)
    fits = []
    for end in range(results.matches - window, results.matches + 1, every):
        ratings = fit(lineups_of(results.head(end))).ratings
        fits.append([ratings[name(i)].elo for i in range(size)])
    fitted = np.array(fits)
    return online, fitted.max(axis=0) - fitted.min(axis=0)


# ---- the house bots ----------------------------------------------------------------------


class EpsilonBot:
    """The heuristic house bot, playing a uniformly random legal action instead with
    probability ``eps``: a ladder of strengths between the heuristic (0) and the random
    bot (1)."""

    def __init__(self, eps: float, seed: int | None = None) -> None:
        from arena.bots import HeuristicBot

        self.name = f"eps{round(100 * eps)}"
        self.eps = eps
        self.rng = random.Random(seed)
        self.heuristic = HeuristicBot(seed)

    def decide(self, view: Any) -> Any:
        if self.eps and self.rng.random() < self.eps:
            return self.rng.choice(view.legal)
        return self.heuristic.decide(view)


MC_SAMPLES = 4  # the mc house bot's drawn states per decision in the ladder (fast, seeded)

HOUSE_LADDER = ("random", "eps75", "eps50", "eps25", "heuristic", f"mc{MC_SAMPLES}")
"""The house bots of the real pools, weakest first: the random bot, the heuristic with a
random action three times in four, half the time and a quarter of the time, the heuristic,
and the mc bot drawing :data:`MC_SAMPLES` states per decision (a fixed count and no time
limit, so that its play does not depend on the machine)."""


def house_player(variant: str, seed: int) -> Any:
    """A new player of a :data:`HOUSE_LADDER` variant."""
    from arena.bots import MonteCarloBot, UniformBot

    if variant == "random":
        return UniformBot(seed)
    if variant == "heuristic":
        return EpsilonBot(0.0, seed)
    if variant.startswith("eps"):
        return EpsilonBot(int(variant[3:]) / 100, seed)
    if variant.startswith("mc"):
        return MonteCarloBot(seed, budget_ms=3_600_000, max_samples=int(variant[2:]))
    raise ValueError(f"unknown house variant {variant!r}")


def duplicate_pair(first: str, second: str, seed: int) -> tuple[bool, bool]:
    """A real duplicate pair of paulista 1x1 matches on one seed (the same deals, as
    arena/domain/tournament.py plans them): ``first`` on team 0, then the twin with the seats
    exchanged. Whether ``first`` won each."""
    from arena.engine import Match, Rules, view

    won = []
    for half, seats in enumerate(((first, second), (second, first))):
        match = Match(Rules(), seed=seed)
        players = [house_player(v, seed * 4 + 2 * half + s) for s, v in enumerate(seats)]
        while not match.is_over:
            seat = match.to_act
            if seat is None:
                raise RuntimeError("a seeded match stopped between hands")
            match.apply(players[seat].decide(view(match, seat)))
        if match.outcome is None:
            raise RuntimeError("the match ended without an outcome")
        won.append(match.outcome.winner == half)  # first sits on team 0, then on team 1
    return won[0], won[1]


def play_duplicates(first: str, second: str, seeds: Sequence[int]) -> list[tuple[bool, bool]]:
    """A chunk of :func:`duplicate_pair` (a job for a worker process)."""
    return [duplicate_pair(first, second, s) for s in seeds]


def house_bank(
    pairs: int, workers: int = 1, variants: Sequence[str] = HOUSE_LADDER, seed: int = 0
) -> dict[tuple[int, int], Array]:
    """``pairs`` real duplicate pairs for every two variants (and every variant against
    itself), keyed by their indices in ``variants``, each pair's seed its own."""
    jobs = []
    chunk = 50
    for u in range(len(variants)):
        for v in range(u, len(variants)):
            base = seed + 1_000_000 * (u * len(variants) + v)
            for start in range(0, pairs, chunk):
                jobs.append(
                    (
                        (u, v),
                        variants[u],
                        variants[v],
                        range(base + start, base + min(pairs, start + chunk)),
                    )
                )
    out: dict[tuple[int, int], list[tuple[bool, bool]]] = {}
    if workers <= 1:
        for key, f, s, seeds in jobs:
            out.setdefault(key, []).extend(play_duplicates(f, s, seeds))
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # spawn, not fork, as arena/bots/evaluate.py: the parent may hold threads
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = [
                (key, pool.submit(play_duplicates, f, s, list(seeds))) for key, f, s, seeds in jobs
            ]
            for key, future in futures:
                out.setdefault(key, []).extend(future.result())
    return {key: np.array(rows, dtype=bool) for key, rows in out.items()}


def luck_of(both: float, neither: float, share: float) -> float:
    """The luck (nats) of the per-deal model that gives a duplicate pair the observed
    chances of being won twice (``both``) and lost twice (``neither``) by a side whose
    chance of one match is ``share``: the spread of a deal's luck that real truco shows.
    Bisection on the split share (it grows with the luck for a given share)."""
    split = 1.0 - both - neither
    lo, hi = 0.0, 8.0
    for _ in range(60):
        mid = (lo + hi) / 2
        d = _difference_for(share, mid)
        b, n = pair_chances(d, mid)
        lo, hi = (mid, hi) if 1.0 - float(b) - float(n) < split else (lo, mid)
    return (lo + hi) / 2


def _difference_for(share: float, luck: float) -> float:
    """The strength difference (Elo) whose marginal chance under ``luck`` is ``share``."""
    lo, hi = -3000.0, 3000.0
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if float(marginal_chance(mid, luck)) < share else (lo, mid)
    return (lo + hi) / 2
