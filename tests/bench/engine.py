"""Engine speed: random-playout hands per second and the cost of one decision step.

Run with ``make bench`` (or ``python -m tests.bench.engine [--seconds S]``). Each preset plays
seeded matches between uniformly random players for a fixed time on one core; a step
is one ``legal_actions()`` plus one ``apply()``. The goal: at least 10,000 hands/s for
``paulista`` 1x1, so that the engine costs under a tenth of a gRPC round trip.
"""

from __future__ import annotations

import argparse
import random
import time

from arena.engine import PRESET_NAMES, Match, Rules

GOAL_HANDS_PER_SECOND = 10_000


def playout(rules: Rules, seconds: float) -> tuple[int, int, float]:
    """Play random matches for about ``seconds``: (hands, steps, elapsed seconds)."""
    players = random.Random(0)
    hands = steps = 0
    seed = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        match = Match(rules, seed=seed)
        seed += 1
        while not match.is_over:
            match.apply(players.choice(match.legal_actions()))
            steps += 1
        hands += len(match.hands)
    return hands, steps, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per preset")
    args = parser.parse_args()
    cases = [Rules.preset(name) for name in PRESET_NAMES] + [Rules.parse("paulista:team_size=4")]
    print(f"{'rules':<24} {'hands/s':>9} {'us/step':>8} {'steps/hand':>10}")
    for rules in cases:
        hands, steps, elapsed = playout(rules, args.seconds)
        print(
            f"{rules!s:<24} {hands / elapsed:9.0f} {elapsed / steps * 1e6:8.2f} "
            f"{steps / hands:10.2f}"
        )
        if rules == Rules():
            paulista = hands / elapsed
    verdict = "met" if paulista >= GOAL_HANDS_PER_SECOND else "MISSED"
    print(f"goal: paulista 1x1 >= {GOAL_HANDS_PER_SECOND} hands/s: {verdict} ({paulista:.0f})")


if __name__ == "__main__":
    main()
