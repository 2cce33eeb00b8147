"""What every command shares: argument types, the clock options, the console, JSON in
one convention (:func:`as_json`), the exit status of a command whose reader went away."""

from __future__ import annotations

import argparse
import base64
import json
import math
import os
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NoReturn

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from arena.domain.clock import DEFAULT_CLOCK, LIMITS_MS, TimeControl, check_ms
from arena.engine import Rules, TrucoError, quoted
from arena.errors import MAX_ID, Invalid
from arena.logs import FORMATS, LEVELS, choice

if TYPE_CHECKING:  # what add_subparsers gives: a parser per command (generic in typeshed only)
    Commands = argparse._SubParsersAction["Parser"]


def logs_of(args: argparse.Namespace) -> tuple[str, str]:
    """The level and format of the command's logs: its ``--log-level`` and
    ``--log-format``, else ``$ARENA_LOG_LEVEL`` and ``$ARENA_LOG_FORMAT``, else INFO for
    the commands that run a server and WARNING for the others, in text."""
    level = getattr(args, "log_level", None) or choice(
        "ARENA_LOG_LEVEL",
        os.environ.get("ARENA_LOG_LEVEL") or str(getattr(args, "log_default", "warning")),
        LEVELS,
    )
    form = getattr(args, "log_format", None) or choice(
        "ARENA_LOG_FORMAT", os.environ.get("ARENA_LOG_FORMAT") or "text", FORMATS
    )
    return str(level), str(form)


READER_GONE = 141  # the exit status of a command killed by SIGPIPE, as the shell reports it


class Parser(argparse.ArgumentParser):
    """Usage errors in one line, exit 2: what is wrong, and where the help is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def count(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high`` in ASCII digits; anything
    else is a usage error (exit 2) that gives the range."""

    def parse(text: str) -> int:
        digits = text.removeprefix("-")
        if digits.isascii() and digits.isdigit() and len(digits) <= 20 and low <= int(text) <= high:
            return int(text)
        raise argparse.ArgumentTypeError(
            f"give a whole number from {low} to {high}, not {quoted(text)}"
        )

    return parse


MATCHES = count(1, 1000)  # matches or games asked for at once
SEED = count(0, 2**63 - 1)
ROW_ID = count(1, MAX_ID)


def run_ref(text: str) -> int | str:
    """An argparse type: a run, by its id, or by its tournament's name (its latest run,
    which :func:`arena.cli.reader.run_of` looks up)."""
    digits = text.removeprefix("-")
    if digits.isascii() and digits.isdigit():
        return ROW_ID(text)  # a number: an id (in range, or a usage error)
    if not text.strip():
        raise argparse.ArgumentTypeError("give a run's id or a tournament's name")
    return text


def node(text: str) -> str:
    """An argparse type: a Celery node name, ``NAME`` or ``NAME@HOST`` (Celery expands
    ``%h``, ``%n`` and ``%d`` to this host's name, its first part and its domain)."""
    name = text.partition("@")[0]
    if not name or len(text) > 200 or not text.isprintable() or any(c.isspace() for c in text):
        raise argparse.ArgumentTypeError(
            f"give a node name NAME or NAME@HOST, without spaces, not {quoted(text)}"
        )
    return text


RUN_HELP = "a run's id, or a tournament's name: its latest run"
LIMIT = count(1, 200)  # the Arena API's largest page
PORT = count(1, 65535)
CONCURRENCY = count(1, 64)
DECISION_MS = count(*LIMITS_MS["decision_ms"])  # a house bot's thinking time, as a clock's

CLOCK_HELP = {
    "decision_ms": "time for each decision",
    "time_bank_ms": "extra time for the whole match, spent by overruns",
    "reconnect_grace_ms": "how long a lost bot's seats are held before a house bot plays",
}


def clock_options(parser: argparse.ArgumentParser, *, keep: bool = False) -> None:
    """``--decision-ms``, ``--time-bank-ms`` and ``--reconnect-grace-ms``, their ranges
    and defaults as :class:`TimeControl` declares them; with ``keep``, each left out
    stays as it was (None)."""
    for name, default in DEFAULT_CLOCK.to_json().items():
        parser.add_argument(
            "--" + name.replace("_", "-"),
            type=_clock_ms(name),
            default=None if keep else default,
            help=f"{CLOCK_HELP[name]} ({'unchanged if left out; first ' if keep else 'default '}"
            f"{default})",
        )


def _clock_ms(name: str) -> Callable[[str], int]:
    """An argparse type: the clock ``name`` in ASCII digits, in the range TimeControl
    checks (:func:`check_ms`); anything else is a usage error that gives the range."""

    def parse(text: str) -> int:
        digits = text.removeprefix("-")
        whole = digits.isascii() and digits.isdigit() and len(digits) <= 20
        try:
            return check_ms(name, int(text) if whole else text)
        except Invalid as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    return parse


def clock_given(args: argparse.Namespace) -> bool:
    """Whether a clock option was given (``clock_options(keep=True)``)."""
    return any(getattr(args, name) is not None for name in LIMITS_MS)


