"""What a match's task sleeps on: one timer and one sleeper, so that a match waits for
its clocks without a task or a timer per wait.

The task sleeps until a time (a deadline, a grace running out) or until it is rung (the
match ended, a bot left and its grace may end first), whichever comes first. The timer
is moved only when a wait asks for an earlier time: a sleeper woken early looks at the
clocks and sleeps again, and a timer that rings late would miss a deadline, never one
that rings early.
"""

from __future__ import annotations

import asyncio


class Alarm:
    """One timer and one sleeper on an event loop."""

    __slots__ = ("_timer", "_wake")

    def __init__(self) -> None:
        self._wake: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | None = None  # rings _wake at the latest

    def ring(self) -> None:
        """Wake the sleeper now, if there is one."""
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    def _rang(self) -> None:
        self._timer = None
        self.ring()

    def arm(self, loop: asyncio.AbstractEventLoop, when: float) -> None:
        """Make the alarm ring at loop time ``when`` at the latest (one timer serves many
        waits: it stays set while it rings no later than that)."""
        timer = self._timer
        if timer is None or timer.when() > when:
            if timer is not None:
                timer.cancel()
            self._timer = loop.call_at(when, self._rang)

    async def sleep(self, loop: asyncio.AbstractEventLoop, until: float) -> None:
        """Until loop time ``until`` or a ring, whichever is first."""
        self.arm(loop, until)
        self._wake = wake = loop.create_future()
        try:
            await wake
        finally:
            self._wake = None

    def when(self) -> float | None:
        """The loop time the timer rings at; None when it is not set."""
        return None if self._timer is None else self._timer.when()

    def cancel(self) -> None:
        """The timer, if set, will not ring."""
        if self._timer is not None:
            self._timer.cancel()
