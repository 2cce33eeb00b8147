"""Rating maths (pure). Issue 4 adds online Elo and Bradley-Terry here."""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class EloDifference:
    """How much stronger one side played than the other, on the Elo scale."""

    elo: float
    low: float  # the 95% interval
    high: float
    games: int
    score: float  # the first side's share of the games, 0 to 1


def elo_from_score(p: float) -> float:
    return -400.0 * math.log10(1.0 / p - 1.0)


def elo_difference(wins: int, games: int) -> EloDifference:
    """The Elo difference implied by ``wins`` out of ``games`` (no draws in truco), with a
    normal-approximation 95% interval. A clean sweep is clamped to half a game short of
    it, so the figures stay finite."""
    if games <= 0 or not 0 <= wins <= games:
        raise ValueError(f"need 0 <= wins <= games and games > 0, not {wins} of {games}")
    p = wins / games
    clamped = min(max(p, 0.5 / games), 1 - 0.5 / games)
    spread = Z95 * math.sqrt(clamped * (1 - clamped) / games)
    low = max(clamped - spread, 0.5 / games)
    high = min(clamped + spread, 1 - 0.5 / games)
    return EloDifference(
        elo_from_score(clamped), elo_from_score(low), elo_from_score(high), games, p
    )
