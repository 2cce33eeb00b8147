"""The ``arena`` command: parse the arguments (:mod:`arena.cli.grammar`), hand off to the
module of the command's concern, print.

- :mod:`~arena.cli.engine`: ``replay``, ``rules``, ``play`` (the engine alone);
- :mod:`~arena.cli.match`: ``arena match``, local matches between child processes;
- :mod:`~arena.cli.reader` and :mod:`~arena.cli.organizer`: the Arena API's commands,
  through :class:`~arena.cli.client.Arena`, with the presenters the demo uses too;
- :mod:`~arena.cli.servers`: the commands that run a process of the arena.

The commands that run a referee or a worker import ``referee`` and ``workers`` when they
run: the CLI is the one place that wires every part together. A bot author's install
(``pip install truco-arena``) has the engine's commands, local matches, ``bot run`` and
the Arena API's readers of a remote arena; a command that needs the server parts says
so (:func:`server_parts`) instead of failing on an import.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from importlib import metadata

from arena import logs
from arena.cli.common import READER_GONE, logs_of
from arena.engine import TrucoError
from arena.errors import ArenaError


def main(argv: Sequence[str] | None = None) -> int:
    try:
        try:
            return _main(argv)
        finally:  # help and SystemExit too: what is still buffered goes now, not at exit
            sys.stdout.flush()
    except BrokenPipeError:
        # Whoever read standard output went away (`arena matches | head -2`): stop quietly,
        # as cat or grep do. Standard output now leads nowhere, so that the interpreter's
        # last flush at exit has nothing to complain about.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return READER_GONE


def _main(argv: Sequence[str] | None) -> int:
    from arena.cli.grammar import parser

    # gRPC's fork handlers only warn here: the embedded servers are started by fork+exec
    os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
    grammar = parser()
    args = grammar.parse_args(argv)
    if not hasattr(args, "run"):
        grammar.print_help()
        return 2
    try:
        log_level, log_format = logs_of(args)
        logs.configure(log_level, log_format)
        code: int = args.run(args)
    except (ArenaError, TrucoError) as e:  # the user's: the message is meant for them
        print(f"arena: {e}", file=sys.stderr)
        return 1  # anything else is a bug: its traceback shows
    except ModuleNotFoundError as e:
        if (e.name or "").partition(".")[0] not in server_parts():
            raise
        print(
            f"arena {args.command} needs the server parts ({e.name} is missing): "
            "pip install 'truco-arena[server]'",
            file=sys.stderr,
        )
        return 1
    return code


def server_parts() -> set[str]:
    """The modules of the packages of the server extra (pyproject.toml's ``server``), as
    this installation's metadata lists them: what a bot author's install leaves out."""
    try:
        needs = metadata.requires("truco-arena") or []
    except metadata.PackageNotFoundError:  # run from a source tree never installed
        return set()
    names = (re.match(r"[A-Za-z0-9_.-]+", n) for n in needs if re.search(r"extra == .server", n))
    return {m[0].lower().replace("-", "_") for m in names if m}
