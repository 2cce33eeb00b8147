"""Rating maths: the Elo difference of one pairing (exact, from the binomial), the scale's
constants, and the maximum-likelihood Bradley-Terry fit of one tournament run's results
alone (a run's **performance**, shown in its table). A pool's **rating**, shown on the
leaderboard, is arena/domain/poolfit.py's fit of all the pool's results."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

# The fit's matrices are a few hundred wide at most: BLAS threads only fight the server's
# own threads for the cores (a 200-bot fit took 0.9 s with them, 0.15 s without).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# numpy is imported by the fit's functions alone: the Elo of a pairing is what a bot
# author's install (no numpy: pyproject.toml's server extra has it) needs of this module.
if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[Any]  # players by players
    Vector = npt.NDArray[np.float64]

Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class EloDifference:
    """How much stronger one side played than the other, on the Elo scale. After a clean
    sweep there is no finite estimate and one bound only: ``elo`` and the open end of the
    interval are infinite (+inf when the first side won every game)."""

    elo: float
    low: float  # the 95% interval
    high: float
    games: int
    score: float  # the first side's share of the games, 0 to 1


def elo_from_score(p: float) -> float:
    """The Elo difference whose expected score is ``p`` (0 < p < 1)."""
    return -400.0 * math.log10(1.0 / p - 1.0)


def score_from_elo(d: float) -> float:
    """The expected score of a player ``d`` Elo points above its opponent."""
    return 1 / (1 + 10 ** (-d / SCALE))


def elo_difference(wins: int, games: int) -> EloDifference:
    """The Elo difference implied by ``wins`` out of ``games`` (no draws in truco): the
    score's log-odds (maximum likelihood), with an exact 95% interval (Clopper-Pearson: the
    binomial itself, no normal approximation) mapped to Elo through the same logistic curve,
    so that it means what it says for one game as for a thousand. After a clean sweep no
    finite difference fits best: the estimate and the interval's upper end are +inf, and
    its lower end is the one-sided 95% bound, the difference under which winning every game
    is 5% likely (a score of 0.05 ** (1 / games)). No wins at all, the mirror image."""
    if games <= 0 or not 0 <= wins <= games:
        raise ValueError(f"need 0 <= wins <= games and games > 0, not {wins} of {games}")
    if wins in (0, games):
        bound = elo_from_score(ALPHA ** (1 / games))
        if wins == games:
            return EloDifference(math.inf, bound, math.inf, games, 1.0)
        return EloDifference(-math.inf, -math.inf, -bound, games, 0.0)
    low, high = _clopper_pearson(wins, games)
    return EloDifference(elo_from_score(wins / games), low, high, games, wins / games)


def elo_text(d: EloDifference) -> str:
    """An Elo difference as the commands print it: ``+120 (95%: +30 to +215)``; after a
    clean sweep, the one bound there is: ``> +183 (95%, every game won)``."""
    if d.elo == math.inf:
        return f"> {_signed(d.low)} (95%, every game won)"
    if d.elo == -math.inf:
        return f"< {_signed(d.high)} (95%, every game lost)"
    return f"{_signed(d.elo)} (95%: {_signed(d.low)} to {_signed(d.high)})"


def _signed(x: float) -> str:
    return f"{round(x):+d}"


ALPHA = 0.05  # 95% intervals
BISECTION = 1e-9  # how close, in Elo points, the exact bounds are found


def _clopper_pearson(wins: int, games: int) -> tuple[float, float]:
    """For 0 < wins < games, the exact 95% interval of the Elo difference: from the least
    difference under which ``wins`` or more of ``games`` is 2.5% likely to the greatest
    under which ``wins`` or fewer is."""
    log_ways = [
        math.lgamma(games + 1) - math.lgamma(k + 1) - math.lgamma(games - k + 1)
        for k in range(games + 1)
    ]

    def chance(elo: float, ks: range) -> float:
        x = elo / _ELO_PER_NAT  # the log-odds of a win, in nats
        log_win, log_loss = -_softplus(-x), -_softplus(x)
        return math.fsum(math.exp(log_ways[k] + k * log_win + (games - k) * log_loss) for k in ks)

    def least(holds: Callable[[float], bool]) -> float:
        """The least difference at which ``holds`` (false below it, true above) is true.
        Both bounds lie within ``reach``: a score of 1 / (100 games) or its mirror is
        beyond either, even for one win or one loss."""
        reach = SCALE * math.log10(100 * games)
        lo, hi = -reach, reach
        while hi - lo > BISECTION:
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if holds(mid) else (mid, hi)
        return hi

    low = least(lambda elo: chance(elo, range(wins, games + 1)) >= ALPHA / 2)
    high = least(lambda elo: chance(elo, range(wins + 1)) <= ALPHA / 2)
    return low, high


# --- The scale ------------------------------------------------------------------------------

START = 1500.0  # the rating of a bot that has not played: the pool's mean (arena/domain/poolfit.py)
SCALE = 400.0  # Elo points for a factor of 10 in the odds


# A rating whose 95% interval reaches further than this on either side may be off by more
# than a class of strength (100 Elo: the stronger side wins 64%), so the pages and the CLI
# mark it as unsettled, whatever its number of games.
WIDE_HALF = 100.0


def is_wide(half: float | None) -> bool:
    """Whether a rating with this half 95% interval is unsettled: None (no interval yet)
    is."""
    return half is None or half > WIDE_HALF


# --- Bradley-Terry --------------------------------------------------------------------------
#
# Model: P(i beats j) = 1 / (1 + 10 ** ((r_j - r_i) / SCALE)), i.e. Bradley-Terry with
# strengths on the Elo scale (the online Elo's expected score).
# Convention: the ratings' mean is anchored at START, so a rating reads "this many points above
# the field's average"; intervals are relative to that anchor (covariance of the maximum-
# likelihood estimate under the constraint sum(r) = n * START, the pseudo-inverse of the Fisher
# information, which for this model equals the observed information).
# Existence: the maximum-likelihood estimate is finite iff the "beat" graph is strongly
# connected (Zermelo 1929; Ford 1957). When it is not (someone swept, or one group beat another
# group), a prior is added: one virtual drawn game (half a win each way) for every pair of
# players that met, as BayesElo does. Exact data are never altered when the estimate exists.
# Players who are not connected by games at all cannot be compared and raise ValueError.
# Likelihood of superiority: LOS(a, b) = Phi((r_a - r_b) / se(r_a - r_b)), from the model's
# rating difference and its standard error (so it uses every game, not only head-to-head).

PRIOR_GAMES = 1.0  # virtual games, scored as draws, per pair that met (only when needed)
TOLERANCE = 1e-12  # convergence: largest step in natural-log strength (~1.7e-10 Elo)
MAX_ITERATIONS = 200  # Newton iterations; line-searched Newton needs ~10 on real data
_ELO_PER_NAT = SCALE / math.log(10.0)  # natural-log strength to Elo points


@dataclass(frozen=True, slots=True)
class PlayerRating:
    """One player's Bradley-Terry rating on the Elo scale, with its 95% interval."""

    player: str
    elo: float
    low: float
    high: float
    wins: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.losses


