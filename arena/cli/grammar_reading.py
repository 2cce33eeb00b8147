"""The grammar of ``arena matches``: which matches (a bot's, a pool's, a run's, listed
in a span of time), how many (a page, or ``--all``), and as text or JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.cli import reader
from arena.cli.common import LIMIT, run_ref, time

if TYPE_CHECKING:
    from arena.cli.common import Commands

LISTED = (
    "a match is listed by when it finished, else when it started, else when it was made: "
    "the time each line shows"
)


def matches(sub: Commands) -> None:
    p = sub.add_parser(
        "matches",
        help="recorded matches, the latest listed first",
        description=f"Matches, the latest first; {LISTED}.",
    )
    p.add_argument("--bot", help="only this bot's")
    p.add_argument("--pool", help="only this pool's (PRESET/TEAM_SIZE)")
    p.add_argument(
        "--run",
        type=run_ref,
        metavar="RUN",
        dest="run_id",
        help="only this run's (its id, or a tournament's name: its latest run)",
    )
    p.add_argument(
        "--since",
        type=time,
        metavar="TIME",
        help="listed at or after: an RFC 3339 time (2026-11-29T10:00Z), a date (2026-11-29, "
        "UTC), today, yesterday, or an age (30m, 2h, 3d, 1w)",
    )
    p.add_argument(
        "--until", type=time, metavar="TIME", help="listed before (a time of the same forms)"
    )
    many = p.add_mutually_exclusive_group()
    many.add_argument("--limit", type=LIMIT, default=20, help="at most this many (default 20)")
    many.add_argument("--all", action="store_true", help="every one, page after page (no limit)")
    p.add_argument(
        "--json",
        action="store_true",
        help='print them as one JSON object, ListMatches\' reply: {"matches": [...]}',
    )
    p.set_defaults(run=reader.cmd_matches)