def clock_of(args: argparse.Namespace, base: TimeControl = DEFAULT_CLOCK) -> TimeControl:
    """The TimeControl the clock options give: ``base``'s clocks for those left out
    (``clock_options(keep=True)``)."""
    given = {name: getattr(args, name) for name in LIMITS_MS}
    return replace(base, **{name: ms for name, ms in given.items() if ms is not None})


def sprt_options(parser: argparse.ArgumentParser, about: str, required: bool = False) -> None:
    """``--sprt elo0=E0,elo1=E1`` and its error rates ``--alpha`` and ``--beta``."""
    parser.add_argument(
        "--sprt", type=sprt_test, required=required, metavar="elo0=E0,elo1=E1", help=about
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="the false H1 rate (0.05)")
    parser.add_argument("--beta", type=float, default=0.05, help="the false H0 rate (0.05)")


def sprt_test(text: str) -> str:
    """``--sprt`` values, checked (:func:`arena.domain.sprt.parse_test`): a bad one is a usage
    error (exit 2). Its alpha and beta come from their own options."""
    from arena.domain.sprt import parse_test

    try:
        parse_test(text)
    except Invalid as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def rules(text: str) -> Rules:
    """``--rules`` values: argparse reports a bad one as a usage error (exit 2)."""
    try:
        return Rules.parse(text)
    except TrucoError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def duration(text: str) -> int:
    """A length of time (:func:`arena.domain.times.parse_duration`), in seconds; a bad one
    is a usage error."""
    from arena.domain.times import parse_duration

    try:
        return parse_duration(text)
    except Invalid as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def time(text: str) -> str:
    """``--since`` and ``--until`` values (:func:`arena.domain.times.parse_time`), as the RFC 3339
    time the Arena API is sent: ages and days are reckoned here, by this machine's clock."""
    from datetime import UTC, datetime

    from arena.domain.times import parse_time

    try:
        return parse_time(text, datetime.now(UTC)).isoformat()
    except Invalid as e:
        raise argparse.ArgumentTypeError(str(e)) from None


UNCUT = 1_000_000  # columns: wider than anything a command prints


def table_of(*headers: str, **options: Any) -> Any:
    """A rich table of these columns (``options``: the Table's) whose cells fold onto more
    lines where a terminal is too narrow for them, never cut short with an ellipsis."""
    from rich.table import Column, Table

    return Table(*(Column(h, overflow="fold") for h in headers), **options)


def console() -> Any:
    """A rich console on standard output that leaves a reader gone away to ``main()``, as
    print does (rich on its own would exit with status 1). On a terminal, tables fit its
    width (long cells fold); into a pipe or a file they are never cut, wrapped or folded:
    each line as wide as it is (a program reading them sees every cell whole)."""
    from rich.console import Console

    class Piped(Console):
        def on_broken_pipe(self) -> None:
            raise  # rich calls this while it handles the BrokenPipeError: main() takes it

    out = Piped()
    if not out.is_terminal:
        out.width = UNCUT  # rich's own 80 columns (or $COLUMNS) would cut what is wider
    return out


def as_json(message: Message) -> dict[str, Any]:
    """A reply of the Arena API as plain values, the one convention of every ``--json``:
    the proto's own field names (snake_case), every field printed (one that may be unset
    and is: None), 64-bit integers as numbers like every other integer, repeated fields as
    lists, maps as objects, enums by name, bytes in base64. Read from the message's
    descriptor, so that no field is left out or renamed. Times are RFC 3339 text with
    their offset, as the Arena API writes them (:func:`arena.read.stamp`)."""
    out: dict[str, Any] = {}
    for field in message.DESCRIPTOR.fields:
        value = getattr(message, field.name)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            kind = field.message_type.fields_by_name["value"]
            out[field.name] = {str(k): _value(kind, v) for k, v in sorted(value.items())}
        elif field.is_repeated:
            out[field.name] = [_value(field, v) for v in value]
        elif field.has_presence and not message.HasField(field.name):
            out[field.name] = None
        else:
            out[field.name] = _value(field, value)
    return out


def _value(field: Any, value: Any) -> Any:  # a FieldDescriptor (upb's or Python's)
    """One value of ``field`` as JSON has it (a float that is not finite, which JSON
    cannot write, as None)."""
    kind = field.cpp_type
    if kind == FieldDescriptor.CPPTYPE_MESSAGE:
        return as_json(value)
    if kind == FieldDescriptor.CPPTYPE_ENUM:
        known = field.enum_type.values_by_number.get(value) if field.enum_type else None
        return value if known is None else known.name
    if field.type == FieldDescriptor.TYPE_BYTES:
        return base64.b64encode(value).decode()
    if kind in (FieldDescriptor.CPPTYPE_DOUBLE, FieldDescriptor.CPPTYPE_FLOAT):
        return float(value) if math.isfinite(value) else None
    return value  # int (of any width), bool, str: as Python has them


def print_json(data: Message | dict[str, Any] | list[Any]) -> None:
    """What a ``--json`` prints: one JSON document (a reply as :func:`as_json` has it)."""
    print(json.dumps(as_json(data) if isinstance(data, Message) else data, indent=2))
