"""Whether the ratings' intervals mean what they say: the pool fit (arena/domain/poolfit.py)
against today's online Elo with its printed Bradley-Terry interval (arena/domain/rating.py).

``python -m tests.bench.ratings`` (part of ``make bench``) prints, from fixed seeds
(tests/calibration.py defines the pools, the truth and the measures;
docs/ratings-calibration.md gives the figures):

- **coverage** of 95% intervals over synthetic pools of 8, 20 and 50 bots: independent
  matches, duplicate pairs with a luck of 1.5 and 3 nats a deal, 2x2 teams; N(0, 200 Elo)
  strengths and wide ones with outliers; 10, 50 and 200 games a bot; ladder-like and
  round-robin schedules. By kind and size, then by kind, strengths and games; ``--intervals``
  bots' intervals a setting (400).
- **games to settle**: a newcomer joins a settled pool of 20 and plays random opponents
  until its half interval is at most 50 Elo: median and spread over ``--settle``
  newcomers (20), independent and duplicate, for both; and whether its interval then
  holds its truth.
- **wander**: over the last 1,000 matches of a ladder of 16 fixed bots (4,000 matches),
  how far each bot's online Elo swings, against the fit refitted every 10 matches
  (``--rounds`` ladders, 3).
- **the house bots**: real paulista 1x1 duplicate pairs (``--house-pairs`` a pairing, 1,000;
  ``--workers`` processes, 2) of six house bots from the random bot to mc: their measured
  win shares and a deal's luck, their fitted strengths, and coverage on pools of their
  copies drawn from those real matches (``--house-pairs 0`` skips it).
- **the fit's time** for pools of 50, 200 and 500 bots (100 games a bot; the median of
  ``--rounds`` fits).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from arena.domain.poolfit import Lineup, fit
from tests.calibration import (
    HOUSE_LADDER,
    Array,
    Bank,
    Coverage,
    Setting,
    Synthetic,
    Tally,
    elo_of_chance,
    games_to_settle,
    house_bank,
    ladder,
    lineups_of,
    luck_of,
    normal_strengths,
    play,
    pool_coverage,
    wander,
)

SIZES = (8, 20, 50)
GAMES = (10, 50, 200)
KINDS: dict[str, dict[str, object]] = {
    "independent": {},
    "duplicate, luck 1.5": {"duplicate": True, "luck": 1.5},
    "duplicate, luck 3": {"duplicate": True, "luck": 3.0},
    "2x2 teams": {"team_size": 2},
}
HOUSE_COPIES = (2, 4, 8)  # copies of each of the six house bots: pools of 12, 24, 48
HOUSE_GAMES = (20, 60, 200)
FIT_SIZES = (50, 200, 500)


def pct(t: Tally) -> str:
    return f"{100 * t.share:5.1f}" if t.total else "-"


def synthetic(intervals: int, seed: int) -> dict[tuple[str, str, int, int], Coverage]:
    """Coverage of every synthetic setting, keyed by (kind, strengths, games, size)."""
    out: dict[tuple[str, str, int, int], Coverage] = {}
    for k, (kind, options) in enumerate(KINDS.items()):
        schedules = ("ladder",) if "teams" in kind else ("ladder", "round-robin")
        for strengths in ("normal", "wide"):
            for games in GAMES:
                for size in SIZES:
                    rng = np.random.default_rng([seed, k, games, size, strengths == "wide"])
                    total = Coverage()
                    for _ in range(math.ceil(intervals / size / len(schedules))):
                        for schedule in schedules:
                            setting = Setting(size, games, schedule, strengths, **options)  # type: ignore[arg-type]
                            total += pool_coverage(setting, rng)
                    out[kind, strengths, games, size] = total
    return out


def merged(cells: dict[tuple[str, str, int, int], Coverage], keep: Callable[..., bool]) -> Coverage:
    total = Coverage()
    for key, c in cells.items():
        if keep(*key):
            total += c
    return total


HEADER = (
    f"{'':<40} {'fit: bots':>9} {'pairs':>5} {'far':>5} {'bt':>5} | {'online: bots':>12}"
    f" {'pairs':>5} {'n':>5}"
)


def row(label: str, c: Coverage) -> str:
    return (
        f"{label:<40} {pct(c.bots):>9} {pct(c.pairs):>5} {pct(c.far_pairs):>5} "
        f"{pct(c.model_pairs):>5} | {pct(c.old_bots):>12} {pct(c.old_pairs):>5} {c.bots.total:>5}"
    )


def print_coverage(intervals: int, seed: int) -> None:
    began = time.perf_counter()
    cells = synthetic(intervals, seed)
    print("coverage of 95% intervals, synthetic pools (% holding the truth). bots: against")
    print("their pseudo-truth; pairs: differences against the head-to-head truth, far: of")
    print("pairs 300 or more apart, bt: against the difference of pseudo-truths; online: the")
    print("online Elo +/- the Bradley-Terry half it was printed with; n: bots' intervals")
    print(HEADER)
    for kind in KINDS:
        for size in SIZES:
            print(
                row(
                    f"{kind}, {size} bots",
                    merged(cells, lambda k, s, g, n, kind=kind, size=size: (k, n) == (kind, size)),
                )
            )
    print()
    print(HEADER)
    for kind in KINDS:
        for strengths in ("normal", "wide"):
            for games in GAMES:
                wanted = (kind, strengths, games)
                c = merged(cells, lambda k, s, g, n, wanted=wanted: (k, s, g) == wanted)
                print(row(f"{kind}, {strengths}, {games} games", c))
    pools = sum(c.pools for c in cells.values())
    skipped = sum(c.disconnected for c in cells.values())
    print(f"({pools} pools, {skipped} of them in groups that never met and skipped; "
          f"{time.perf_counter() - began:.0f} s)\n")  # fmt: skip


def spread(values: Sequence[float]) -> str:
    """Median and the 10%-90% range."""
    if not values:
        return "never"
    q = np.quantile(values, [0.1, 0.5, 0.9])
    return f"{q[1]:5.0f} ({q[0]:.0f}-{q[2]:.0f})"


def print_settling(newcomers: int, seed: int) -> None:
    began = time.perf_counter()
    print("games until a newcomer's half interval is at most 50 Elo (median, 10%-90%), in a")
    print("pool of 20 settled bots (200 round-robin games each), random opponents; then")
    print("the share of newcomers whose interval holds their truth, and the median error")
    columns = f"{'games':>17} {'held':>5} {'error':>5}"
    print(f"{'':<24} fit: {columns} | online: {columns}")
    for duplicate in (False, True):
        rng = np.random.default_rng([seed, duplicate])
        runs = [games_to_settle(rng, duplicate) for _ in range(newcomers)]
        cells = []
        for side in (0, 1):
            settled = [r[side] for r in runs if r[side].games is not None]
            held = np.mean([abs(s.error) <= s.half for s in settled]) if settled else math.nan
            error = statistics.median(abs(s.error) for s in settled) if settled else math.nan
            games = spread([s.games for s in settled if s.games])
            cells.append(f"{games:>17} {100 * held:4.0f}% {error:5.0f}")
        label = "duplicate pairs (1.5)" if duplicate else "independent"
        print(f"{label:<24} {cells[0]} | {cells[1]}")
    print(f"({newcomers} newcomers each; {time.perf_counter() - began:.0f} s)\n")


def print_wander(rounds: int, seed: int) -> None:
    began = time.perf_counter()
    online: list[float] = []
    fitted: list[float] = []
    for r in range(rounds):
        a, b = wander(np.random.default_rng([seed, r]))
        online.extend(a)
        fitted.extend(b)
    print("wander: how far a fixed bot's rating swings (max - min, Elo) over the last 1,000")
    print("matches of a 4,000-match ladder of 16 bots (N(0, 200) strengths)")
    for label, swings in (
        ("online Elo (K = 24), after every match", online),
        ("pool fit, refitted every 10 matches", fitted),
    ):
        q50, q90 = np.quantile(swings, [0.5, 0.9])
        print(f"  {label:<40} median {q50:4.0f}, 90% {q90:4.0f}, max {max(swings):4.0f}")
    print(f"({rounds} ladders, {len(online)} bots; {time.perf_counter() - began:.0f} s)\n")


def bank_lineups(bank: dict[tuple[int, int], Array]) -> list[Lineup]:
    """The bank's pairs between different bots as lineups of the six bots."""
    out = []
    for (u, v), pairs in sorted(bank.items()):
        if u == v:
            continue
        won = pairs.sum(axis=1)
        paired = (int(np.sum(won == 0)), int(np.sum(won == 1)), int(np.sum(won == 2)))
        out.append(
            Lineup((HOUSE_LADDER[u],), (HOUSE_LADDER[v],), 2 * len(pairs), int(won.sum()), paired)
        )
    return out


