"""The referee writes beside each action of its record how long the decision took against
its deadline, and what went wrong on the way: a default played at the deadline, a
stand-in's action, the actions refused before it (docs/rules.md, "Match records"). Real
bots as processes, over gRPC on loopback; every record also replays (``play``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.domain.clock import TimeControl
from tests.referee.test_referee import fake, play

pytestmark = pytest.mark.hostile


def actions_of(record: dict[str, Any], bot: str) -> list[dict[str, Any]]:
    seats = {i for i, name in enumerate(record["seats"]) if name == bot}
    return [a for h in record["hands"] for a in h["actions"] if a["seat"] in seats]


def test_each_action_tells_its_time_its_deadline_and_its_faults(tmp_path: Path) -> None:
    # the illegal bot has every first try refused, then answers; the sleepy one never does
    clock = TimeControl(decision_ms=150, time_bank_ms=0, reconnect_grace_ms=5000)
    summary, (record,) = play(tmp_path, [fake("illegal"), fake("sleepy")], clock=clock)
    illegal, sleepy = actions_of(record, "fake-illegal"), actions_of(record, "fake-sleepy")
    assert illegal and sleepy
    for a in illegal:
        assert a["deadline_ms"] == 150 and 0 <= a["ms"] < 150, a
        assert a["rejected"] == 1 and "by" not in a, a
    for a in sleepy:
        assert a["by"] == "timeout" and a["deadline_ms"] == 150 and a["ms"] >= 150, a
        assert "rejected" not in a, a
    assert sum(a["rejected"] for a in illegal) == summary.faults["fake-illegal"]["rejected"]
    assert len(sleepy) == summary.faults["fake-sleepy"]["timeouts"]


def test_a_slow_answer_takes_its_time_and_a_stand_in_is_named(tmp_path: Path) -> None:
    # the slow bot answers 60 ms after each request, until it crashes at its second
    # request (the crash kind is not slow: it answers its first request at once, and the
    # slow bot here is the other seat); then the house bot plays for the crashed one
    clock = TimeControl(decision_ms=2000, time_bank_ms=0, reconnect_grace_ms=300)
    bots = [fake("crash", "--after", "1"), fake("slow", "--delay-ms", "60")]
    summary, (record,) = play(tmp_path, bots, clock=clock)
    crashed, slow = actions_of(record, "fake-crash"), actions_of(record, "fake-slow")
    assert all(60 <= a["ms"] < 2000 and a["deadline_ms"] == 2000 for a in slow), slow
    assert not any("by" in a or "rejected" in a for a in slow)
    assert "by" not in crashed[0] and crashed[0]["ms"] < 2000  # before the crash: its own
    stood_in = [a for a in crashed if a.get("by") == "stand_in"]
    assert stood_in == crashed[1:] and len(stood_in) == summary.faults["fake-crash"]["substituted"]
    # the request it left open was played by the house bot once the grace ran out (300
    # ms on); the ones after opened no request: they carry no time
    assert stood_in[0]["ms"] >= 300 and stood_in[0]["deadline_ms"] == 2000
    assert all("ms" not in a and "deadline_ms" not in a for a in stood_in[1:])