@dataclass(frozen=True, slots=True)
class BradleyTerry:
    """Ratings for a set of results, strongest first."""

    ratings: tuple[PlayerRating, ...]
    prior: bool  # whether the virtual draws were needed for finite ratings
    iterations: int
    covariance: Mapping[tuple[str, str], float]  # of the ratings, in Elo points squared

    def rating(self, player: str) -> PlayerRating:
        for r in self.ratings:
            if r.player == player:
                return r
        raise KeyError(player)

    def stderr_difference(self, a: str, b: str) -> float:
        """Standard error of ``elo(a) - elo(b)`` in Elo points."""
        c = self.covariance
        return math.sqrt(max(c[a, a] + c[b, b] - 2.0 * c[a, b], 0.0))

    def los(self, a: str, b: str) -> float:
        """Likelihood of superiority: the probability that ``a`` is stronger than ``b``."""
        diff = self.rating(a).elo - self.rating(b).elo
        se = self.stderr_difference(a, b)
        if se == 0.0:
            return 0.5 if diff == 0.0 else float(diff > 0.0)
        return 0.5 * (1.0 + math.erf(diff / (se * math.sqrt(2.0))))


def win_counts(results: Iterable[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """Turn (winner, loser) pairs into counts: ``counts[a, b]`` is how often a beat b."""
    counts: dict[tuple[str, str], int] = {}
    for winner, loser in results:
        counts[winner, loser] = counts.get((winner, loser), 0) + 1
    return counts


def bradley_terry(wins: Mapping[tuple[str, str], int], players: Iterable[str] = ()) -> BradleyTerry:
    """Maximum-likelihood Bradley-Terry ratings on the Elo scale, mean anchored at START.

    ``wins[a, b]`` is how often a beat b; ``players`` may name players in addition to those
    in ``wins`` (they must have played, or ValueError)."""
    import numpy as np

    names = sorted({p for pair in wins for p in pair} | set(players))
    index = {p: i for i, p in enumerate(names)}
    n = len(names)
    if n == 0:
        return BradleyTerry((), False, 0, {})
    w = np.zeros((n, n))
    for (a, b), count in wins.items():
        if a == b or count < 0:
            raise ValueError(f"bad result: {a} beat {b} {count} times")
        w[index[a], index[b]] += count
    won, lost = w.sum(axis=1), w.sum(axis=0)
    prior = not _strongly_connected(w)
    if prior:
        met = (w + w.T) > 0
        w = w + np.where(met, PRIOR_GAMES / 2, 0.0)
        if not _strongly_connected(w):
            raise ValueError("some players are not connected to the others by any games")
    theta, iterations = _newton(w)
    cov = np.linalg.inv(_information(w, theta)) - 1.0 / n
    half = Z95 * _ELO_PER_NAT * np.sqrt(np.maximum(np.diag(cov), 0.0))
    ratings = []
    for i, p in enumerate(names):
        elo = START + _ELO_PER_NAT * float(theta[i])
        h = float(half[i])
        ratings.append(PlayerRating(p, elo, elo - h, elo + h, int(won[i]), int(lost[i])))
    ratings.sort(key=lambda r: (-r.elo, r.player))
    scaled = _ELO_PER_NAT**2 * cov
    covariance = {(a, b): float(scaled[index[a], index[b]]) for a in names for b in names}
    return BradleyTerry(tuple(ratings), prior, iterations, covariance)


def _strongly_connected(w: Matrix) -> bool:
    """Whether every player reaches every other by wins, and is reached by them."""
    import numpy as np

    n = len(w)
    edges = w > 0

    def reach(adjacent: Matrix) -> int:
        seen = np.zeros(n, dtype=bool)
        seen[0] = True
        frontier = seen.copy()
        while frontier.any():
            frontier = adjacent[frontier].any(axis=0) & ~seen
            seen |= frontier
        return int(seen.sum())

    return n <= 1 or (reach(edges) == n and reach(edges.T) == n)


def _softplus(x: float) -> float:
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


def _log_likelihood(w: Matrix, theta: Vector) -> float:
    import numpy as np

    # a beats b with probability 1 / (1 + e^(theta_b - theta_a)): minus log is a softplus
    return -float(np.sum(w * np.logaddexp(0.0, theta[None, :] - theta[:, None])))


def _win_probabilities(theta: Vector) -> Matrix:
    """``p[i, j]``: the chance that i beats j."""
    import numpy as np

    return 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))


