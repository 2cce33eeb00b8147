"""Sequential probability ratio tests on pairs of matches: is NEW stronger than BASE?

A pair is two matches on the same deals with the seats exchanged; for NEW it scores 0
(it lost both), 1 (one each) or 2 (it won both). Truco has no draws, so the pentanomial
model that chess testers use for game pairs (fishtest, fastchess) reduces to these three
outcomes: the pentanomial counts [LL, LD, WL+DD, DW, WW] are [lost both, 0, split, 0,
won both]. Modelling pairs rather than single matches uses what duplicate deals buy: a
pair that splits tells little, so the variance the test sees is the pairs', smaller
than two independent matches' would be, and the test stops sooner.

The test is the generalized SPRT of the established tools, in **logistic Elo**:

- H0: NEW's expected score against BASE is ``L(elo0)``, H1: it is ``L(elo1)``, with
  ``L(x) = 1 / (1 + 10^(-x/400))``, the Elo model whose ratings the arena shows (a bound
  reads as the difference the leaderboard would show). Normalized Elo, the other choice
  of fishtest, was made to keep bounds meaningful as the draw ratio changes; without
  draws it buys little and reads less plainly.
- The log-likelihood ratio compares the maximum-likelihood distributions of pair
  outcomes whose mean is each hypothesis's score (Van den Bergh's MLE under a
  constraint on the expectation: a secular equation in one unknown, solved here by
  bisection). Empty outcomes count 0.001, as fishtest and fastchess do, so an LLR is
  defined from the first pair.
- Stop at H1 when the LLR reaches ``log((1 - beta) / alpha)``, at H0 when it falls to
  ``log(beta / (1 - alpha))``.

For the same counts and bounds the LLR equals fishtest's ``LLR_logistic`` and
fastchess's logistic SPRT (tests/test_sprt.py holds reference cases from both).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from arena.domain.rating import elo_from_score, score_from_elo
from arena.errors import Invalid

EMPTY = 1e-3  # the count an empty outcome is given (fishtest's and fastchess's)
Z95 = 1.959963984540054  # the two-sided 95% quantile of the normal distribution


@dataclass(frozen=True, slots=True)
class Room:
    """How much testing one owner may have going at once: tests running, and their
    matches (each test's most, its max_games) in all."""

    tests: int
    games: int


OWNER_ROOM = Room(tests=2, games=4000)
"""What a bot's own token may have running (the organizer's tests have no such bound):
enough to compare two versions while a third waits, not enough to crowd the workers."""


@dataclass(frozen=True, slots=True)
class Sprt:
    """The hypotheses (logistic Elo of NEW over BASE) and the error rates asked for."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05  # the chance of accepting H1 when H0 holds
    beta: float = 0.05  # the chance of accepting H0 when H1 holds

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise Invalid(f"elo0 must be below elo1, not {self.elo0} and {self.elo1}")
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 0.5:
                raise Invalid(f"{name} must be between 0 and 0.5, not {getattr(self, name)}")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, pairs: Sequence[int]) -> float:
        """The log-likelihood ratio of H1 to H0 after pairs counted as [NEW lost both,
        split, NEW won both]."""
        lost, split, won = pairs
        return float(llr_logistic(self.elo0, self.elo1, (lost, 0, split, 0, won)))

    def verdict(self, llr: float) -> str | None:
        """ "H1" (NEW is better by elo1), "H0" (not better than elo0), or None: go on."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None


def parse_test(text: str, alpha: float = 0.05, beta: float = 0.05) -> Sprt:
    """A test from ``elo0=0,elo1=10`` (alpha and beta may be given there too)."""
    fields: dict[str, float] = {"alpha": alpha, "beta": beta}
    for part in text.split(","):
        name, eq, value = part.strip().partition("=")
        if not eq or name not in ("elo0", "elo1", "alpha", "beta"):
            raise Invalid(f"an SPRT is elo0=X,elo1=Y (alpha, beta optional), not {text!r}")
        try:
            fields[name] = float(value)
        except ValueError:
            raise Invalid(f"{name} must be a number, not {value!r}") from None
        if not math.isfinite(fields[name]):
            raise Invalid(f"{name} must be a finite number, not {value!r}")
    if "elo0" not in fields or "elo1" not in fields:
        raise Invalid(f"an SPRT needs elo0 and elo1, as in elo0=0,elo1=10, not {text!r}")
    return Sprt(**fields)


@lru_cache(maxsize=65536)
def llr_logistic(elo0: float, elo1: float, counts: tuple[float, ...]) -> float:
    """The generalized LLR of expected score ``L(elo1)`` against ``L(elo0)`` for outcome
    counts: of games (loss, draw, win) or of pairs (pentanomial, LL to WW), the outcomes
    scoring evenly from 0 to 1."""
    counts = tuple(c if c else EMPTY for c in counts)
    total = sum(counts)
    values = [k / (len(counts) - 1) for k in range(len(counts))]
    seen = [c / total for c in counts]
    p0, p1 = (_constrained(values, seen, score_from_elo(elo)) for elo in (elo0, elo1))
    return total * sum(
        q * (math.log(b) - math.log(a)) for q, a, b in zip(seen, p0, p1, strict=True)
    )


def _constrained(values: list[float], seen: list[float], s: float) -> list[float]:
    """The distribution of greatest likelihood for ``seen`` among those whose mean is
    ``s``: ``seen_i / (1 + x (a_i - s))``, with x the root of the secular equation
    ``sum seen_i (a_i - s) / (1 + x (a_i - s)) = 0`` (decreasing in x between its poles)."""
    shifted = [a - s for a in values]
    low, high = -1 / max(shifted), -1 / min(shifted)

    def f(x: float) -> float:
        return sum(q * d / (1 + x * d) for q, d in zip(seen, shifted, strict=True))

    low, high = low + 1e-12 * (high - low), high - 1e-12 * (high - low)
    for _ in range(200):  # halving a finite interval: far past double precision
        mid = (low + high) / 2
        if mid in (low, high):
            break
        if f(mid) > 0:
            low = mid
        else:
            high = mid
    x = (low + high) / 2
    return [q / (1 + x * d) for q, d in zip(seen, shifted, strict=True)]


def estimate(pairs: Sequence[int]) -> tuple[float, float, float] | None:
    """NEW's Elo over BASE from pairs [lost both, split, won both], with its 95%
    interval (the pairs' own variance, so the deals' correlation is counted); None
    before any pair, and infinite ends while one side has won every pair."""
    lost, split, won = pairs
    n = lost + split + won
    if n == 0:
        return None
    mean = (split * 0.5 + won) / n  # NEW's score a match
    var = (lost * mean**2 + split * (0.5 - mean) ** 2 + won * (1 - mean) ** 2) / n
    half = Z95 * math.sqrt(var / n)

    def elo(score: float) -> float:
        return math.inf if score >= 1 else -math.inf if score <= 0 else elo_from_score(score)

    return elo(mean), elo(mean - half), elo(mean + half)


@dataclass
class Sequential:
    """A test as its pairs come in, in any order: each pair counted once both its matches
    have ended; the LLR and the verdict after each. Matches ending after the verdict do
    not count: the test stopped there."""

    test: Sprt
    pairs: list[int] = field(default_factory=lambda: [0, 0, 0])
    llr: float = 0.0
    verdict: str | None = None
    _halves: dict[int, bool] = field(default_factory=dict)  # pair -> NEW won its first

    def add(self, pair: int, new_won: bool) -> bool:
        """Count a match of ``pair``; True once the test is decided."""
        if self.verdict is None:
            if pair not in self._halves:
                self._halves[pair] = new_won
                return False
            self.pairs[self._halves.pop(pair) + new_won] += 1
            self.llr = self.test.llr(self.pairs)
            self.verdict = self.test.verdict(self.llr)
        return self.verdict is not None

    def to_json(self) -> dict[str, object]:
        elo, low, high = shown_estimate(self.pairs)
        return {
            "elo0": self.test.elo0, "elo1": self.test.elo1,
            "alpha": self.test.alpha, "beta": self.test.beta,
            "pairs": sum(self.pairs), "lost_both": self.pairs[0], "split": self.pairs[1],
            "won_both": self.pairs[2], "llr": round(self.llr, 3),
            "lower": round(self.test.lower, 3), "upper": round(self.test.upper, 3),
            "elo": elo, "elo_low": low, "elo_high": high,
            "verdict": self.verdict,
        }  # fmt: skip


def shown_estimate(pairs: Sequence[int]) -> tuple[float | None, float | None, float | None]:
    """:func:`estimate` as shown: rounded, None before any pair and where infinite (JSON
    has no infinity)."""
    elo, low, high = estimate(pairs) or (math.inf, math.inf, math.inf)

    def shown(value: float) -> float | None:
        return round(value, 1) if math.isfinite(value) else None

    return shown(elo), shown(low), shown(high)
