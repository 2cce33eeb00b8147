"""Bots of known strength for the ladder's test, as processes on the SDK:
``python tests/ladderbots.py KIND`` with ARENA_ADDRESS and ARENA_TOKEN set.

Their order, weakest first, measured engine-only (seeded matches, seats swapped, 40 to
60 a pair): ``quitter`` (gives up every hand it may: lost all 40 to random), then house
random, then ``highest`` (examples/highest_card_bot.py: won all 40 against random),
``mc1`` (mc with a budget of one drawn state a decision: won 60% against highest), then
house heuristic (won 60 to 77% against mc1), and ``mc128`` (128 drawn states a decision:
won 78% against heuristic). A budget of drawn states, not of milliseconds, keeps the
order whatever the machine's speed."""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))

from highest_card_bot import HighestCardBot

from arena.bots import MonteCarloBot
from arena.engine import FOLD, Action, View
from arena.sdk import run

LONG_MS = 60_000  # mc's time budget: never the limit, its drawn states are


class Quitter:
    """Gives up every hand it may give up, and refuses every request."""

    name = "quitter"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def decide(self, view: View) -> Action:
        return FOLD if FOLD in view.legal else self.rng.choice(view.legal)


def bot(kind: str) -> object:
    if kind == "quitter":
        return Quitter()
    if kind == "highest":
        return HighestCardBot()
    return MonteCarloBot(seed=0, budget_ms=LONG_MS, max_samples=int(kind.removeprefix("mc")))


if __name__ == "__main__":
    run(bot(sys.argv[1]), concurrency=4)  # type: ignore[arg-type]
