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
fastchess's logistic SPRT (tests/domain/test_sprt.py holds reference cases from both).
"""

from __future__ import annotations

import math
from collections.abc import Sequence, Set
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

from arena.domain.clock import TimeControl
from arena.domain.matches import NewMatch, sprt_match_id
from arena.domain.rating import elo_from_score, score_from_elo
from arena.domain.tournament import deal_seed, seatings
from arena.engine import Rules, quoted
from arena.errors import Exhausted, Invalid

EMPTY = 1e-3  # the count an empty outcome is given (fishtest's and fastchess's)
MAX_GAMES = 2000  # a test's matches at most, unless it asks for another number
Z95 = 1.959963984540054  # the two-sided 95% quantile of the normal distribution


@dataclass(frozen=True, slots=True)
class Room:
    """How much testing one owner may have going at once: tests running, and their
    matches (each test's most, its max_games) in all."""

    tests: int
    games: int

    def refuse(self, owner: str, bot: str, tests: int, running: int, games: int) -> None:
        """Exhausted when the owner of ``bot`` (``owner``; none: the bot is its own),
        with ``tests`` running of ``running`` matches in all, may not add one of
        ``games``."""
        who = f"owner {quoted(owner)}" if owner else f"bot {quoted(bot)}"
        if tests + 1 > self.tests:
            raise Exhausted(
                f"{who} has {tests} tests running, the most at once: wait for one to decide "
                "(arena test show ID), or ask the organizer"
            )
        if running + games > self.games:
            raise Exhausted(
                f"{who} has tests of {running} matches running; with {games} more that is "
                f"over the {self.games} allowed at once: ask for fewer (--max-games) or wait"
            )


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
    interval (the pairs' own variance, so the deals' correlation is counted); None while
    no pair is decided (none played, or every one split: the deals decided them, and an
    interval of no width would claim to know), and infinite ends while one side has won
    every pair."""
    lost, split, won = pairs
    n = lost + split + won
    if lost + won == 0:
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
    """:func:`estimate` as shown: rounded, None while no pair is decided and where
    infinite (JSON has no infinity)."""
    elo, low, high = estimate(pairs) or (math.inf, math.inf, math.inf)

    def shown(value: float) -> float | None:
        return round(value, 1) + 0.0 if math.isfinite(value) else None  # + 0.0: no -0.0

    return shown(elo), shown(low), shown(high)


# ---- a test in the arena: what it plays, and each step on ---------------------------------


@dataclass(frozen=True, slots=True)
class Asked:
    """What a test is asked to play."""

    rules: Rules
    clock: TimeControl
    max_games: int = MAX_GAMES
    at_once: int = 8
    rated: bool = False


@dataclass(frozen=True, slots=True)
class SprtMatch:
    """A match of a test as its step sees it: its number in the test (from 1: matches
    2k+1 and 2k+2 are pair k), its status, the team credited with it (None: nobody yet,
    or nobody at all), the bot row in its first seat (NEW's team is that seat's when it
    is NEW) and when it finished."""

    number: int
    status: str
    winner: int | None
    first: int
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class Tally:
    """Where a test stands: its pairs counted (NEW lost both, split, NEW won both), the
    LLR after them, and how many matches it has made."""

    pairs: tuple[int, int, int]
    llr: float
    scheduled: int


@dataclass(frozen=True, slots=True)
class Counted:
    """A pair counted by a step: its place, NEW's wins in it (0, 1 or 2), its number
    among the test's counted pairs and the LLR after it."""

    pair: int
    score: int
    number: int
    llr: float


@dataclass(frozen=True, slots=True)
class Step:
    """What a step does: the pairs it counts, where the test stands then, its verdict
    (None: it runs on; "undecided": out of matches) and the pairs it makes next."""

    counted: list[Counted]
    tally: Tally
    verdict: str | None
    make: list[int]


def step(
    test: Sprt,
    tally: Tally,
    matches: Sequence[SprtMatch],
    counted: Set[int],
    new_id: int,
    at_once: int,
    max_games: int,
) -> Step:
    """Count the pairs not yet ``counted`` whose matches are both recorded, in the order
    they ended, until the evidence decides; then, while the test runs, the next pairs to
    make: as many as ``at_once`` leaves room for among the matches still playing, up to
    ``max_games`` in all."""
    pairs = list(tally.pairs)
    llr, verdict = tally.llr, None
    out: list[Counted] = []
    for pair, score in ended_pairs(matches, new_id, counted):
        pairs[score] += 1
        llr = test.llr(pairs)
        out.append(Counted(pair, score, len(counted) + len(out) + 1, llr))
        verdict = test.verdict(llr)
        if verdict is not None:
            break
    playing = sum(m.status not in ("finished", "failed") for m in matches)
    scheduled = tally.scheduled
    make = []
    while verdict is None and playing + 2 <= at_once and scheduled < max_games:
        make.append(scheduled // 2)
        scheduled += 2
        playing += 2
    if verdict is None and playing == 0 and scheduled >= max_games:
        verdict = "undecided"
    return Step(out, Tally((pairs[0], pairs[1], pairs[2]), llr, scheduled), verdict, make)


def ended_pairs(
    matches: Sequence[SprtMatch], new_id: int, counted: Set[int]
) -> list[tuple[int, int]]:
    """The pairs not yet counted whose two matches are recorded, in the order their
    second match ended: each with NEW's matches won (0, 1 or 2), as credited (a match
    NEW's bot was absent from is lost: arena/domain/absence.py). A pair with a failed
    match, or one that both sides forfeited (nobody credited), is never counted."""
    by_pair: dict[int, list[SprtMatch]] = {}
    for m in matches:
        by_pair.setdefault((m.number - 1) // 2, []).append(m)
    ended = []
    for pair, both in by_pair.items():
        if pair in counted or len(both) < 2 or any(m.status != "finished" for m in both):
            continue
        ends = [m.finished_at for m in both if m.finished_at is not None]
        if any(m.winner is None for m in both) or len(ends) < 2:
            continue
        won = sum(m.winner == (0 if m.first == new_id else 1) for m in both)
        ended.append((max(ends), pair, won))
    return [(pair, won) for _, pair, won in sorted(ended)]


def pair_matches(
    test_id: int,
    pair: int,
    asked: Asked,
    new_id: int,
    base_id: int,
    duplicate: bool,
    key: bytes,
) -> list[NewMatch]:
    """Pair ``pair``'s two matches of test ``test_id`` (NEW's bot row ``new_id``), NEW on
    the first team then on the second; dealt alike when ``duplicate``, each its own deals
    otherwise, keyed by the arena's ``key``."""
    ids = [sprt_match_id(test_id, 2 * pair + k + 1) for k in range(2)]
    seats = seatings(asked.rules, [str(new_id), str(base_id)], 2)
    return [
        NewMatch(
            ids[k],
            asked.rules,
            tuple(int(b) for b in seats[k]),
            deal_seed(key, f"sprt{test_id}-pair{pair}" if duplicate else ids[k]),
            asked.clock,
            rated=asked.rated,
            twin=ids[1 - k] if duplicate else None,
            sprt_id=test_id,
        )
        for k in range(2)
    ]
