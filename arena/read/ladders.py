"""The read model of ladders: a pool's ladder, its settings and what it is doing, and a
bot's ladder matches (docs/ladder.md)."""

from __future__ import annotations

from typing import Any, TypedDict

from arena.domain.clock import TimeControl
from arena.domain.matchmaking import STALLED_TICKS, TICK_S
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
    per_hour: int | None  # its pace: the matches it finished while on in the last hour (to
    # the minute: this one and the 59 before); None while it is off
    last_match: str | None  # the last one finished
    available: list[str]  # the bots it could pair when it last looked
    looked_at: str | None
    on_since: str | None  # when it was switched on; None while it is off
    look: str  # off, looking, waiting (for its first look) or stalled (:func:`look`)
    quiet_s: int  # seconds since its last look, or since it was switched on if later
    tick_s: int  # how often arena beat looks
    opted_in: list[str]  # the bots in for this pool, as seated, connected or not


def look(on_for_s: float | None, looked_s: float | None) -> tuple[str, int]:
    """Whether a scheduler looks at the ladder, and for how many seconds it has not:
    from how long it has been on (None: off) and since its last look (None: never).
    ``looking`` when one looked since it was switched on, within STALLED_TICKS ticks;
    ``waiting`` for the first look in the ticks after it was switched on; else
    ``stalled`` (no beat is running, or no worker takes its tasks)."""
    if on_for_s is None:
        return "off", 0
    looked = looked_s is not None and looked_s <= on_for_s
    quiet = looked_s if looked and looked_s is not None else on_for_s
    if quiet <= STALLED_TICKS * TICK_S:
        return ("looking" if looked else "waiting"), int(quiet)
    return "stalled", int(quiet)


def ladder(store: Store, pool: str) -> Ladder | None:
    """The pool's ladder; None when it never had one."""
    row = store.ladder(check_pool(pool))
    if row is None:
        return None
    activity = store.ladder_activity(row.id)
    clock = TimeControl.from_json(row.clock)
    state, quiet_s = look(activity["on_for_s"], activity["looked_s"])
    return Ladder(
        pool=row.pool,
        on=row.running,
        concurrency=row.concurrency,
        decision_ms=clock.decision_ms,
        time_bank_ms=clock.time_bank_ms,
        reconnect_grace_ms=clock.reconnect_grace_ms,
        scheduled=row.scheduled,
        playing=activity["playing"],
        per_hour=activity["per_hour"] if row.running else None,
        last_match=activity["last_match"],
        available=list(row.available),
        looked_at=stamp(row.looked_at),
        on_since=stamp(row.on_since),
        look=state,
        quiet_s=quiet_s,
        tick_s=int(TICK_S),
        opted_in=sorted(b.seat for b in store.ladder_bots(row.pool)),
    )


def bot_ladder_matches(store: Store, bot: str, pool: str) -> list[dict[str, Any]]:
    """The bot's latest ladder matches in the pool, newest first, told from its side as
    its page lists its matches (:func:`arena.read.matches.told`)."""
    return told(store, bot, store.bot_ladder_matches(bot, pool, LADDER_RECENT))
