"""Times as people type them, for the filters that take one (``arena matches --since``,
the Arena API's ListMatches): one parser, so that every way in reads a time alike.

Days and times written without an offset are UTC, the arena's clock (tournament schedules
are UTC too), whatever the zone of the machine that asks.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, time, timedelta

from arena.engine import quoted
from arena.errors import Invalid

AGE = re.compile(r"(\d{1,9}) ?([smhdw])")  # 30m, 2h, 3d, 1w: that long before now
SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}
FORMS = "give an RFC 3339 time, a date, or an age such as 2h or 3d"


def parse_time(text: str, now: datetime) -> datetime:
    """``text`` as a time with its zone: an RFC 3339 time (``2026-11-29T10:00:00Z``), a
    date (``2026-11-29``, its midnight), ``today`` or ``yesterday`` (midnight), ``now``,
    or an age back from ``now`` (``30m``, ``2h``, ``3d``, ``1w``: seconds, minutes, hours,
    days or weeks). Invalid, quoting ``text`` and naming the forms, for anything else."""
    word = text.strip().lower()
    midnight = datetime.combine(now.astimezone(UTC).date(), time(), UTC)
    named = {"now": now, "today": midnight, "yesterday": midnight - timedelta(days=1)}
    if word in named:
        return named[word]
    age = AGE.fullmatch(word)
    try:
        if age:
            return now - timedelta(seconds=int(age[1]) * SECONDS[age[2]])
        parsed = datetime.fromisoformat(word.upper())  # RFC 3339 allows t and z as well
    except (ValueError, OverflowError):  # OverflowError: an age from before year 1
        raise Invalid(f"{quoted(text)} is not a time: {FORMS}") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def parse_duration(text: str) -> int:
    """``text`` as a length of time in seconds: ``90s``, ``30m``, ``2h``, ``1d`` or ``1w``
    (a bare number is seconds). Invalid, quoting ``text``, for anything else."""
    word = text.strip().lower()
    if word.isascii() and word.isdigit() and len(word) <= 9:
        return int(word)
    found = AGE.fullmatch(word)
    if not found:
        raise Invalid(f"{quoted(text)} is not a length of time: give 90s, 30m, 2h or 1d")
    return int(found[1]) * SECONDS[found[2]]
