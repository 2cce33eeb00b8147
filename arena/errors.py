"""The kinds of error a request can meet, whoever serves it: each boundary (the store
translating the driver's errors, the Arena API's status codes, the web's HTTP statuses,
the CLI's exit) deals in these kinds, never in message text.

Each is an :class:`ArenaError` whose message is meant for the user, quoting what they
sent short (:func:`arena.engine.errors.quoted`).
"""

from __future__ import annotations


class ArenaError(Exception):
    """A request that cannot be carried out, said in words."""


class NotFound(ArenaError, LookupError):
    """No such bot, match, run, tournament or pool."""


class Exists(ArenaError):
    """The name (or id) is taken already."""


class Invalid(ArenaError, ValueError):
    """The request itself is wrong: a bad value, a bad name, an impossible combination."""


class Forbidden(ArenaError):
    """The caller is known, and this is not theirs to do or to see: another bot's token,
    a rated test asked for with a bot's own token, the organizer's lists."""


class Unauthenticated(ArenaError):
    """The request needs a token (the organizer's, or the bot's own) and carries none."""


class NotReady(ArenaError):
    """The request is right, but the arena is not in a state to carry it out now: a bot
    that is not connected, a server without workers to play matches."""


class Sealed(ArenaError):
    """Withheld for now: a match whose duplicate twin is not played yet."""


class Unavailable(ArenaError):
    """A service the request needs (the database, the referee) cannot be reached now;
    the same request may succeed later."""


class Exhausted(ArenaError):
    """A cap is reached: what a bot may keep (its versions, their bytes), or what may be
    going at once (uploads in progress, an owner's tests). The same request may succeed
    once something ends or is freed, or made smaller."""


MAX_ID = 2**63 - 1  # ids are PostgreSQL bigints


def parse_id(text: str) -> int | None:
    """A row id written in ASCII digits (``"42"``), or None for anything else: ``"²"``,
    ``"-1"``, a number too large to be an id."""
    if not (text.isascii() and text.isdigit()) or len(text) > 19:
        return None
    value = int(text)
    return value if value <= MAX_ID else None
