"""Who plays, as values that parse and print themselves: the one place that knows how a
bot, a hosted version of it and a process's seat in a match are written.

- :class:`BotRef`: a registered bot (``alpha``) or one of its hosted versions
  (``alpha@2``, which plays under that name, with its own rating and seats: migration
  0010). A bot's name never holds ``@``.
- :class:`HostedSeat`: a hosted version's process seated in one match, as the referee
  knows its stream (``alpha@2 in r7-0003``; no bot name holds a space).
- :func:`is_match_token`: whether a token is a match token (a hosted process's, good for
  one seat of one match: arena/hosted/tokens.py signs them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from arena.errors import Invalid

MARK = "@"
MATCH_TOKEN = "match."  # the prefix of every match token
_VERSION = re.compile(r"^(?P<bot>[^@\s]+)@(?P<number>[1-9][0-9]{0,8})$")


@dataclass(frozen=True, slots=True, order=True)
class BotRef:
    """A bot, or version ``version`` of it (None: the bot itself)."""

    bot: str
    version: int | None = None

    @staticmethod
    def parse(text: str) -> BotRef:
        """``NAME`` or ``NAME@N``; Invalid for anything else with an ``@``."""
        if MARK not in text:
            return BotRef(text)
        found = _VERSION.match(text)
        if found is None:
            raise Invalid(f"{text[:80]!r} is neither a bot's name nor a version, NAME@N")
        return BotRef(found["bot"], int(found["number"]))

    def __str__(self) -> str:
        return self.bot if self.version is None else f"{self.bot}{MARK}{self.version}"

    @property
    def is_version(self) -> bool:
        """Whether it names a hosted version (whose process the arena starts)."""
        return self.version is not None

    def at(self, number: int) -> BotRef:
        """Version ``number`` of this bot."""
        return BotRef(self.bot, number)


def is_version(name: str) -> bool:
    """Whether a seat's name is a hosted version's (``NAME@N``)."""
    return MARK in name


def owner_bot(name: str) -> str:
    """The bot a name stands for: itself, or the bot a version is of."""
    return BotRef.parse(name).bot


def seats_of(bot: str | None, names: Sequence[str]) -> tuple[int, ...]:
    """The seats of a match (the names seated: bots, versions NAME@N) where bot ``bot``
    or one of its versions plays; none for no bot."""
    if bot is None:
        return ()
    return tuple(i for i, name in enumerate(names) if name.partition(MARK)[0] == bot)


@dataclass(frozen=True, slots=True)
class HostedSeat:
    """A hosted version's process in one match."""

    bot: str
    match_id: str

    def __str__(self) -> str:
        return f"{self.bot} in {self.match_id}"


def is_match_token(token: str) -> bool:
    return token.startswith(MATCH_TOKEN)
