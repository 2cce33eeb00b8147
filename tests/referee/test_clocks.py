"""The referee enforces its clocks: an answer after its deadline is refused as late and
the default action stands, and every deadline has an alarm ringing by it, whichever way
its request was opened.

The in-process tests drive a MatchRunner directly, with sessions whose outboxes the test
reads: nothing waits on wall-clock time except the match's own alarms.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from arena.bots import house_bot
from arena.domain.clock import TimeControl
from arena.engine import Rules
from arena.proto.truco.v1 import bot_pb2 as pb
from referee.hub import Hub
from referee.runner import MatchRunner
from referee.sessions import MemoryTokens, Session
from tests.referee.test_referee import decisions_of, fake, play

pytestmark = pytest.mark.hostile

# the quick bot answers at once and never touches its bank; the mute one spends its bank
# on its first decision, so from then on its deadlines come long before the quick one's
CLOCK = TimeControl(decision_ms=100, time_bank_ms=400, reconnect_grace_ms=5000)


def seated(*bots: str) -> Hub:
    hub = Hub(MemoryTokens())
    for bot in bots:
        hub.sessions[bot] = Session.open(bot, 1, "test")
    return hub


async def play_in_process(
    hub: Hub, on_request: Callable[[MatchRunner, pb.DecisionRequest], None]
) -> dict[str, Any]:
    """A match between ``quick`` (seat 0) and ``mute`` (seat 1): every request of the
    quick bot is handed to ``on_request``; the mute bot's are read and left unanswered."""
    runner = MatchRunner(
        hub, "m", Rules(), ["quick", "mute"], seed=5, clock=CLOCK,
        stand_in=lambda: house_bot("random"),
    )  # fmt: skip
    match = asyncio.ensure_future(runner.run())

    async def read(bot: str) -> None:
        outbox = hub.sessions[bot].outbox
        while True:
            sent = await outbox.get()  # a message, or one encoded (the requests are)
            message = pb.RefereeMessage.FromString(sent) if isinstance(sent, bytes) else sent
            if message is not None and message.HasField("decision") and bot == "quick":
                on_request(runner, message.decision)

    readers = [asyncio.ensure_future(read(b)) for b in ("quick", "mute")]
    try:
        return await match
    finally:
        for reader in readers:
            reader.cancel()


def test_the_alarm_rings_by_every_deadline_opened_from_an_answer() -> None:
    due_after_answers: list[tuple[float, float]] = []

    def answer(runner: MatchRunner, request: pb.DecisionRequest) -> None:
        runner.submit("quick", request.request_id, request.view.legal[0])
        if runner._request is not None and (when := runner._alarm.when()) is not None:
            due_after_answers.append((when, runner._due(runner._request)))

    record = asyncio.run(play_in_process(seated("quick", "mute"), answer))
    assert record["faults"]["quick"]["timeouts"] == 0
    assert record["faults"]["mute"]["timeouts"] == decisions_of(record, "mute") > 0
    # after each of the quick bot's answers the mute one's request is open, with a
    # deadline 100 ms away (its bank spent): the alarm must ring by then, not at the
    # quick bot's own later deadline
    assert due_after_answers and all(when <= due for when, due in due_after_answers)


def test_an_answer_processed_after_its_deadline_is_refused_even_before_the_alarm() -> None:
    stalled: list[int] = []

    def answer_late_once(runner: MatchRunner, request: pb.DecisionRequest) -> None:
        if not stalled:
            # the event loop stalls past the deadline (a long GC pause, a busy machine):
            # the answer is processed before the alarm has had its turn to ring
            assert runner._request is not None
            time.sleep(max(0.0, runner._request.deadline - runner._running().time()) + 0.01)
            stalled.append(request.request_id)
        runner.submit("quick", request.request_id, request.view.legal[0])

    hub = seated("quick", "mute")
    record = asyncio.run(play_in_process(hub, answer_late_once))
    assert record["faults"]["quick"] == {
        "timeouts": 1, "rejected": 1, "disconnects": 0, "substituted": 0, "errors": 0,
    }  # fmt: skip
    assert len(hub.lateness) == record["faults"]["mute"]["timeouts"] + 1
    assert max(hub.lateness) >= 0.01  # the stall, counted as the deadline's lateness


def test_late_answers_are_never_applied(tmp_path: Any) -> None:
    # The slow bot answers every request 1 s after it comes. Its 1.5 s bank pays the first
    # overrun; the second answer is late (0.6 s left), so the bank is spent, and from
    # then on its deadlines are 100 ms while the other bot's stay at 1.6 s. Before the
    # referee checked deadlines on arrival (and re-armed its alarm for requests opened by
    # the other bot's answer), those late answers were applied.
    clock = TimeControl(decision_ms=100, time_bank_ms=1500, reconnect_grace_ms=5000)
    slow = fake("slow", "--delay-ms", "1000", "--matches", "1")
    summary, (record,) = play(tmp_path, [slow, "house:random"], clock=clock)
    faults = summary.faults["fake-slow"]
    own = decisions_of(record, "fake-slow") - faults["timeouts"]
    assert own <= 1, faults  # only the first answer came within its deadline
    assert faults["rejected"] > 0 and faults["substituted"] == 0
    assert summary.faults["random"]["timeouts"] == 0
