"""The read model of ladders: a pool's ladder, its settings and what it is doing, and a
bot's ladder matches (docs/ladder.md)."""

from __future__ import annotations

from typing import Any, TypedDict

from arena.domain.clock import TimeControl
from arena.read import check_pool, stamp
from arena.read.matches import told
from arena.store.store import Store

LADDER_RECENT = 10  # ladder matches listed on a bot's page


class Ladder(TypedDict):
    pool: str
    on: bool
    concurrency: int
    decision_ms: int
    time_bank_ms: int
    reconnect_grace_ms: int
    scheduled: int  # matches it has started, in all
    playing: int  # its matches neither finished nor failed
    per_hour: int  # its matches an hour: the last hour's, or the pace of its latest 100
    last_match: str | None  # the last one finished
    available: list[str]  # the bots it could pair when it last looked
    looked_at: str | None


def ladder(store: Store, pool: str) -> Ladder | None:
    """The pool's ladder; None when it never had one."""
    row = store.ladder(check_pool(pool))
    if row is None:
        return None
    activity = store.ladder_activity(row.id)
    clock = TimeControl.from_json(row.clock)
    return Ladder(
        pool=row.pool,
        on=row.running,
        concurrency=row.concurrency,
        decision_ms=clock.decision_ms,
        time_bank_ms=clock.time_bank_ms,
        reconnect_grace_ms=clock.reconnect_grace_ms,
        scheduled=row.scheduled,
        playing=activity["playing"],
        per_hour=activity["per_hour"],
        last_match=activity["last_match"],
        available=list(row.available),
        looked_at=stamp(row.looked_at),
    )


def bot_ladder_matches(store: Store, bot: str, pool: str) -> list[dict[str, Any]]:
    """The bot's latest ladder matches in the pool, newest first, told from its side as
    its page lists its matches (:func:`arena.read.matches.told`)."""
    return told(store, bot, store.bot_ladder_matches(bot, pool, LADDER_RECENT))
