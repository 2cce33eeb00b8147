"""The read model: what people look at (leaderboards, bots, matches, tournaments, runs,
tests, ladders, nodes), as typed plain values read from the store, one module a subject:
:mod:`~arena.read.ratings`, :mod:`~arena.read.bots`, :mod:`~arena.read.matches`,
:mod:`~arena.read.tournaments`, :mod:`~arena.read.sprts`, :mod:`~arena.read.ladders`,
:mod:`~arena.read.nodes` (and :mod:`~arena.read.replay`, a record's hands step by step).

Each function answers one question and returns dicts whose shapes are declared beside it
(:class:`typing.TypedDict`): the web pages render them and their JSON twins are exactly
them, the Arena API turns them into its messages (``referee/messages.py``), and the CLI
presents the API's answers. Nothing here writes to the store. Numbers are rounded here,
once, and "no value" is always None. Times are written in one form, by :func:`stamp`.
:class:`arena.errors.NotFound` says what is missing, quoting what was asked for short.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import overload

from arena.domain.pools import parse_pool
from arena.errors import Invalid, NotFound


@overload
def stamp(at: datetime) -> str: ...
@overload
def stamp(at: None) -> None: ...
@overload
def stamp(at: datetime | None) -> str | None: ...
def stamp(at: datetime | None) -> str | None:
    """A time as every page, API reply and command shows it: RFC 3339 in UTC, with its
    offset written ``+00:00`` (and its fraction of a second, when it has one); None stays
    None. A time without a zone is a bug: the store's times all carry one."""
    if at is None:
        return None
    if at.utcoffset() is None:
        raise ValueError(f"a time without its zone: {at!r}")
    return at.astimezone(UTC).isoformat()


def check_pool(pool: str) -> str:
    """A pool's name checked (:func:`arena.domain.pools.parse_pool`): a page of no pool is 404."""
    try:
        return parse_pool(pool)
    except Invalid as e:
        raise NotFound(str(e)) from None
