"""Cron schedules (five fields, UTC): when a scheduled tournament fires.

Celery's ``crontab`` reads the expressions and steps through them (a pure computation:
nothing here touches a broker); :func:`check_schedule` only reads one, so checking a
definition never depends on the time it is checked at.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from arena.errors import Invalid

CATCH_UP = timedelta(days=1)  # a schedule's missed firings older than this are skipped
STALL_S = 120  # a run or a match with no progress this long is taken up again (and audited)


def _crontab(expr: str) -> Any:
    from celery.schedules import crontab

    parts = expr.split()
    if len(parts) != 5:
        raise Invalid(
            f"a schedule is five cron fields (minute hour day-of-month month day-of-week, "
            f"UTC), not {expr!r}"
        )
    minute, hour, day_of_month, month, day_of_week = parts
    try:
        return crontab(minute, hour, day_of_week, day_of_month, month)
    except ValueError as e:
        raise Invalid(f"bad schedule {expr!r}: {e}") from None


def check_schedule(expr: str) -> None:
    """Invalid, saying why, when ``expr`` is not a schedule."""
    _crontab(expr)


def next_firing(expr: str, after: datetime) -> datetime:
    """The first time the cron schedule fires after ``after`` (UTC, whole minutes)."""
    last, delta, _ = _crontab(expr).remaining_delta(after.astimezone(UTC), tz=UTC)
    firing: datetime = last + delta
    return firing.astimezone(UTC)


def due_firing(expr: str, fired: datetime, now: datetime) -> datetime | None:
    """The latest time in (``fired``, ``now``] that the schedule fires at, or None. Firings
    missed by more than CATCH_UP (the scheduler was down) are skipped, not caught up."""
    at = max(fired, now - CATCH_UP)
    latest = None
    while (firing := next_firing(expr, at)) <= now:
        latest = at = firing
    return latest