def print_house(pairs: int, workers: int, intervals: int, seed: int) -> None:
    began = time.perf_counter()
    bank = house_bank(pairs, workers)
    matches = 2 * sum(len(p) for p in bank.values())
    print(f"house bots: {pairs} real duplicate pairs a pairing, {matches} paulista 1x1 matches in "
          f"{time.perf_counter() - began:.0f} s ({workers} processes)")  # fmt: skip
    house_report(bank, intervals, seed)
    print(f"({time.perf_counter() - began:.0f} s in all)\n")


def house_report(bank: dict[tuple[int, int], Array], intervals: int, seed: int) -> None:
    """The bank's measured shares, a deal's luck and the fitted strengths; coverage on
    pools of copies of the bots drawn from it, and the bots' by house bot."""
    print(f"{'':<22} {'share':>6} {'Elo':>5} {'split':>6} {'dispersion':>10} {'luck':>5}")
    for (u, v), rows in sorted(bank.items()):
        share = float(rows.mean())
        both, neither = float(np.mean(rows.all(axis=1))), float(np.mean(~rows.any(axis=1)))
        won = rows.sum(axis=1)
        ratio = float(won.var() / (2 * share * (1 - share))) if 0 < share < 1 else math.nan
        if u == v:  # sides of copies are alike: the symmetric chances
            both = neither = (both + neither) / 2
        # lopsided pairings split as often whatever the luck: no reading of it
        luck = luck_of(both, neither, share) if 0.1 <= share <= 0.9 else math.nan
        clipped = min(max(share, 0.5 / len(rows)), 1 - 0.5 / len(rows))
        elo = float(elo_of_chance(clipped))
        pairing = f"{HOUSE_LADDER[u]:>10}-{HOUSE_LADDER[v]:<11}"
        print(
            f"{pairing} {share:6.3f} {elo:5.0f} {1 - both - neither:6.3f} {ratio:10.2f} {luck:5.1f}"
        )
    result = fit(bank_lineups(bank))
    print("fitted (every pairing's pairs at once; mean 1500): " + ", ".join(
        f"{b} {result.ratings[b].elo:.0f} +/- {result.ratings[b].half:.0f}" for b in HOUSE_LADDER
    ) + f"; dispersion {result.dispersion:.2f}")  # fmt: skip
    sweeps = [(u, v) for (u, v), rows in bank.items() if u != v and rows.all() | ~rows.any()]
    if sweeps:
        named = ", ".join(f"{HOUSE_LADDER[u]}-{HOUSE_LADDER[v]}" for u, v in sweeps)
        print(f"no pools: {named} won every match one way (no finite truth); more --house-pairs")
        return
    print(HEADER)
    for duplicate in (False, True):
        by_bot = Coverage()
        for copies in HOUSE_COPIES:
            size = copies * len(HOUSE_LADDER)
            for games in HOUSE_GAMES:
                rng = np.random.default_rng([seed, duplicate, copies, games])
                total = Coverage()
                for _ in range(math.ceil(intervals / size)):
                    world = Bank(bank, np.repeat(np.arange(len(HOUSE_LADDER)), copies))
                    total += pool_coverage(
                        Setting(size, games, duplicate=duplicate), rng, world=world
                    )
                label = f"{'duplicate' if duplicate else 'independent'}, {size} bots, {games} games"
                print(row(label, total))
                by_bot += total
        kind = "duplicate" if duplicate else "independent"
        shares = ", ".join(
            f"{HOUSE_LADDER[g]} {pct(t).strip()}" for g, t in sorted(by_bot.groups.items())
        )
        print(f"  {kind}: the bots' coverage by house bot: {shares}")


