"""What bounds an analysis and which decisions it marks (arena/domain/analyses.py)."""

from __future__ import annotations

import pytest

from arena.domain.analyses import MARK_LOSS, MARKS, check_samples, marked, mean_loss
from arena.errors import Invalid


def test_the_costliest_few_are_marked_in_the_order_played() -> None:
    losses = [0.0, 2.0, MARK_LOSS / 2, 0.5, 3.0, MARK_LOSS, 1.0]
    decisions = [{"loss": x} for x in losses]
    assert MARKS == 3 and marked(decisions) == [1, 4, 6]
    assert marked([{"loss": MARK_LOSS / 2}] * 5) == []  # nothing lost much: no mark
    assert mean_loss(decisions) == pytest.approx(sum(losses) / len(losses))
    assert mean_loss([]) is None


@pytest.mark.parametrize("samples", [0, -1, 1025])
def test_a_budget_out_of_bounds_is_refused(samples: int) -> None:
    with pytest.raises(Invalid, match="from 1 to 1024 samples"):
        check_samples(samples)
    assert check_samples(1) == 1 and check_samples(1024) == 1024
