"""Rating maths: the Elo difference of a pairing, what is unsettled, and hand-computed
Bradley-Terry cases of a run's performance (the pool's ratings: tests/domain/test_poolfit.py)."""

from __future__ import annotations

import math

import pytest

from arena.domain.rating import (
    START,
    WIDE_HALF,
    bradley_terry,
    elo_difference,
    elo_text,
    is_wide,
    win_counts,
)


def test_elo_difference_is_the_log_odds() -> None:
    assert elo_difference(3, 4).elo == pytest.approx(400 * math.log10(3))
    assert elo_difference(0, 0 + 1).score == 0.0 and elo_difference(7, 10).score == 0.7


def score(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


@pytest.mark.parametrize("games", [1, 2, 4, 10, 1000])
def test_a_clean_sweep_has_one_bound_where_a_sweep_is_5_percent_likely(games: int) -> None:
    # P(every game won) = p ** games = 0.05: the one-sided 95% bound on the score
    won = elo_difference(games, games)
    assert (won.elo, won.high, won.score) == (math.inf, math.inf, 1.0)
    assert score(won.low) == pytest.approx(0.05 ** (1 / games))
    lost = elo_difference(0, games)
    assert (lost.elo, lost.low, lost.high) == (-math.inf, -math.inf, -won.low)


def test_one_game_by_hand() -> None:
    # a win: a score of 0.05 or more, 400 log10(0.05 / 0.95) = -511.5 Elo or more
    one = elo_difference(1, 1)
    assert one.low == pytest.approx(-400 * math.log10(19))
    assert elo_text(one) == "> -512 (95%, every game won)"
    assert elo_text(elo_difference(0, 1)) == "< +512 (95%, every game lost)"
    assert elo_text(elo_difference(10, 10)) == "> +183 (95%, every game won)"


def test_even_scores_are_zero_between_mirrored_bounds() -> None:
    # 1 of 2: at the lower bound, P(at least one win) = 1 - (1 - p) ** 2 = 0.025
    even = elo_difference(1, 2)
    p = 1 - math.sqrt(0.975)
    assert even.elo == 0 and even.score == 0.5
    assert even.low == pytest.approx(400 * math.log10(p / (1 - p)))
    assert even.high == pytest.approx(-even.low)
    assert elo_text(even) == "+0 (95%: -758 to +758)"
    # 2 of 4: the tabulated Clopper-Pearson interval, 0.0676 to 0.9324
    four = elo_difference(2, 4)
    assert (score(four.low), score(four.high)) == pytest.approx((0.067586, 0.932414), abs=1e-6)


def test_exact_intervals_match_the_binomial_by_hand() -> None:
    # 7 of 10: the tabulated Clopper-Pearson interval, 0.3475 to 0.9333
    seven = elo_difference(7, 10)
    assert (score(seven.low), score(seven.high)) == pytest.approx((0.347547, 0.933260), abs=1e-6)
    assert seven.low < seven.elo < seven.high
    # 1 of n: at the lower bound P(at least one win) = 1 - (1 - p) ** n = 0.025
    for n in (3, 50, 1000):
        assert score(elo_difference(1, n).low) == pytest.approx(1 - 0.975 ** (1 / n))
        assert elo_difference(n - 1, n).high == pytest.approx(-elo_difference(1, n).low)
    # more games, a narrower interval about the same estimate
    small, large = elo_difference(3, 4), elo_difference(750, 1000)
    assert small.elo == pytest.approx(large.elo)
    assert large.low > small.low and large.high < small.high
    assert elo_text(large) == "+191 (95%: +166 to +216)"


def test_an_impossible_count_is_refused() -> None:
    for wins, games in ((1, 0), (-1, 3), (4, 3)):
        with pytest.raises(ValueError):
            elo_difference(wins, games)


# --- unsettled ratings ---------------------------------------------------------------------


def test_a_rating_is_unsettled_without_an_interval_or_with_a_wide_one() -> None:
    assert is_wide(None)
    assert is_wide(WIDE_HALF + 0.1)
    assert not is_wide(WIDE_HALF)


# --- Bradley-Terry --------------------------------------------------------------------------


def three_to_one(times: int = 1) -> dict[tuple[str, str], int]:
    return win_counts(([("a", "b")] * 3 + [("b", "a")]) * times)


def test_two_players_gap_is_the_log_odds() -> None:
    bt = bradley_terry(three_to_one())
    assert not bt.prior
    assert bt.rating("a").elo - bt.rating("b").elo == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert bt.rating("a").elo + bt.rating("b").elo == pytest.approx(2 * START)
    assert (bt.rating("a").wins, bt.rating("a").losses, bt.rating("a").games) == (3, 1, 4)
    assert [r.player for r in bt.ratings] == ["a", "b"]


def test_two_player_interval_by_hand() -> None:
    # Variance of the log-odds gap: 1 / (n p (1 - p)) = 1 / (4 * 3/4 * 1/4) = 4/3 nat^2; each
    # rating carries a quarter of it about the anchored mean.
    bt = bradley_terry(three_to_one())
    nat = 400 / math.log(10)
    se_gap = nat * math.sqrt(4 / 3)
    assert bt.stderr_difference("a", "b") == pytest.approx(se_gap)
    a = bt.rating("a")
    assert (a.high - a.low) / 2 == pytest.approx(1.959963984540054 * se_gap / 2)
    assert a.low < a.elo < a.high


def test_cycle_gives_equal_ratings() -> None:
    wins = {("a", "b"): 2, ("b", "c"): 2, ("c", "a"): 2, ("b", "a"): 1, ("c", "b"): 1}
    wins[("a", "c")] = 1
    bt = bradley_terry(wins)
    for r in bt.ratings:
        assert r.elo == pytest.approx(START, abs=1e-6)
    assert bt.los("a", "b") == pytest.approx(0.5)


def test_mean_is_the_anchor() -> None:
    wins = {("a", "b"): 7, ("b", "a"): 2, ("b", "c"): 5, ("c", "b"): 4, ("c", "d"): 6}
    wins |= {("d", "c"): 1, ("d", "a"): 1, ("a", "d"): 4, ("c", "a"): 2}
    bt = bradley_terry(wins)
    assert not bt.prior
    assert math.fsum(r.elo for r in bt.ratings) / 4 == pytest.approx(START)
    assert bt.ratings[0].player == "a"
    elos = [r.elo for r in bt.ratings]
    assert elos == sorted(elos, reverse=True)


def test_intervals_shrink_with_games() -> None:
    few = bradley_terry(three_to_one(1)).rating("a")
    many = bradley_terry(three_to_one(4)).rating("a")
    assert many.elo == pytest.approx(few.elo, abs=1e-6)
    # Four times the games: the same estimate, half the interval.
    assert many.high - many.low == pytest.approx((few.high - few.low) / 2)


def test_los() -> None:
    bt = bradley_terry(three_to_one())
    # LOS = Phi(gap / se) = Phi(log 3 / sqrt(4/3)).
    z = math.log(3) / math.sqrt(4 / 3)
    assert bt.los("a", "b") == pytest.approx(0.5 * (1 + math.erf(z / math.sqrt(2))))
    assert bt.los("a", "b") > 0.5
    assert bt.los("a", "b") + bt.los("b", "a") == pytest.approx(1.0)


def test_clean_sweep_is_finite() -> None:
    # 5-0 has no finite ML estimate; the prior adds half a win each way: 5.5 to 0.5.
    bt = bradley_terry(win_counts([("a", "b")] * 5))
    assert bt.prior
    assert bt.rating("a").elo - bt.rating("b").elo == pytest.approx(400 * math.log10(11), abs=1e-6)
    for r in bt.ratings:
        assert all(map(math.isfinite, (r.elo, r.low, r.high)))
    assert (bt.rating("b").wins, bt.rating("b").losses) == (0, 5)
    assert 0.5 < bt.los("a", "b") < 1.0


def test_a_player_who_lost_everything_in_a_field() -> None:
    wins = {("a", "b"): 3, ("b", "a"): 3, ("a", "c"): 2, ("b", "c"): 2}
    bt = bradley_terry(wins)
    assert bt.prior
    assert bt.ratings[-1].player == "c"
    assert all(math.isfinite(r.elo) for r in bt.ratings)
    assert bt.rating("a").elo == pytest.approx(bt.rating("b").elo)


def test_unconnected_players_cannot_be_rated() -> None:
    with pytest.raises(ValueError):
        bradley_terry({("a", "b"): 1, ("c", "d"): 1})
    with pytest.raises(ValueError):
        bradley_terry(three_to_one(), players=["e"])


def test_no_results() -> None:
    assert bradley_terry({}).ratings == ()