def fit_times(rounds: int, seed: int) -> Iterable[str]:
    for size in FIT_SIZES:
        rng = np.random.default_rng([seed, size])
        world = Synthetic(normal_strengths(size, rng))
        rows = lineups_of(play(world, *ladder(size, 100, rng), rng))
        times = []
        for _ in range(rounds):
            began = time.perf_counter()
            fit(rows)
            times.append(time.perf_counter() - began)
        yield f"  {size} bots, {len(rows)} lineups: {1000 * statistics.median(times):7.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--intervals", type=int, default=400, help="bots' intervals a setting")
    parser.add_argument("--settle", type=int, default=20, help="newcomers a setting")
    parser.add_argument("--rounds", type=int, default=3, help="wander ladders and timed fits")
    parser.add_argument(
        "--house-pairs", type=int, default=1000, help="real pairs a pairing (0: skip)"
    )
    parser.add_argument("--workers", type=int, default=2, help="processes playing the house bots")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print_coverage(args.intervals, args.seed)
    print_settling(args.settle, args.seed)
    print_wander(args.rounds, args.seed)
    if args.house_pairs:
        print_house(args.house_pairs, args.workers, args.intervals, args.seed)
    print("the pool fit's time, 100 games a bot on random pairings (median of --rounds):")
    for line in fit_times(max(args.rounds, 3), args.seed):
        print(line)


if __name__ == "__main__":
    main()
