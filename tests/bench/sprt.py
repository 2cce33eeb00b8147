"""A sequential test between two hosted versions on the arena, next to the same test played
locally, measured in the same run.

``python -m tests.bench.sprt`` (part of ``make bench``) starts ``arena serve`` and ``arena
worker`` on a fresh PostgreSQL database and a broker, once for all rounds, and submits
``examples/random_bot.py`` twice as one bot's versions (the second a candidate, a comment
apart). Each of ``--rounds`` rounds (5) plays, one after the other, the order swapping
from round to round:

- **arena**: ``arena test NAME@2 NAME --sprt elo0=0,elo1=5 --games GAMES``, played by the
  worker with both versions hosted;
- **local**: ``arena match --bot "python v2.py" --bot "python v1.py" --sprt elo0=0,elo1=5
  --games GAMES``, the same files as bots of its own.

Two random bots and bounds 5 Elo apart leave the test undecided within ``--games`` (60):
both sides play exactly ``GAMES / 2`` pairs, and each is timed from the command's start to
its end, as its user waits for it (the local side's bots' start included). The goal
(issue 33): the arena's test within 2x of the local one, the median of the rounds'
ratios, printed with their spread.

The database server is ``ARENA_DATABASE_URL``'s, else the machine's, else the embedded
one, on a scratch database dropped afterwards; the broker is the embedded Redis under a
temporary ``ARENA_HOME``, or ``--broker URL``. Needs a sandbox (docs/sandbox.md); says so
and exits 0 where none can be made.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from arena.embedded import stop_embedded_redis
from arena.hosted.sandbox import unavailable
from arena.service import Organizer, Processes, wait_serving
from tests.bench.workers import arena_env, scratch_database

GOAL = 2.0  # the arena's test's seconds / the local test's, at most
EXAMPLE = Path(__file__).parents[2] / "examples" / "random_bot.py"
BOT = "sprt-bench"
SPRT = "elo0=0,elo1=5"  # random against random: undecided within the games given
TIMEOUT_S = 300.0  # a command's, far past what one takes
UNDECIDED = 2  # arena test's and arena match's exit status when the games ran out


def command(args: list[str], env: Mapping[str, str]) -> float:
    """An ``arena`` command run to its end, undecided; its seconds."""
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    seconds = time.perf_counter() - began
    if done.returncode != UNDECIDED or "pairs" not in done.stdout:
        raise RuntimeError(f"arena {' '.join(args)}: exit {done.returncode}\n{done.stdout}"
                           f"{done.stderr[-3000:]}")  # fmt: skip
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=60, help="matches on each side")
    parser.add_argument("--broker", help="a Celery broker URL (default: an embedded Redis)")
    args = parser.parse_args()
    reason = unavailable()
    if reason is not None:
        print(f"sprt bench: skipped, no sandbox can be made here: {reason}")
        return 0
    times: dict[str, list[float]] = {"arena": [], "local": []}
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder:
        home = Path(folder) / "home"
        code = Path(folder) / "code"
        code.mkdir()
        (code / "v1.py").write_text(EXAMPLE.read_text())
        (code / "v2.py").write_text(EXAMPLE.read_text() + "# the second version\n")
        try:
            with scratch_database(home) as database:
                address, admin, env = arena_env(database, home, args.broker)
                with Processes(env, home / "logs") as running:
                    running.start("serve", "serve")
                    wait_serving(address)
                    organizer = Organizer(address, admin)
                    token = organizer.bot_token(BOT)
                    owner = env | {"ARENA_ADDRESS": address, "ARENA_TOKEN": token}
                    organizer.close()
                    running.start("worker", "worker")  # it checks the versions submitted
                    for file, more in (("v1.py", []), ("v2.py", ["--candidate"])):
                        subprocess.run(
                            [sys.executable, "-m", "arena.cli", "bot", "submit", BOT,
                             str(code / file), *more], env=owner, check=True,
                            capture_output=True, timeout=TIMEOUT_S,
                        )  # fmt: skip
                    games = ["--sprt", SPRT, "--games", str(args.games)]
                    sides = {
                        "arena": ["test", f"{BOT}@2", BOT, *games],
                        "local": ["match", "--bot", f"{sys.executable} {code / 'v2.py'}",
                                  "--bot", f"{sys.executable} {code / 'v1.py'}", *games],
                    }  # fmt: skip
                    command(sides["arena"], owner)  # a warm-up: the worker's first test
                    for number in range(1, args.rounds + 1):
                        order = list(sides) if number % 2 else list(sides)[::-1]
                        for side in order:
                            times[side].append(command(sides[side], owner))
                        took = {side: f"{seconds[-1]:.1f} s" for side, seconds in times.items()}
                        print(f"round {number} ({order[0]} first): {took}", flush=True)
        finally:
            stop_embedded_redis(home)
    pairs = args.games // 2
    ratios = [a / b for a, b in zip(times["arena"], times["local"], strict=True)]
    print(f"an SPRT of {pairs} pairs between two versions of random_bot.py, "
          f"median (min..max) of {args.rounds} rounds:")  # fmt: skip
    for side, seconds in times.items():
        median = statistics.median(seconds)
        print(f"  {side:6} {median:6.1f} s ({min(seconds):.1f}..{max(seconds):.1f}), "
              f"{1000 * median / pairs:.0f} ms a pair")  # fmt: skip
    ratio = statistics.median(ratios)
    print(f"arena / local: {ratio:.2f} ({min(ratios):.2f}..{max(ratios):.2f}) "
          f"(goal <= {GOAL:g}: {'met' if ratio <= GOAL else 'MISSED'})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
