"""Who is credited with a match when a bot was not there to play it (docs/rules.md,
"Absent bots").

The referee keeps every seat playing: a bot that is away has its decisions made for it
(the rules' default action while its seat is held, then a house bot). That keeps the
game going for the others, but the result must not go to a bot that was not there. So
the referee counts, for each bot, the decisions of its seats and how many of them were
made while it was away (the record's ``presence``), and a bot away for more than
:data:`SHARE` of its decisions is **absent**: under the ``forfeit`` policy its team loses
the match, whatever the score. When both teams have an absent bot nobody is credited
with a win (both lose; no rating moves). Under ``play-on`` (casual events) the score
stands as played.

The same rule holds for every match the arena records: tournaments, challenges,
sequential tests and the ladder. Pure: it reads a record, decides, and does nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.errors import Invalid

SHARE = 0.5  # a bot away for more than this share of its decisions is absent
POLICIES = ("forfeit", "play-on")
DEFAULT_POLICY = "forfeit"


@dataclass(frozen=True, slots=True)
class Credit:
    """The result a match counts as: ``winner`` is the team credited with it (None when
    both teams forfeited), ``forfeits`` the teams that lost by forfeit, ``absent`` the
    bots whose absence caused it."""

    winner: int | None
    forfeits: tuple[int, ...] = ()
    absent: tuple[str, ...] = ()


def check_policy(policy: str) -> str:
    if policy not in POLICIES:
        raise Invalid(f"absent must be one of {', '.join(POLICIES)}, not {policy!r}")
    return policy


def is_absent(decisions: int, away: int) -> bool:
    """Whether a bot with ``away`` of its ``decisions`` made for it was absent."""
    return decisions > 0 and away > SHARE * decisions


def absent_bots(record: Mapping[str, Any]) -> list[str]:
    """The bots of a match record that were absent, by the record's ``presence``."""
    presence = record.get("presence") or {}
    return sorted(
        bot
        for bot, seen in presence.items()
        if is_absent(int(seen.get("decisions", 0)), int(seen.get("away", 0)))
    )


def credit(record: Mapping[str, Any], policy: str = DEFAULT_POLICY) -> Credit:
    """The result a finished match counts as under ``policy`` (forfeit or play-on)."""
    played = record["result"]["winner"]
    if played not in (0, 1):
        raise ValueError("the record has no winner")
    if check_policy(policy) == "play-on":
        return Credit(played)
    absent = absent_bots(record)
    seats = record.get("seats", [])
    teams = tuple(sorted({i % 2 for i, bot in enumerate(seats) if bot in absent}))
    if not teams:
        return Credit(played)
    winner = None if len(teams) == 2 else 1 - teams[0]
    return Credit(winner, teams, tuple(absent))
