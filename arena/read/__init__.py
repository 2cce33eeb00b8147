"""The read model: what people look at (leaderboards, bots, matches, tournaments, runs,
tests, ladders, nodes), as typed plain values read from the store, one module a subject:
:mod:`~arena.read.ratings`, :mod:`~arena.read.bots`, :mod:`~arena.read.matches`,
:mod:`~arena.read.tournaments`, :mod:`~arena.read.sprts`, :mod:`~arena.read.ladders`,
:mod:`~arena.read.nodes` (and :mod:`~arena.read.replay`, a record's hands step by step).

Each function answers one question and returns dicts whose shapes are declared beside it
(:class:`typing.TypedDict`): the web pages render them and their JSON twins are exactly
them, the Arena API turns them into its messages (``referee/messages.py``), and the CLI
presents the API's answers. Nothing here writes to the store. Numbers are rounded here,
once, and "no value" is always None. :class:`arena.errors.NotFound` says what is missing,
quoting what was asked for short.
"""

from __future__ import annotations

from datetime import datetime

from arena.domain.pools import parse_pool
from arena.errors import Invalid, NotFound


def stamp(at: datetime | None) -> str | None:
    return None if at is None else at.isoformat()


def check_pool(pool: str) -> str:
    """A pool's name checked (:func:`arena.domain.pools.parse_pool`): a page of no pool is 404."""
    try:
        return parse_pool(pool)
    except Invalid as e:
        raise NotFound(str(e)) from None
