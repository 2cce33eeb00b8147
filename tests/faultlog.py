"""The tallies of injected faults and hostile attacks, for the lines that end `make faults`
(printed by the terminal-summary hook in conftest.py)."""

from __future__ import annotations

from collections import Counter
from typing import Any

TALLY: dict[str, Any] = {"injected": 0, "survived": 0, "lost": 0, "double": 0, "drift": 0.0}
NOTES: list[str] = []  # other figures worth printing at the end (the load test's)
ATTACKS: Counter[str] = Counter()  # outcomes of the tests marked hostile


def record(survived: bool, lost: int, double: int, drift: float) -> None:
    TALLY["injected"] += 1
    TALLY["survived"] += int(survived)
    TALLY["lost"] += lost
    TALLY["double"] += double
    TALLY["drift"] = max(TALLY["drift"], drift)


def line() -> str:
    t = TALLY
    return (
        f"faults: {t['injected']} injected, {t['survived']} survived, {t['lost']} records lost, "
        f"{t['double']} double-counted, {t['drift']:g} Elo drift"
    )


def attacks_line() -> str:
    held, failed = ATTACKS["passed"], ATTACKS["failed"]
    skipped = f", {ATTACKS['skipped']} skipped" if ATTACKS["skipped"] else ""
    return f"hostile: {held + failed} attacks, {held} held, {failed} broke through{skipped}"
