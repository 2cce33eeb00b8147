"""The SPRT's statistics (arena/domain/sprt.py): its LLR equals the established tools' for the
same counts and bounds, its verdicts keep to the error rates asked for, and its
estimate and parsing hold."""

from __future__ import annotations

import math
import random

import pytest

from arena.domain.rating import elo_from_score as elo_of
from arena.domain.rating import score_from_elo as score_of
from arena.domain.sprt import Sprt, estimate, llr_logistic, parse_test
from arena.errors import Invalid

# (elo0, elo1, counts, LLR). The LLRs are fishtest's: LLR_logistic of
# official-stockfish/fishtest server/fishtest/stats/LLRcalc.py (commit 0753fcc), run with
# SciPy 1.17, to 6 decimals. The first four are fastchess's own logistic test cases
# (Disservin/fastchess tests/sprt_test.cpp: -1.57, -2.59, -3.07, -4.98 to 1%), as
# trinomials (L, D, W) of games and pentanomials (LL, LD, WL+DD, DW, WW) of pairs; the
# rest are pairs of truco matches, which have no draws: (lost both, 0, split, 0, won both).
REFERENCE = [
    (0.5, 2.5, (21184, 40708, 21404), -1.571889),
    (0, 2, (57030, 106593, 57433), -2.593024),
    (0.5, 2.5, (223, 9863, 21279, 10037, 246), -3.074126),
    (0, 2, (871, 26175, 55983, 26678, 821), -4.978673),
    (0, 10, (10, 0, 25, 0, 15), 0.247024),
    (0, 20, (3, 0, 30, 0, 17), 1.861220),
    (0, 20, (40, 0, 120, 0, 40), -0.824944),
    (-10, 10, (2, 0, 5, 0, 30), 1.863722),
    (0, 50, (12, 0, 7, 0, 1), -2.669126),
]


@pytest.mark.parametrize(("elo0", "elo1", "counts", "expected"), REFERENCE)
def test_the_llr_is_the_established_tools(
    elo0: float, elo1: float, counts: tuple[int, ...], expected: float
) -> None:
    assert llr_logistic(elo0, elo1, counts) == pytest.approx(expected, abs=5e-4)


def test_pairs_are_counted_as_a_pentanomial_without_draws() -> None:
    test = Sprt(elo0=0, elo1=20)
    assert test.llr((3, 30, 17)) == pytest.approx(1.861220, abs=5e-4)


def test_the_bounds_are_walds() -> None:
    test = Sprt(alpha=0.05, beta=0.05)
    assert (round(test.lower, 3), round(test.upper, 3)) == (-2.944, 2.944)
    assert test.verdict(3.0) == "H1" and test.verdict(-3.0) == "H0" and test.verdict(0) is None


def simulate(test: Sprt, true_elo: float, deal_share: float, rng: random.Random) -> str:
    """One test to its verdict on simulated pairs: with chance ``deal_share`` the deals
    decide the pair (each side wins the match it holds the better cards in: a split),
    else the two matches are independent, each won with the chance that makes NEW's
    expected score ``score_of(true_elo)``."""
    p = (score_of(true_elo) - deal_share / 2) / (1 - deal_share)
    pairs = [0, 0, 0]
    while True:
        if rng.random() < deal_share:
            pairs[1] += 1
        else:
            pairs[(rng.random() < p) + (rng.random() < p)] += 1
        verdict = test.verdict(test.llr(tuple(pairs)))  # type: ignore[arg-type]
        if verdict is not None:
            return verdict


@pytest.mark.parametrize("deal_share", [0.0, 0.4])
def test_wrong_verdicts_stay_within_alpha_and_beta(deal_share: float) -> None:
    # 600 simulated tests at each hypothesis, seeded: at the 5% asked for, a count of
    # wrong verdicts over 48 (8%) would be 3.5 standard errors out
    test = Sprt(elo0=0, elo1=60, alpha=0.05, beta=0.05)
    rng = random.Random(11)
    runs = 600
    false_h1 = sum(simulate(test, test.elo0, deal_share, rng) == "H1" for _ in range(runs))
    false_h0 = sum(simulate(test, test.elo1, deal_share, rng) == "H0" for _ in range(runs))
    assert false_h1 <= 0.08 * runs and false_h0 <= 0.08 * runs, (false_h1, false_h0)
    assert false_h1 + false_h0 > 0, "a test that never errs is not testing"


def test_the_estimate_is_the_pairs_score_with_its_interval() -> None:
    assert estimate((0, 0, 0)) is None
    assert estimate((0, 7, 0)) is None  # no pair decided: no interval of no width
    elo, low, high = estimate((10, 20, 10)) or (0, 0, 0)
    assert elo == 0 and low == pytest.approx(-high) and 0 < high < 200
    elo, low, high = estimate((5, 20, 15)) or (0, 0, 0)
    assert elo == pytest.approx(elo_of(0.625)) and low < elo < high
    assert estimate((0, 0, 4)) == (math.inf, math.inf, math.inf)


def test_a_test_is_parsed_from_its_bounds() -> None:
    assert parse_test("elo0=0,elo1=10") == Sprt(0, 10, 0.05, 0.05)
    assert parse_test("elo0=-5, elo1=5", alpha=0.1) == Sprt(-5, 5, 0.1, 0.05)
    for bad in ("elo0=0", "elo1=10,elo0=20", "elo0=x,elo1=1", "gamma=1", "elo0=nan,elo1=1"):
        with pytest.raises(Invalid):
            parse_test(bad)
