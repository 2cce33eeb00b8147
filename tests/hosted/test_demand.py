"""The warm pool's measure of a version's demand: the most matches of it at once over a
sliding window (arena/hosted/host.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from arena.hosted.host import Demand


def test_the_peak_is_the_most_at_once_within_the_window() -> None:
    demand = Demand(window_s=60)
    assert demand.peak(0) == 0
    demand.saw(1, 0)
    demand.saw(3, 10)
    demand.saw(2, 20)
    assert demand.peak(30) == 3
    assert demand.peak(69) == 3
    assert demand.peak(71) == 2  # the 3 seen at 10 s is past the window
    assert demand.peak(81) == 0


@given(st.lists(st.tuples(st.floats(0, 5), st.integers(1, 40)), max_size=60))
def test_the_peak_matches_the_maximum_over_the_window(seen: list[tuple[float, int]]) -> None:
    demand = Demand(window_s=10)
    now, history = 0.0, []
    for step, count in seen:
        now += step
        demand.saw(count, now)
        history.append((now, count))
        inside = [c for t, c in history if t >= now - 10]
        assert demand.peak(now) == max(inside)
        assert len(demand._peaks) <= len(set(inside))
