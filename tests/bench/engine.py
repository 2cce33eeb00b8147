"""Engine speed: random-playout hands per second, and the ratio to a baseline commit's engine.

Run with ``make bench`` (or ``python -m tests.bench.engine [--seconds S] [--rounds N]
[--baseline COMMIT]``). Each preset plays seeded matches between uniformly random players
for a fixed time on one core; a step is one ``legal_actions()`` plus one ``apply()``.

The verdict compares this tree's engine with the engine of ``--baseline`` (by default the
commit issue 19 started from) on the same workload: paulista 1x1 random playouts, a fixed
set of seeded matches. The baseline's ``arena/engine`` is taken out with ``git archive``
into a temporary folder; each round runs both engines in fresh processes, one right after
the other (the order alternating), so both sides of a round's ratio saw the same machine.
The ratio is the median of the rounds' ratios; the goal is 2x. Without git (or without
the commit) the ratio is skipped, saying why. With a compiled engine built (``make
native``) the rounds time the plain and the compiled engine, and both ratios are given.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

GOAL_HANDS_PER_SECOND = 10_000
GOAL_RATIO = 2.0
BASELINE = "17f82ee"  # the commit issue 19 ("make the referee faster") started from
ROOT = Path(__file__).resolve().parents[2]


def playout(rules: Any, seconds: float) -> tuple[int, int, float]:
    """Play random matches for about ``seconds``: (hands, steps, elapsed seconds)."""
    from arena.engine import Match

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


def timed_matches(matches: int) -> dict[str, float]:
    """The fixed workload of the comparison: ``matches`` seeded paulista 1x1 matches between
    random players, the same for every engine that plays the same rules."""
    from arena.engine import Match, Rules

    rules = Rules()
    players = random.Random(0)
    hands = 0
    start = time.perf_counter()
    for seed in range(matches):
        match = Match(rules, seed=seed)
        while not match.is_over:
            match.apply(players.choice(match.legal_actions()))
        hands += len(match.hands)
    return {"hands": hands, "seconds": time.perf_counter() - start}


def worker(tree: str, matches: int) -> None:
    """Time the workload on the engine found in ``tree`` (a folder holding ``arena/``): the
    fastest of three runs in one process, the first of which also warms it up."""
    sys.path.insert(0, tree)
    import arena.engine

    if Path(arena.engine.__file__).resolve().parents[2] != Path(tree).resolve():
        raise SystemExit(f"imported {arena.engine.__file__}, not the engine in {tree}")
    runs = [timed_matches(matches) for _ in range(3)]  # the fastest of 3: the least disturbed
    print(json.dumps(min(runs, key=lambda run: run["seconds"])))


@contextlib.contextmanager
def baseline_tree(commit: str) -> Iterator[Path | str]:
    """The baseline's ``arena`` package in a temporary folder, or why there is none."""
    try:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit, "arena/__init__.py", "arena/engine"],
            capture_output=True,
            check=False,
        )
    except OSError as e:
        yield f"git is not available ({e})"
        return
    if archive.returncode != 0:
        yield f"git archive {commit} failed: {archive.stderr.decode().strip()}"
        return
    with tempfile.TemporaryDirectory(prefix="engine-base-") as folder:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(folder, filter="data")
        yield Path(folder)


def run_worker(tree: Path, matches: int, pure: bool = False) -> float:
    """Hands per second of one fresh process on the engine in ``tree`` (``pure``: the plain
    Python modules even where a compiled engine is built)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if pure:
        env["ARENA_ENGINE"] = "pure"
    out = subprocess.run(
        [sys.executable, "-m", "tests.bench.engine", "worker", str(tree), f"--matches={matches}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(out.stdout)
    return float(result["hands"] / result["seconds"])


def compare(commit: str, rounds: int, matches: int, compiled: bool) -> None:
    """Print the ratio of this engine's speed to the baseline's, from rounds that run each
    engine once (the order rotating): the plain one, and the compiled one when built."""
    with baseline_tree(commit) as base:
        if isinstance(base, str):
            print(f"ratio to {commit}: skipped, {base}")
            return
        runs = {"base": (base, False), "plain": (ROOT, True)}
        if compiled:
            runs["compiled"] = (ROOT, False)
        ratios: dict[str, list[float]] = {name: [] for name in runs if name != "base"}
        for r in range(rounds):
            names = list(runs)[r % len(runs) :] + list(runs)[: r % len(runs)]
            rates = {name: run_worker(runs[name][0], matches, runs[name][1]) for name in names}
            for name, row in ratios.items():
                row.append(rates[name] / rates["base"])
            shown = ", ".join(f"{name} {rates[name]:6.0f}" for name in runs)
            print(f"  round {r + 1} (hands/s): {shown}", file=sys.stderr)
    for name, row in ratios.items():
        ratio = statistics.median(row)
        verdict = "met" if ratio >= GOAL_RATIO else "MISSED"
        print(
            f"paulista 1x1 playouts, {name} engine vs {commit}: {ratio:.2f}x (median of "
            f"{rounds} rounds, spread {min(row):.2f}-{max(row):.2f}; goal {GOAL_RATIO:.0f}x: "
            f"{verdict})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", nargs="?", default="bench", choices=["bench", "worker"])
    parser.add_argument("tree", nargs="?", help="worker: the folder whose arena/ to time")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per preset")
    parser.add_argument("--baseline", default=BASELINE, help="the commit to compare with")
    parser.add_argument("--rounds", type=int, default=7, help="paired rounds of the ratio")
    parser.add_argument("--matches", type=int, default=1000, help="matches per timed run")
    args = parser.parse_args()
    if args.mode == "worker":
        worker(args.tree, args.matches)
        return
    from arena.engine import COMPILED, PRESET_NAMES, Rules

    print(f"engine: {'compiled (make native)' if COMPILED else 'plain Python'}")

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
    compare(args.baseline, args.rounds, args.matches, COMPILED)


if __name__ == "__main__":
    main()
