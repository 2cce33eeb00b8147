"""The ``arena`` command: parse the arguments, hand off, print."""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from arena.engine import Match, Rules, TrucoError, disagreements, replay, to_record
from arena.engine.record import replayed_record
from arena.engine.rules import PRESET_NAMES
from arena.engine.sources import NOTES, SOURCES, SUMMARIES

log = logging.getLogger(__name__)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    code: int = args.run(args)
    return code


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arena", description="Truco Arena")
    sub = parser.add_subparsers(metavar="COMMAND")

    p = sub.add_parser("replay", help="replay a match record, checking every action")
    p.add_argument("file", help="the record (JSON), or - for standard input")
    p.set_defaults(run=cmd_replay)

    rules = sub.add_parser("rules", help="the rule presets and their parameters")
    rules_sub = rules.add_subparsers(metavar="ACTION")
    p = rules_sub.add_parser("list", help="the presets, one line each")
    p.set_defaults(run=cmd_rules_list)
    p = rules_sub.add_parser("show", help="every parameter of a preset, and where it comes from")
    p.add_argument("name", help="a preset, optionally with overrides: paulista:team_size=2")
    p.add_argument("--json", action="store_true", help="print the parameters as JSON")
    p.set_defaults(run=cmd_rules_show)

    p = sub.add_parser("demo", help="play and print a seeded match between two random players")
    p.add_argument("--rules", default="paulista", help="PRESET[:param=value,...]")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--record", metavar="FILE", help="also write the match record here")
    p.set_defaults(run=cmd_demo)
    return parser


def cmd_replay(args: argparse.Namespace) -> int:
    return replay_file(args.file, sys.stdin, sys.stdout, sys.stderr)


def replay_file(path: str, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    """``arena replay``: the recomputed record on stdout (exit 0), or one line per
    problem on stderr and nothing on stdout (exit 1)."""
    try:
        if path == "-":
            text = stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        print(f"cannot read {path}: {e.strerror}", file=stderr)
        return 1
    try:
        record = json.loads(text)
    except json.JSONDecodeError as e:
        print(f"not JSON: {e}", file=stderr)
        return 1
    try:
        match = replay(record)
    except TrucoError as e:
        print(e, file=stderr)
        return 1
    problems = disagreements(record, match)
    for problem in problems:
        print(problem, file=stderr)
    if problems:
        return 1
    json.dump(replayed_record(record, match), stdout, indent=2)
    stdout.write("\n")
    return 0


def cmd_rules_list(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    table = Table("preset", "in one line", "seats", "source", box=None)
    for name in PRESET_NAMES:
        rules = Rules.preset(name)
        default = " (default)" if name == "paulista" else ""
        table.add_row(name + default, SUMMARIES[name], str(rules.seats), SOURCES[name])
    Console().print(table)
    return 0


def cmd_rules_show(args: argparse.Namespace) -> int:
    try:
        rules = Rules.parse(args.name)
    except TrucoError as e:
        print(f"arena rules show: {e}", file=sys.stderr)
        return 2
    params = rules.parameters()
    if args.json:
        print(json.dumps({"preset": rules.name, **params}, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    base = Rules.preset(rules.name).parameters()
    table = Table("parameter", "value", "where it comes from", title=str(rules), box=None)
    for key, value in params.items():
        note = "override" if value != base[key] else NOTES[rules.name][key]
        table.add_row(key, _text(value), note)
    console = Console()
    console.print(table)
    console.print(f"source: {SOURCES[rules.name]}; 'chosen' marks values the source leaves open")
    return 0


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def cmd_demo(args: argparse.Namespace) -> int:
    try:
        rules = Rules.parse(args.rules)
    except TrucoError as e:
        print(f"arena demo: {e}", file=sys.stderr)
        return 2
    names = [f"random-{i}" for i in range(rules.seats)]
    match = Match(rules, names, seed=args.seed)
    players = random.Random(args.seed)
    print(f"{rules} | seed {args.seed} | " + " vs ".join("+".join(names[t::2]) for t in (0, 1)))
    printed = 0
    while not match.is_over:
        match.apply(players.choice(match.legal_actions()))
        while printed < len(match.hands) and match.hands[printed].result is not None:
            print(_hand_line(match, printed))
            printed += 1
    assert match.outcome is not None
    team = match.outcome.winner
    print(f"winner: team {team} ({'+'.join(names[team::2])}) {match.score[0]}-{match.score[1]}")
    if args.record:
        with open(args.record, "w", encoding="utf-8") as f:
            json.dump(to_record(match), f, indent=2)
        print(f"record written to {args.record}; check it with: arena replay {args.record}")
    return 0


def _hand_line(match: Match, i: int) -> str:
    hand = match.hands[i]
    vira = f"vira {hand.vira}" if hand.vira else "no vira"
    acts = " ".join(
        f"{s}:{a.card}{'*' if a.covered else ''}" if a.card else f"{s}:{a.type}"
        for s, a in hand.actions
    )
    assert hand.result is not None
    points = hand.result.points
    return f"hand {i:2} dealer {hand.dealer} {vira:8} {acts:<44} -> {points[0]}-{points[1]}"


if __name__ == "__main__":
    sys.exit(main())
