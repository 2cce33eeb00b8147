"""Time controls: how long a seat may think, in milliseconds.

A :class:`TimeControl` is the one form of a match's clocks from the request that sets
them to the referee that runs them. It crosses each wire once: the protobuf ``Clock``
message (arena/wire_clock.py) and, in the database, the JSON of ``to_json`` /
``from_json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from arena.engine import quoted
from arena.errors import Invalid

# each clock's range: a decision of at least a millisecond and at most a minute; ten
# minutes at most of bank or grace, where 0 means none
LIMITS_MS = {
    "decision_ms": (1, 60_000),
    "time_bank_ms": (0, 600_000),
    "reconnect_grace_ms": (0, 600_000),
}


def check_ms(name: str, value: object) -> int:
    """``value`` as the clock ``name``; Invalid naming the clock and its range otherwise
    (the one check of a clock's range, whoever sets it)."""
    low, high = LIMITS_MS[name]
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise Invalid(
            f"{name} must be a whole number of milliseconds from {low} to {high}, "
            f"not {quoted(value)}"
        )
    return value


@dataclass(frozen=True, slots=True)
class TimeControl:
    """The referee's clocks for one match (docs/rules.md, "Clocks and absence"). Every
    default is declared here and nowhere else."""

    decision_ms: int = 1000  # for each decision
    time_bank_ms: int = 10_000  # extra time for the whole match, spent by overruns
    reconnect_grace_ms: int = 60_000  # how long a disconnected bot's seats are held

    def __post_init__(self) -> None:
        for name in LIMITS_MS:
            check_ms(name, getattr(self, name))

    def to_json(self) -> dict[str, int]:
        """The stored form: the three clocks by name (a match's, a test's or a ladder's
        ``clock`` column; a tournament's definition holds them beside its other fields)."""
        return asdict(self)

    @staticmethod
    def from_json(data: Mapping[str, Any] | None) -> TimeControl:
        """From ``to_json``'s form, other keys ignored; a missing clock (None) or field
        takes its default."""
        known = {f.name for f in fields(TimeControl)}
        return TimeControl(**{k: v for k, v in (data or {}).items() if k in known})


DEFAULT_CLOCK = TimeControl()
