"""A pool's ratings (arena/domain/poolfit.py) on hand-made results: symmetry, the anchor, the
prior's pull and its fading, teams by their members' mean, the maximum-likelihood fit it
becomes with many games, duplicate pairs' dispersion, and bots out of the anchor.
(Calibration over many simulated pools: tests/domain/test_rating_calibration.py.)"""

from __future__ import annotations

import math

import pytest

from arena.domain.poolfit import (
    ANCHOR,
    PRIOR_ELO,
    SCALE,
    Lineup,
    anchors,
    fit,
    held_anchors,
    lineup_of,
    lineups,
)
from arena.domain.rating import bradley_terry


def two(games: int, wins: int, paired: tuple[int, int, int] = (0, 0, 0)) -> Lineup:
    return Lineup(("a",), ("b",), games, wins, paired)


def test_no_results_no_ratings() -> None:
    assert fit([]).ratings == {}


def test_an_even_record_is_even_and_the_mean_is_the_anchor() -> None:
    f = fit([two(10, 5)])
    assert f.ratings["a"].elo == pytest.approx(ANCHOR) == f.ratings["b"].elo
    assert f.ratings["a"].sd == pytest.approx(f.ratings["b"].sd) and f.ratings["a"].sd > 0
    assert f.superiority("a", "b") == pytest.approx(0.5)


def test_two_bots_by_hand_the_posterior_mode() -> None:
    # 7 of 10: the mode of d (natural log, a above b by d) solves 7 - 10 p(d) = k d where
    # the prior adds k = 2 / prior_sd^2 (each of the two strengths is d/2 from the mean)
    games, wins = 10, 7
    prior = (SCALE / math.log(10) / PRIOR_ELO) ** 2
    lo, hi = 0.0, 5.0
    for _ in range(200):
        d = (lo + hi) / 2
        p = 1 / (1 + math.exp(-d))
        lo, hi = (d, hi) if wins - games * p - prior * d / 2 > 0 else (lo, d)
    expected = d * SCALE / math.log(10)
    f = fit([two(games, wins)])
    assert f.ratings["a"].elo - f.ratings["b"].elo == pytest.approx(expected, abs=1e-6)
    assert f.ratings["a"].elo - ANCHOR == pytest.approx(ANCHOR - f.ratings["b"].elo)


def test_a_clean_sweep_is_finite_and_the_prior_fades_with_games() -> None:
    swept = fit([two(6, 6)])
    gap = swept.ratings["a"].elo - swept.ratings["b"].elo
    assert 0 < gap < 1000 and math.isfinite(gap)
    # with many games the mode is the maximum-likelihood fit's
    many = [("a", "b")] * 600 + [("b", "a")] * 400 + [("b", "c")] * 550 + [("c", "b")] * 450
    counts: dict[tuple[str, str], int] = {}
    for w, loser in many:
        counts[w, loser] = counts.get((w, loser), 0) + 1
    ml = bradley_terry(counts)
    ours = fit(lineups(([w, loser], 0) for w, loser in many))
    for r in ml.ratings:
        assert ours.ratings[r.player].elo == pytest.approx(r.elo, abs=1.0)
        assert ours.ratings[r.player].half == pytest.approx((r.high - r.low) / 2, rel=0.02)


def test_intervals_narrow_as_games_come() -> None:
    halves = [fit([two(n, n // 2)]).ratings["a"].half for n in (10, 40, 160)]
    assert halves == sorted(halves, reverse=True)
    assert halves[1] / halves[2] == pytest.approx(2, rel=0.1)  # as 1 / sqrt(games)


def test_team_members_share_their_teams_results() -> None:
    rows = [Lineup(("a", "c"), ("b", "d"), 20, 14), Lineup(("a", "b"), ("c", "d"), 20, 10)]
    f = fit(rows)
    assert f.ratings["a"].elo == pytest.approx(f.ratings["c"].elo)
    assert f.ratings["b"].elo == pytest.approx(f.ratings["d"].elo)
    assert f.ratings["a"].elo > ANCHOR > f.ratings["b"].elo
    assert lineup_of(["a", "b", "c", "d"]) == (("a", "c"), ("b", "d"))


def test_split_pairs_narrow_the_interval_and_independent_ones_do_not() -> None:
    plain = fit([two(40, 20)]).ratings["a"].half
    # 20 duplicate pairs, every one split: the cards decided each match, not the bots
    split = fit([two(40, 20, (0, 20, 0))])
    assert split.dispersion < 1 and split.ratings["a"].half < plain
    # pairs as independent matches would fall: the dispersion stays near 1
    spread = fit([two(40, 20, (5, 10, 5))])
    assert spread.dispersion == pytest.approx(1.0, abs=0.02)
    assert spread.ratings["a"].half == pytest.approx(plain, rel=0.02)
    assert split.ratings["a"].elo == pytest.approx(ANCHOR)  # the same estimate either way


def test_a_bot_out_of_the_anchor_no_longer_widens_every_interval() -> None:
    # three bots that play each other a lot, and a fourth of two games long ago
    results = [(["a", "b"], k % 3 == 0) for k in range(60)]
    results += [(["b", "c"], k % 2) for k in range(60)] + [
        (["a", "c"], k % 4 == 0) for k in range(60)
    ]
    results += [(["a", "stale"], 0), (["stale", "c"], 0)]
    everyone = lineups(results)
    wide, narrow = fit(everyone), fit(everyone, anchors={"a", "b", "c"})
    assert wide.anchors == ("a", "b", "c", "stale") and narrow.anchors == ("a", "b", "c")
    for b in "abc":  # the stale bot's uncertainty was the average's, and so everyone's
        assert narrow.ratings[b].half < 0.75 * wide.ratings[b].half
    # the same evidence: the ratings differ by a constant, the anchors' mean at 1500
    gaps = {b: narrow.ratings[b].elo - wide.ratings[b].elo for b in (*"abc", "stale")}
    assert max(gaps.values()) - min(gaps.values()) == pytest.approx(0.0, abs=1e-6)
    assert math.fsum(narrow.ratings[b].elo for b in "abc") == pytest.approx(3 * ANCHOR)
    assert narrow.ratings["stale"].half > wide.ratings["stale"].half  # far from the others
    assert fit(everyone, anchors={"nobody"}).anchors == wide.anchors  # none rated: all


def test_the_anchors_are_the_bots_neither_retired_nor_absent() -> None:
    members = [("a", False, 10.0), ("b", True, 10.0), ("c", False, 100.0), ("d", False, 99.0)]
    assert anchors(members, absent_s=99.0) == {"a", "d"}
    assert held_anchors({"a", "x"}, ["a", "b"]) == {"a"}
    assert held_anchors(set(), ["a", "b"]) == held_anchors(None, ["a", "b"]) == {"a", "b"}