def _information(w: Matrix, theta: Vector) -> Matrix:
    """Fisher information plus J/n: invertible on a connected graph, and its inverse minus
    J/n is the covariance under the sum-to-zero constraint (pseudo-inverse of a Laplacian)."""
    import numpy as np

    p = _win_probabilities(theta)
    v = (w + w.T) * p * (1.0 - p)
    m = -v
    np.fill_diagonal(m, v.sum(axis=1) - np.diag(v))
    return m + 1.0 / len(w)


def _newton(w: Matrix) -> tuple[Vector, int]:
    """Maximise the log-likelihood in natural-log strengths summing to 0 (line-searched
    Newton; the objective is concave, so this converges from 0)."""
    import numpy as np

    theta = np.zeros(len(w))
    for iteration in range(1, MAX_ITERATIONS + 1):
        grad = w.sum(axis=1) - ((w + w.T) * _win_probabilities(theta)).sum(axis=1)
        step = np.linalg.solve(_information(w, theta), grad)
        current = _log_likelihood(w, theta)
        t = 1.0
        while True:
            trial = theta + t * step
            if _log_likelihood(w, trial) >= current or t < 1e-12:
                break
            t /= 2.0
        theta = trial
        if float(np.max(np.abs(t * step), initial=0.0)) < TOLERANCE:
            return theta, iteration
    raise RuntimeError(f"Bradley-Terry did not converge in {MAX_ITERATIONS} iterations")
