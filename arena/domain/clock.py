"""Time controls: how long a seat may think, in milliseconds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from arena.errors import Invalid

# the longest each clock may be: a decision of a minute, ten minutes of bank or grace
LIMITS_MS = {"decision_ms": 60_000, "time_bank_ms": 600_000, "reconnect_grace_ms": 600_000}


@dataclass(frozen=True, slots=True)
class TimeControl:
    """The referee's clocks for one match (docs/rules.md, "Clocks and absence"). Every
    default is declared here and nowhere else."""

    decision_ms: int = 1000  # for each decision
    time_bank_ms: int = 10_000  # extra time for the whole match, spent by overruns
    reconnect_grace_ms: int = 60_000  # how long a disconnected bot's seats are held

    def __post_init__(self) -> None:
        for name, limit in LIMITS_MS.items():
            value = getattr(self, name)
            low = 1 if name == "decision_ms" else 0
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= limit:
                raise Invalid(
                    f"{name} must be a whole number of milliseconds from {low} to {limit}, "
                    f"not {value!r}"
                )

    def to_json(self) -> dict[str, int]:
        return asdict(self)

    @staticmethod
    def from_json(data: Mapping[str, Any] | None) -> TimeControl:
        """From ``to_json``'s dict; a missing clock (None) or field takes its default."""
        known = {f.name for f in fields(TimeControl)}
        return TimeControl(**{k: v for k, v in (data or {}).items() if k in known})


DEFAULT_CLOCK = TimeControl()
