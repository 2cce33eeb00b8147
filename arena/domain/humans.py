"""A person playing a bot from the web pages (docs/web.md, "Playing a bot yourself"): who
they are, the clock they play on and the seat row they sit in.

A :class:`Person` is a bot's owner signed in (``owner:alpha``) or a guest, known by the
random id of their cookie (``guest:3f2a...``). It is kept in the match's ``human``
column, so that a match's seat is only ever played, and its moves only ever posted, by
the person who started it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.domain.clock import TimeControl
from arena.errors import Invalid

HUMAN_BOT = "human"  # the bot row of every human seat (migration 0021)
# People think slower than bots: a minute a decision (the most a clock allows), five
# minutes of bank for the long ones, and two minutes to come back after a lost connection.
HUMAN_CLOCK = TimeControl(decision_ms=60_000, time_bank_ms=300_000, reconnect_grace_ms=120_000)
# A person's match that plays longer than this is taken for lost and sent to be played
# again (a match's is STALL_S, two minutes): a person at a minute a decision plays a long
# match in a couple of hours at worst.
HUMAN_STALL_S = 4 * 3600
_GUEST = re.compile(r"^[0-9a-f]{16}$")


@dataclass(frozen=True, slots=True)
class Person:
    """The owner of bot ``bot``, or (``bot`` None) the guest ``guest``."""

    bot: str | None = None
    guest: str | None = None

    def __post_init__(self) -> None:
        if (self.bot is None) == (self.guest is None):
            raise Invalid("a person is a bot's owner or a guest")
        if self.guest is not None and not _GUEST.match(self.guest):
            raise Invalid("a guest's id is 16 hexadecimal digits")

    @staticmethod
    def parse(text: str) -> Person:
        kind, _, name = text.partition(":")
        if kind == "owner" and name:
            return Person(bot=name)
        if kind == "guest":
            return Person(guest=name)
        raise Invalid(f"{text[:40]!r} is neither owner:NAME nor guest:ID")

    def __str__(self) -> str:
        return f"owner:{self.bot}" if self.bot is not None else f"guest:{self.guest}"

    @property
    def is_guest(self) -> bool:
        return self.guest is not None

    def words(self) -> str:
        """How the pages name them."""
        return f"{self.bot}'s owner" if self.bot is not None else "a guest"
