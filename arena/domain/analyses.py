"""The analysis of a match's decisions, what bounds it (docs/web.md, "The analysis of a
match"): its budget (drawn states per decision), each owner's cap, and which decisions
are marked as the costliest. The analysis itself is the house bot's
(arena/bots/analysis.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.errors import Invalid

DEFAULT_SAMPLES = 256  # drawn states per decision when none is asked
MAX_SAMPLES = 1024  # the most an analysis may ask per decision (migration 0022's bound)
PER_DAY = 20  # the analyses (one per seat) a bot owner may ask for in 24 hours
MARKS = 3  # the costliest decisions of a seat marked, at most
MARK_LOSS = 0.25  # a decision marked loses at least this many points (expected)
LOST_S = 300  # pending, and neither sent to the workers nor begun this long: sent again
LOST_PER_SWEEP = 1000  # the most analyses one sweep of the scheduler sends again


def check_samples(samples: int) -> int:
    """``samples`` when it is a budget an analysis may ask; Invalid otherwise."""
    if not 1 <= samples <= MAX_SAMPLES:
        raise Invalid(f"the budget must be from 1 to {MAX_SAMPLES} samples, not {samples}")
    return samples


def marked(decisions: Sequence[dict[str, Any]]) -> list[int]:
    """The indexes of the costliest decisions (as stored): those losing ``MARK_LOSS``
    points or more, the ``MARKS`` largest losses, in the order played."""
    costly = [i for i, d in enumerate(decisions) if d["loss"] >= MARK_LOSS]
    costly.sort(key=lambda i: -decisions[i]["loss"])
    return sorted(costly[:MARKS])


def mean_loss(decisions: Sequence[dict[str, Any]]) -> float | None:
    """The average loss per decision (None: no decision)."""
    if not decisions:
        return None
    return float(sum(d["loss"] for d in decisions)) / len(decisions)
