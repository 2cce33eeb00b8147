"""``arena match``: local matches between bots run as child processes, and the summary."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from arena.cli.common import clock_of, console
from arena.rating import EloDifference, elo_text

FAULTS = ("timeouts", "rejected", "disconnects", "substituted")


def cmd_match(args: argparse.Namespace) -> int:
    if args.show:
        from arena.cli.reader import show_match

        return show_match(args)
    if len(args.bot) < 2:
        print("arena match: give at least two --bot (or: arena match show ID)", file=sys.stderr)
        return 2

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from referee.local import exit_words, play_local

    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, transient=True, disable=args.json, console=console()) as bar:
        task = bar.add_task("matches", total=args.games)
        try:
            summary = asyncio.run(
                play_local(
                    args.rules,
                    args.bot,
                    games=args.games,
                    seed=args.seed,
                    clock=clock_of(args),
                    records=Path(args.records) if args.records else None,
                    progress=lambda done, total: bar.update(task, completed=done),
                )
            )
        except (ValueError, RuntimeError) as e:
            print(f"arena match: {e}", file=sys.stderr)
            return 1
    result = summary.to_json()
    if args.json:
        print(json.dumps(result))
    else:
        print_summary(result, summary.elo())
    for bot, ended in result["exited"].items():  # the matches went on without them
        output = f"its last output:\n{ended['output']}" if ended["output"] else "it printed nothing"
        print(
            f"arena match: bot {bot} ({ended['command']}) {exit_words(ended['status'])} "
            f"before its matches ended (a house bot took its seats after the reconnect "
            f"grace); {output}",
            file=sys.stderr,
        )
    return 0


def print_summary(result: dict[str, Any], elo: EloDifference) -> None:
    from rich.table import Table

    table = Table("bot", "wins", "points", *FAULTS, box=None)
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
