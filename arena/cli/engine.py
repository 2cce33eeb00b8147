"""The commands that need nothing but the engine: ``replay``, ``rules``, ``play``."""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any, TextIO

from arena.cli.common import console, print_json, table_of
from arena.engine import (
    NOTES,
    PRESET_NAMES,
    SOURCES,
    SUMMARIES,
    Match,
    RecordError,
    Rules,
    TrucoError,
    disagreements,
    replay,
    replayed_record,
    to_record,
)


def cmd_replay(args: argparse.Namespace) -> int:
    return replay_file(args.file, sys.stdin, sys.stdout, sys.stderr)


def replay_file(path: str, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    """``arena replay``: the recomputed record on stdout (exit 0), or one line per
    problem on stderr and nothing on stdout (exit 1), whatever the input."""
    try:
        record = _read_record(path, stdin)
        match = replay(record)
        problems = disagreements(record, match)
        text = "" if problems else json.dumps(replayed_record(record, match), indent=2)
    except TrucoError as e:
        problems = [str(e)]
    except RecursionError:  # a value nested deeper than Python's stack, anywhere in the record
        problems = ["the record is nested too deeply"]
    for problem in problems:
        print(problem, file=stderr)
    if problems:
        return 1
    stdout.write(text + "\n")
    return 0


def _read_record(path: str, stdin: TextIO) -> Any:
    """The JSON value of the file ``path`` (``-``: standard input), read as UTF-8;
    :class:`RecordError` saying why it cannot be read."""
    try:
        if path == "-":
            data = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except OSError as e:
        raise RecordError(f"cannot read {path}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        where = f"byte 0x{e.object[e.start]:02x} at position {e.start}"
        raise RecordError(f"not UTF-8: {where}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"not JSON: {e}") from None
    except RecursionError:
        raise RecordError("not JSON: nested too deeply") from None
    except ValueError:  # the only other: a number too long to convert
        limit = sys.get_int_max_str_digits()
        raise RecordError(f"not JSON: a number has more than {limit} digits") from None


def cmd_rules_list(args: argparse.Namespace) -> int:
    table = table_of("preset", "in one line", "seats", "source", box=None)
    for name in PRESET_NAMES:
        rules = Rules.preset(name)
        default = " (default)" if name == "paulista" else ""
        table.add_row(name + default, SUMMARIES[name], str(rules.seats), SOURCES[name])
    console().print(table)
    return 0


def cmd_rules_show(args: argparse.Namespace) -> int:
    rules = args.rules
    if args.json:
        print_json({"preset": rules.name, **rules.parameters()})
        return 0
    base = Rules.preset(rules.name).parameter_texts()
    table = table_of("parameter", "value", "where it comes from", title=str(rules), box=None)
    for key, value in rules.parameter_texts().items():
        note = "override" if value != base[key] else NOTES[rules.name][key]
        table.add_row(key, value, note)
    out = console()
    out.print(table)
    out.print(f"source: {SOURCES[rules.name]}; 'chosen' marks values the source leaves open")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    rules = args.rules
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
