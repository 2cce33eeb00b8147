"""The referee's side of the live feed: its events go to the channel from a thread.

:class:`Publisher` takes each event of a match played here (arena/read/live.py) into a
queue of at most :data:`QUEUE_LIMIT` and returns at once: the referee never waits on the
feed. A thread of its own takes out what came within ``FLUSH_S`` of the first, keeps of
each hand of a match only its latest event (each event is whole: its hand's public record
so far; a hand's last one, which holds its result, is always kept), and sends them, 64 a
round trip. A match played at a person's pace has every action sent; one between bots
that answer at once, a few states of each hand: the feed's cost follows what can be
watched, not how fast bots play. A channel
that is slow or gone makes the queue fill, and what does not fit is dropped and counted
(``arena_referee_live_dropped_total``); a lost connection is opened again, once a second
at most.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

from arena.metrics import LIVE_DROPPED
from arena.store.live import MAX_PAYLOAD, notify, sender

log = logging.getLogger(__name__)

QUEUE_LIMIT = 1024  # events waiting for the channel; more are dropped
FLUSH_S = 0.05  # events are sent at most this long after they happen, together
BATCH = 64  # events sent in one round trip
RETRY_S = 1.0  # after the channel failed, the next try this long after


class Publisher:
    """Events to the live feed's channel, on ``conninfo``'s database."""

    def __init__(self, conninfo: str, *, connect: Callable[[str], Any] = sender) -> None:
        self.conninfo = conninfo
        self.dropped = 0
        self.sent = 0
        self._connect = connect
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue(QUEUE_LIMIT)
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def publish(self, event: dict[str, Any]) -> None:
        """Queue ``event`` for the channel, or drop it when the queue is full."""
        if self._thread is None:
            self._start()
        try:
            self._queue.put_nowait(event)
        except queue.Full:
            self.dropped += 1
            LIVE_DROPPED.inc()

    def close(self) -> None:
        """Stop the thread (what is still queued is dropped); it may be started again."""
        thread = self._thread
        if thread is None:
            return
        self._stopping.set()
        with contextlib.suppress(queue.Full):  # then it finds _stopping set after its batch
            self._queue.put_nowait(None)
        thread.join(timeout=RETRY_S + 5)
        self._thread = None
        self._stopping.clear()

    def _start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="live-feed", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        conn = None
        while not self._stopping.is_set():
            payloads = self._batch()
            for at in range(0, len(payloads), BATCH):
                batch = payloads[at : at + BATCH]
                try:
                    if conn is None:
                        conn = self._connect(self.conninfo)
                    notify(conn, batch)
                    self.sent += len(batch)
                except Exception as e:
                    self.dropped += len(batch)
                    LIVE_DROPPED.inc(len(batch))
                    log.warning("the live feed's channel failed (%s); its events are dropped", e)
                    if conn is not None:
                        conn.close()
                        conn = None
                    self._stopping.wait(RETRY_S)
        if conn is not None:
            conn.close()

    def _batch(self) -> list[str]:
        """The events queued within FLUSH_S of the next one, the latest of each hand of a
        match, encoded, in order (waits for the first)."""
        first = self._queue.get()
        if first is None:
            return []
        self._stopping.wait(FLUSH_S)  # what comes meanwhile goes with it
        latest = {(first["match"], first.get("hand")): first}
        while True:
            try:
                event = self._queue.get_nowait()
            except queue.Empty:
                break
            if event is None:
                break
            key = (event["match"], event.get("hand"))
            latest.pop(key, None)  # its latest goes last, in order
            latest[key] = event
        payloads = []
        for event in latest.values():
            text = json.dumps(event, separators=(",", ":"))
            if len(text.encode()) < MAX_PAYLOAD:
                payloads.append(text)
            else:
                self.dropped += 1
                LIVE_DROPPED.inc()
        return payloads
