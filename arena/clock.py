"""Time controls: how long a seat may think, in milliseconds."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TimeControl:
    """The referee's clocks for one match (RULES.md, "Clocks and absence")."""

    decision_ms: int = 1000  # for each decision
    time_bank_ms: int = 10_000  # extra time for the whole match, spent by overruns
    reconnect_grace_ms: int = 60_000  # how long a disconnected bot's seats are held

    def __post_init__(self) -> None:
        for name in ("decision_ms", "time_bank_ms", "reconnect_grace_ms"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a whole number of milliseconds, not {value!r}")
        if self.decision_ms == 0:
            raise ValueError("decision_ms must be more than 0")
