"""A match to be played, as whoever makes it decides it: a run's planning, a challenge, a
sequential test or a ladder. One value for all of them, stored by one insert
(:meth:`arena.store.store.Store.insert_matches`): a new column of a match is a new field
here and a new name in that insert, nowhere else.

The ids of the matches that runs, tests and ladders make are built here too: each is its
maker's prefix, its maker's id and its number there.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from arena.domain.absence import DEFAULT_POLICY, check_policy
from arena.domain.clock import DEFAULT_CLOCK, TimeControl
from arena.domain.pools import pool_of
from arena.engine import Rules, quoted
from arena.errors import Invalid


@dataclass(frozen=True, slots=True)
class NewMatch:
    """A match to play: its id, rules, the bot row at each seat, the seed of its deals,
    its clocks, whether it is rated, what absence does to its result, its duplicate twin
    (the match dealt the same cards, seats exchanged) and what made it: a run, a ladder or
    a sequential test (none of them: a challenge, or a version's check)."""

    id: str
    rules: Rules
    seats: tuple[int, ...]
    seed: int
    clock: TimeControl = DEFAULT_CLOCK
    rated: bool = True
    absent: str = DEFAULT_POLICY
    twin: str | None = None
    run_id: int | None = None
    ladder_id: int | None = None
    sprt_id: int | None = None
    round: int | None = None  # its round, in a run played in rounds (knockout, swiss)
    human: str | None = None  # who holds its human seat (arena/domain/humans.py), if any

    def __post_init__(self) -> None:
        if len(self.seats) != self.rules.seats:
            raise Invalid(f"{self.rules} has {self.rules.seats} seats, not {len(self.seats)}")
        makers = [m for m in (self.run_id, self.ladder_id, self.sprt_id) if m is not None]
        if len(makers) > 1:
            raise Invalid(f"match {quoted(self.id)}: made by one run, ladder or test at most")
        if self.human is not None and (makers or self.rated):
            raise Invalid(f"match {quoted(self.id)}: a person's match is unrated and nobody's")
        check_policy(self.absent)

    @property
    def pool(self) -> str:
        """The pool it is rated in (or would be, unrated)."""
        return pool_of(self.rules)


def run_match_id(run_id: int, number: int) -> str:
    return f"r{run_id}-{number:04d}"


def sprt_match_id(test_id: int, number: int) -> str:
    return f"sprt{test_id}-{number:05d}"


def ladder_match_id(ladder_id: int, number: int) -> str:
    return f"ladder{ladder_id}-{number:06d}"


def challenge_match_id() -> str:
    """A fresh id for a match asked for by hand (a challenge): random, so that nobody
    learns how many were asked before."""
    return f"m-{secrets.token_hex(8)}"


def human_match_id() -> str:
    """A fresh id for a person's match against a bot (docs/web.md, "Playing a bot
    yourself"): random, as a challenge's."""
    return f"h-{secrets.token_hex(8)}"


def check_match_id(version_id: int, number: int) -> str:
    """The id of a version's check match (numbered from 1)."""
    return f"check-{version_id}-{number}"


def match_number(match_id: str) -> int:
    """The number a run's, a test's or a ladder's match has there (its id's last part)."""
    number = match_id.rpartition("-")[2]
    if not (number.isascii() and number.isdigit()):
        raise Invalid(f"match {quoted(match_id)} is not numbered by what made it")
    return int(number)


def replay_match_id(match_id: str) -> str:
    """The id of the match that plays ``match_id`` again: its own id and the play's
    number, ``r3-0007.2`` the second play of ``r3-0007`` (``r3-0007.3`` the third)."""
    base, dot, number = match_id.rpartition(".")
    if dot and number.isdigit():
        return f"{base}.{int(number) + 1}"
    return f"{match_id}.2"
