"""The grammar of the exports (``arena export run|pool|bot``: docs/exports.md)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from arena.cli import exports
from arena.cli.common import RUN_HELP, run_ref
from arena.domain.exports import BOT_EXPORTS, FORMATS, RUN_EXPORTS
from arena.domain.pools import DEFAULT_POOL

if TYPE_CHECKING:
    from arena.cli.common import Commands

ABOUT = (
    "Write a file of results (docs/exports.md) to standard output, or to --output FILE, as "
    "it arrives: CSV (a header line, then a line a row) or NDJSON (a JSON object a line). "
    "Anyone may export what the pages show; with --organizer (ARENA_ORGANIZER_TOKEN, else "
    "the first organizer's token) records are whole, seeds and hidden cards included."
)


def export_commands(sub: Commands) -> None:
    group = sub.add_parser(
        "export", help="results as files: a run's, a pool's leaderboard, a bot's matches",
        description=ABOUT,
    )  # fmt: skip
    actions = group.add_subparsers(metavar="SUBJECT")
    p = actions.add_parser("run", help="a run's standings, matches or records", description=ABOUT)
    p.add_argument("run_id", type=run_ref, metavar="RUN", help=RUN_HELP)
    p.add_argument(
        "--what", choices=RUN_EXPORTS, default="standings",
        help="standings (the default: a line a bot), matches (a line a match) or records "
        "(each match with its record; NDJSON only)",
    )  # fmt: skip
    _file_options(p)
    p.set_defaults(run=exports.cmd_export_run, subject="run")

    p = actions.add_parser(
        "pool", help="a pool's leaderboard, with each rating's interval", description=ABOUT
    )
    p.add_argument("pool", nargs="?", default=DEFAULT_POOL, help=f"default {DEFAULT_POOL}")
    p.add_argument("--retired", action="store_true", help="list retired bots too")
    _file_options(p)
    p.set_defaults(run=exports.cmd_export_pool, subject="pool", what="leaderboard")

    p = actions.add_parser(
        "bot", help="a bot's matches, told from its side, or their records", description=ABOUT
    )
    p.add_argument("name")
    p.add_argument(
        "--what", choices=BOT_EXPORTS, default="matches",
        help="matches (the default) or records (NDJSON only)",
    )  # fmt: skip
    p.add_argument("--pool", help="only this pool's matches (PRESET/TEAM_SIZE)")
    _file_options(p)
    p.set_defaults(run=exports.cmd_export_bot, subject="bot")


def _file_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--format", choices=FORMATS, help="csv or ndjson (default csv; ndjson for records)"
    )
    p.add_argument("--output", metavar="FILE", help="write the file here (default: stdout)")
    p.add_argument(
        "--organizer", action="store_true",
        help="as the organizer: whole records (seeds, hidden cards)",
    )  # fmt: skip
