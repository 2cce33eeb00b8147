"""Who does what (docs/events.md, "Organizers and the action log"): the one place that
knows how the action log writes the one who did an action.

An actor is an organizer's name (the first organizer, whose token is ARENA_ADMIN_TOKEN or
the one in ARENA_HOME, is :data:`FIRST`; the others are named when they are added), or
``bot NAME`` for a bot's own token (:func:`bot_actor`), or :data:`ARENA` for what the
arena does by itself (its house bots). No organizer's name holds a space, so a bot's
actor never reads as an organizer's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.domain.identity import owner_bot
from arena.engine import quoted
from arena.errors import Invalid

FIRST = "organizer"  # the first organizer: the token of ARENA_ADMIN_TOKEN or ARENA_HOME
ARENA = "arena"  # the arena itself: what no one asked for (a house bot made when needed)
SCHEDULER = "scheduler"  # a tournament's cron schedule: the runs it starts
RESERVED = (FIRST, ARENA, SCHEDULER)
BOT = "bot "  # the prefix of a bot's own token's actor
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")  # migration 0016's check


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who reads the arena (the Arena API's reading calls, the web pages): anyone (the
    default), an organizer (``organizer``: every card, every seed), or the owner of bot
    ``bot``, who showed its token: the cards its own seats saw in its matches, no more."""

    organizer: bool = False
    bot: str | None = None

    def owns(self, name: str) -> bool:
        """Whether this is the owner of ``name``: its bot, or a version of it (NAME@N)."""
        return self.bot is not None and owner_bot(name) == self.bot


ANYONE = Viewer()


def bot_actor(bot: str) -> str:
    """The actor of bot ``bot``'s own token: ``bot NAME``."""
    return BOT + bot


def bot_of(actor: str) -> str | None:
    """The bot whose own token an actor is (None: an organizer, or the arena)."""
    return actor.removeprefix(BOT) if actor.startswith(BOT) else None


def check_organizer_name(name: str) -> str:
    """``name`` when it may name a new organizer: 1 to 64 ASCII letters, digits, '.', '_'
    or '-', starting with a letter or digit, and none of :data:`RESERVED`; else Invalid."""
    if _NAME.fullmatch(name) is None:
        raise Invalid(
            f"{quoted(name[:80])} is not an organizer's name: use 1 to 64 letters, digits, "
            "'.', '_' or '-', starting with a letter or digit"
        )
    if name.lower() in RESERVED:
        raise Invalid(f"{quoted(name)} is a name the arena keeps for itself; choose another")
    return name
