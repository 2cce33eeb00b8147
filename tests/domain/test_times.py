"""Times as people type them (arena.domain.times): the forms, their zone, and the refusals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from arena.domain.times import parse_time
from arena.errors import Invalid

NOW = datetime(2026, 11, 30, 18, 45, 10, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("now", NOW),
        ("today", datetime(2026, 11, 30, tzinfo=UTC)),
        ("yesterday", datetime(2026, 11, 29, tzinfo=UTC)),
        (" Yesterday ", datetime(2026, 11, 29, tzinfo=UTC)),
        ("45s", datetime(2026, 11, 30, 18, 44, 25, tzinfo=UTC)),
        ("30m", datetime(2026, 11, 30, 18, 15, 10, tzinfo=UTC)),
        ("2h", datetime(2026, 11, 30, 16, 45, 10, tzinfo=UTC)),
        ("3d", datetime(2026, 11, 27, 18, 45, 10, tzinfo=UTC)),
        ("3 D", datetime(2026, 11, 27, 18, 45, 10, tzinfo=UTC)),
        ("1w", datetime(2026, 11, 23, 18, 45, 10, tzinfo=UTC)),
        ("2026-11-29", datetime(2026, 11, 29, tzinfo=UTC)),
        ("2026-11-29T10:00Z", datetime(2026, 11, 29, 10, tzinfo=UTC)),
        ("2026-11-29t10:00:00z", datetime(2026, 11, 29, 10, tzinfo=UTC)),
        ("2026-11-29 10:00:00+00:00", datetime(2026, 11, 29, 10, tzinfo=UTC)),
        ("2026-11-29T10:00:00.5-03:00", datetime(2026, 11, 29, 13, 0, 0, 500_000, tzinfo=UTC)),
        ("2026-11-29T10:00", datetime(2026, 11, 29, 10, tzinfo=UTC)),  # no offset: UTC
    ],
)
def test_the_forms_people_type(text: str, expected: datetime) -> None:
    parsed = parse_time(text, NOW)
    assert parsed == expected and parsed.tzinfo is not None


def test_an_offset_given_is_kept() -> None:
    parsed = parse_time("2026-11-29T10:00:00-03:00", NOW)
    assert parsed.utcoffset() == timedelta(hours=-3)
    assert parsed.isoformat() == "2026-11-29T10:00:00-03:00"


def test_days_are_utc_days_whatever_the_zone_of_now() -> None:
    # 01:00 on the 30th at UTC+3 is still the 29th in UTC
    east = datetime(2026, 11, 30, 1, 0, tzinfo=timezone(timedelta(hours=3)))
    assert parse_time("today", east) == datetime(2026, 11, 29, tzinfo=UTC)
    assert parse_time("yesterday", east) == datetime(2026, 11, 28, tzinfo=UTC)
    assert parse_time("2h", east) == east - timedelta(hours=2)


FORMS = "give an RFC 3339 time, a date, or an age such as 2h or 3d"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("foo", "'foo'"),
        ("", "''"),
        ("2x", "'2x'"),
        ("-2h", "'-2h'"),
        ("2h30m", "'2h30m'"),
        ("2026-11-31", "'2026-11-31'"),
        ("29/11/2026", "'29/11/2026'"),
        ("999999999w", "'999999999w'"),  # before year 1
        ("9" * 5000, "'" + "9" * 40),  # quoted short
    ],
)
def test_anything_else_is_refused_naming_the_forms(text: str, shown: str) -> None:
    with pytest.raises(Invalid) as refused:
        parse_time(text, NOW)
    message = str(refused.value)
    assert message.startswith(shown) and message.endswith(f" is not a time: {FORMS}")
    assert len(message) < 200
