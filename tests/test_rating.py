"""Rating maths: hand-computed Elo and Bradley-Terry cases, and one conservation property."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.rating import (
    PROVISIONAL_GAMES,
    START,
    K,
    bradley_terry,
    elo_difference,
    expected,
    is_provisional,
    update,
    win_counts,
)


def test_elo_difference_is_the_log_odds() -> None:
    assert elo_difference(3, 4).elo == pytest.approx(400 * math.log10(3))
    assert math.isfinite(elo_difference(5, 5).elo)


# --- online Elo -----------------------------------------------------------------------------


def test_expected_even() -> None:
    assert expected(1500, 1500) == 0.5


def test_expected_400_points_is_ten_to_one() -> None:
    assert expected(1900, 1500) == pytest.approx(10 / 11)
    assert expected(1500, 1900) == pytest.approx(1 / 11)


def test_one_against_one() -> None:
    # 1600 vs 1400: E = 1 / (1 + 10**-0.5) = 0.7597469; the favourite loses.
    change = update([1600.0], [1400.0], 0.0, k=24.0)
    assert change.team_a == pytest.approx(-24 * 0.7597469266, abs=1e-8)
    assert change.team_a == pytest.approx(-18.23392624, abs=1e-7)
    assert change.team_b == -change.team_a


def test_two_against_two_uses_team_means() -> None:
    # Means 1600 and 1400 as above; team A wins: 24 * (1 - 0.7597469) = +5.7660738.
    team_a, team_b = [1700.0, 1500.0], [1450.0, 1350.0]
    change = update(team_a, team_b, 1.0)
    assert change.team_a == pytest.approx(5.76607376, abs=1e-7)
    new_a = [r + change.team_a for r in team_a]
    new_b = [r + change.team_b for r in team_b]
    # Members with different ratings get the same change, and the total is conserved.
    assert new_a[0] - team_a[0] == pytest.approx(new_a[1] - team_a[1])
    assert 2 * change.team_a + 2 * change.team_b == 0.0
    assert sum(new_a + new_b) == pytest.approx(sum(team_a + team_b))


def test_default_k_and_start() -> None:
    assert update([START], [START], 1.0).team_a == K / 2


def test_update_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        update([], [1500.0], 1.0)
    with pytest.raises(ValueError):
        update([1500.0], [1500.0], 1.5)


def test_provisional() -> None:
    assert is_provisional(0)
    assert is_provisional(PROVISIONAL_GAMES - 1)
    assert not is_provisional(PROVISIONAL_GAMES)


@given(
    size=st.integers(1, 3),
    data=st.data(),
    score=st.sampled_from([0.0, 0.5, 1.0]) | st.floats(0.0, 1.0),
    k=st.floats(1.0, 64.0),
)
def test_updates_conserve_the_total(size: int, data: st.DataObject, score: float, k: float) -> None:
    ratings = st.lists(st.floats(0.0, 3000.0), min_size=size, max_size=size)
    team_a, team_b = data.draw(ratings), data.draw(ratings)
    change = update(team_a, team_b, score, k)
    after = [r + change.team_a for r in team_a] + [r + change.team_b for r in team_b]
    assert math.fsum(after) == pytest.approx(math.fsum(team_a + team_b), abs=1e-9)
    assert abs(change.team_a) <= k


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
