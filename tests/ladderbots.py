"""Bots of known strength for the ladder's test, as processes on the SDK:
``python tests/ladderbots.py KIND`` with ARENA_ADDRESS and ARENA_TOKEN set.

Their order, weakest first, measured engine-only (seeded matches, seats swapped, 40 to
60 a pair): ``quitter`` (gives up every hand it may: lost 56 of 60 to hesitant), then
``hesitant`` (gives up a third of the hands it may, else plays at random: lost 51 of 60
to random), house random, ``mc1`` (mc with a budget of one drawn state a decision: won
94 of 100 against random), house heuristic (won 60 to 77% against mc1), and ``mc128``
(128 drawn states a decision: won 78% against heuristic). A budget of drawn states, not
of milliseconds, keeps the order whatever the machine's speed. Only mc1 and heuristic
are near enough for the ladder to swap them now and then; bots that were candidates and
sat nearer still (examples/highest_card_bot.py, heuristic half the time) were left out.
"""

from __future__ import annotations

import random
import sys

from arena.bots import MonteCarloBot
from arena.engine import FOLD, Action, View
from arena.sdk import run

LONG_MS = 60_000  # mc's time budget: never the limit, its drawn states are


class Quitter:
    """Gives up (and refuses) with the chance ``give_up`` whenever it may, else plays a
    random legal action."""

    def __init__(self, name: str, give_up: float) -> None:
        self.name = name
        self.give_up = give_up
        self.rng = random.Random(0)

    def decide(self, view: View) -> Action:
        if FOLD in view.legal and self.rng.random() < self.give_up:
            return FOLD
        return self.rng.choice(view.legal)


def bot(kind: str) -> object:
    if kind == "quitter":
        return Quitter(kind, 1.0)
    if kind == "hesitant":
        return Quitter(kind, 0.3)
    return MonteCarloBot(seed=0, budget_ms=LONG_MS, max_samples=int(kind.removeprefix("mc")))


if __name__ == "__main__":
    run(bot(sys.argv[1]), concurrency=4)  # type: ignore[arg-type]
