"""The grammar of the organizers' commands and of the action log (``arena organizer
...``, ``arena log``: docs/events.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.cli import accounts
from arena.cli.common import count

if TYPE_CHECKING:
    from arena.cli.common import Commands

WHOSE = (
    "An organizer's call: with ARENA_ORGANIZER_TOKEN (a named organizer's own token), else "
    "the first organizer's (ARENA_ADMIN_TOKEN, or the one in ARENA_HOME)."
)


def organizers(sub: Commands) -> None:
    group = sub.add_parser("organizer", help="organizers: add, remove, list (organizer); new-token")
    actions = group.add_subparsers(metavar="ACTION")
    p = actions.add_parser(
        "add",
        help="a new organizer with a token of their own; prints it once",
        description="A new organizer, named in the action log for what they do. Their "
        "token is printed once and never kept: they set ARENA_ORGANIZER_TOKEN to it. " + WHOSE,
    )
    p.add_argument("name", help="1 to 64 letters, digits, '.', '_' or '-'")
    p.set_defaults(run=accounts.cmd_organizer_add)
    p = actions.add_parser(
        "remove",
        help="remove an organizer: their token is refused at once",
        description="Remove a named organizer: their token is refused from the next call "
        "on. The first organizer is not removed: change ARENA_ADMIN_TOKEN. " + WHOSE,
    )
    p.add_argument("name")
    p.set_defaults(run=accounts.cmd_organizer_remove)
    p = actions.add_parser(
        "new-token",
        help="print a new random token, for ARENA_ADMIN_TOKEN (asks no server)",
        description="Print a new random token (32 random bytes, URL-safe) and nothing else, "
        "for the first organizer's ARENA_ADMIN_TOKEN: set the same one on every referee, "
        "worker and web process of the arena (docs/operations.md). Nothing is stored.",
    )
    p.set_defaults(run=accounts.cmd_new_token)
    p = actions.add_parser("list", help="the organizers, removed ones too", description=WHOSE)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=accounts.cmd_organizer_list)

    p = sub.add_parser(
        "log",
        help="who did what: the action log, oldest of the latest first (organizer)",
        description="Every organizer's and bot owner's action (register, submit, rotate "
        "token, ladder on/off, start test, add organizer, ...), with who did it and when: "
        "the latest LIMIT, printed oldest first (--json: newest first). " + WHOSE,
    )
    p.add_argument("--subject", help="only what was done to this: a bot, a pool, 'test 3', ...")
    p.add_argument("--actor", help="only what this one did: an organizer's name, or 'bot NAME'")
    p.add_argument(
        "--limit", type=count(1, 1000), default=50, help="entries at most (50; up to 1000)"
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=accounts.cmd_log)
