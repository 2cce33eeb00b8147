"""``arena match``: local matches between bots run as child processes, and the summary."""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
from pathlib import Path
from typing import Any

from arena.cli.common import clock_of, console, print_json, table_of
from arena.domain.rating import EloDifference, elo_text
from arena.domain.sprt import Sequential, estimate, parse_test
from arena.engine import TrucoError
from arena.errors import Invalid

FAULTS = ("timeouts", "rejected", "disconnects", "substituted", "errors")
MAX_SPRT_GAMES = 20_000  # an SPRT's matches when --games does not say: then it is undecided
EXIT = {"H1": 0, "H0": 1, None: 2}  # --sprt's exit status by verdict (None: undecided)
PLAY_FAILED = 3  # --sprt's exit status when the matches could not be played


def cmd_match(args: argparse.Namespace) -> int:
    if args.show:
        from arena.cli.reader import show_match

        return show_match(args)
    if len(args.bot) < 2:
        print("arena match: give at least two --bot (or: arena match show ID)", file=sys.stderr)
        return 2
    test = None
    if args.sprt is not None:
        if len(args.bot) != 2:
            print("arena match: --sprt compares two bots: --bot NEW --bot BASE", file=sys.stderr)
            return 2
        try:
            test = Sequential(parse_test(args.sprt, args.alpha, args.beta))
        except Invalid as e:
            print(f"arena match: {e}", file=sys.stderr)
            return 2
    games = args.games or (MAX_SPRT_GAMES if test else 2)

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from referee.local import exit_words, play_local

    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, transient=True, disable=args.json, console=console()) as bar:
        task = bar.add_task("matches", total=games)

        def enough(k: int, winner: int) -> bool:
            if test is None:
                return False
            decided = test.add(k // 2, winner == k % 2)  # NEW holds team k % 2 in match k
            bar.update(task, description=sprt_line(test))
            return decided

        try:
            summary = asyncio.run(
                play_local(
                    args.rules,
                    args.bot,
                    games=games,
                    seed=args.seed,
                    clock=clock_of(args),
                    records=Path(args.records) if args.records else None,
                    progress=lambda done, total: bar.update(task, completed=done),
                    enough=enough,
                )
            )
        except (Invalid, TrucoError, RuntimeError) as e:
            print(f"arena match: {e}", file=sys.stderr)
            return 1 if test is None else PLAY_FAILED
    result = summary.to_json()
    if test is not None:
        new, base = result["bots"]
        result["sprt"] = test.to_json() | {"new": new, "base": base}
    if args.json:
        print_json(result)
    else:
        print_summary(result, summary.elo())
        if test is not None:
            console().print(f"NEW {new} (the first --bot), BASE {base} (the second)")
            console().print(sprt_line(test))
            console().print(verdict_line(test, result["sides"]))
    for bot, ended in result["exited"].items():  # the matches went on without them
        output = f"its last output:\n{ended['output']}" if ended["output"] else "it printed nothing"
        print(
            f"arena match: bot {bot} ({ended['command']}) {exit_words(ended['status'])} "
            f"before its matches ended (a house bot took its seats after the reconnect "
            f"grace); {output}",
            file=sys.stderr,
        )
    return 0 if test is None else EXIT[test.verdict]


def print_summary(result: dict[str, Any], elo: EloDifference) -> None:
    table = table_of("bot", "wins", "points", *FAULTS, box=None)
    for bot in result["bots"]:
        f = result["faults"].get(bot, {})
        table.add_row(
            bot,
            f"{result['wins'][bot]}/{result['games']}",
            str(result["points"][bot]),
            *(str(f.get(k, 0)) for k in FAULTS),
        )
    out = console()
    out.print(table)
    sides = [" + ".join(side) for side in result["sides"]]
    out.print(
        f"{sides[0]} vs {sides[1]}: Elo difference {elo_text(elo)} "
        f"over {result['games']} games of {result['rules']}"
    )


def sprt_line(test: Sequential) -> str:
    """The test's state in a line: pairs and their outcomes, LLR and bounds, Elo."""
    lost, split, won = test.pairs
    return (
        f"pairs {lost + split + won} (lost both {lost}, split {split}, won both {won}), "
        f"LLR {test.llr:.2f} ({test.test.lower:.2f}, {test.test.upper:.2f}), "
        f"{elo_words(test.pairs)}"
    )


def elo_words(pairs: list[int]) -> str:
    """NEW's Elo over BASE with its interval, or in words where there is no interval:
    no pair decided yet, or every one won by the same side."""
    found = estimate(pairs)
    if found is None:
        return "Elo: no information yet (no pair decided)"
    elo, low, high = found
    if elo in (math.inf, -math.inf):
        return f"Elo: {'NEW' if elo > 0 else 'BASE'} won every pair"
    return f"Elo {elo + 0.0:+.1f} ({low + 0.0:+.1f} to {high + 0.0:+.1f})"


def verdict_line(test: Sequential, sides: list[list[str]]) -> str:
    """The verdict, naming NEW (the first side) and BASE."""
    new, base = (" + ".join(side) for side in sides)
    bounds = f"elo0={test.test.elo0:g}, elo1={test.test.elo1:g}"
    if test.verdict == "H1":
        return f"H1 accepted ({bounds}): NEW {new} is stronger than BASE {base}"
    if test.verdict == "H0":
        return f"H0 accepted ({bounds}): NEW {new} is not stronger than BASE {base} by elo1"
    return (
        f"undecided ({bounds}): the matches ran out before the test could decide whether "
        f"NEW {new} is stronger than BASE {base}"
    )
