"""Rating maths: the Elo difference of a pairing, provisional ratings and hand-computed
Bradley-Terry cases (the online Elo is applied in SQL: its cases are in test_store.py)."""

from __future__ import annotations

import math

import pytest

from arena.rating import (
    PROVISIONAL_GAMES,
    START,
    bradley_terry,
    elo_difference,
    is_provisional,
    win_counts,
)


def test_elo_difference_is_the_log_odds() -> None:
    assert elo_difference(3, 4).elo == pytest.approx(400 * math.log10(3))
    assert math.isfinite(elo_difference(5, 5).elo)


# --- online Elo ----------------------------------------------------------------------------


def test_provisional() -> None:
    assert is_provisional(0)
    assert is_provisional(PROVISIONAL_GAMES - 1)
    assert not is_provisional(PROVISIONAL_GAMES)


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
