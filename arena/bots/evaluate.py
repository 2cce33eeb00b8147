"""Matches between house bots, and the Elo gap they show.

``play_matches("heuristic", "random", 100)`` plays engine-only matches: the first bot
sits on team 0 in even matches and team 1 in odd ones, and each pair of matches uses
the same seed, so both bots get the same sequence of deals from each side.

``python -m arena.bots.evaluate [--matches N] [--matches-random N] [--workers W]
[--budget-ms MS]`` measures the Elo gaps random -> heuristic -> mc with 95% intervals.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from arena.bots import house_bot
from arena.domain.rating import EloDifference, elo_difference, elo_text
from arena.engine import Match, Rules, view

log = logging.getLogger(__name__)


def play_match(
    first: str, second: str, seed: int, swap: bool, rules: Rules | None = None, **settings: Any
) -> str:
    """Play one match and return the winning bot's name. ``swap`` seats ``first`` on
    team 1. Every seat gets its own bot, seeded from the match seed and the seat."""
    rules = rules or Rules()
    match = Match(rules, seed=seed)
    names = (second, first) if swap else (first, second)
    bots = [
        house_bot(names[s & 1], seed=seed * 16 + s, **settings.get(names[s & 1], {}))
        for s in range(match.n)
    ]
    while not match.is_over:
        seat = match.to_act
        if seat is None:  # a seeded match deals by itself
            raise RuntimeError("a seeded match stopped between hands")
        match.apply(bots[seat].decide(view(match, seat)))
    if match.outcome is None:
        raise RuntimeError("the match ended without an outcome")
    return names[match.outcome.winner]


def play_matches(
    first: str,
    second: str,
    matches: int,
    seed: int = 0,
    rules: Rules | None = None,
    workers: int = 1,
    **settings: Any,
) -> Counter[str]:
    """Play ``matches`` matches, seats alternating; return the wins of each bot.

    ``settings`` maps a bot name to its extra settings, e.g. ``mc={"budget_ms": 5}``.
    """
    jobs = [(first, second, seed + i // 2, i % 2 == 1, rules) for i in range(matches)]
    wins: Counter[str] = Counter({first: 0, second: 0})
    if workers <= 1:
        wins.update(play_match(*job, **settings) for job in jobs)
        return wins
    # spawn, not fork: the parent may run threads (gRPC, for one) that fork would copy
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(play_match, *job, **settings) for job in jobs]
        wins.update(f.result() for f in futures)
    return wins


def elo_gap(
    better: str, worse: str, matches: int, seed: int = 0, workers: int = 1, **settings: Any
) -> EloDifference:
    """Play the matches and measure how much stronger ``better`` played."""
    wins = play_matches(better, worse, matches, seed=seed, workers=workers, **settings)
    return elo_difference(wins[better], matches)


def main() -> None:
    parser = argparse.ArgumentParser(description="Elo gaps between the house bots")
    parser.add_argument("--matches", type=int, default=1000, help="mc against heuristic")
    parser.add_argument(
        "--matches-random", type=int, default=4000, help="heuristic against random (cheap)"
    )
    parser.add_argument("--workers", type=int, default=2, help="processes")
    parser.add_argument("--budget-ms", type=int, default=30, help="mc thinking time")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    mc = {"budget_ms": args.budget_ms}
    pairings = (("heuristic", "random", args.matches_random), ("mc", "heuristic", args.matches))
    for better, worse, matches in pairings:
        began = time.perf_counter()
        gap = elo_gap(better, worse, matches, args.seed, args.workers, mc=mc)
        log.info(
            "%s over %s: %.1f%% of %d matches, Elo %s  (%.0f s)",
            better, worse, 100 * gap.score, matches, elo_text(gap), time.perf_counter() - began,
        )  # fmt: skip


if __name__ == "__main__":
    main()
