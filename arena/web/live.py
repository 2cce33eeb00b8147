"""The live pages' feed: one web process's reader of the live channel, and its viewers.

A :class:`Feed` listens on the live channel (arena/store/live.py) on one connection, and
follows each match it hears of: what the pages need of it is looked up once
(:func:`arena.read.live.followed`), and each event is shown once fair play allows: never
for a match whose duplicate twin is not played yet, and only ``delay_s`` after it
happened for a run with a live delay. An event shown is drawn once (``render``) and the
same bytes go to every viewer of the match.

A viewer holds a few messages at most (:data:`VIEWER_QUEUE`): past that the oldest go,
and as each event is the whole table, a slow viewer skips states and is never buffered
for. One whose stream takes nothing for a while is cut by the server
(arena/web/server.py). The limits: :data:`MAX_VIEWERS` streams in a process,
:data:`MAX_PER_ADDRESS` from one address, :data:`MAX_MATCHES` matches followed, and
:data:`MAX_HELD` events held back for a delayed match.

Topics: ``match:ID`` (a match's table; ``recorded`` when it is), ``now`` and
``now:POOL`` (the matches playing), ``run:ID`` and ``pool:POOL`` (a match of the run or
of the pool was recorded: their pages redraw).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections import Counter, deque
from collections.abc import AsyncGenerator, Callable
from typing import Any

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from arena.errors import Exhausted, Unavailable
from arena.read.live import Followed, followed, live_table
from arena.read.replay import teams
from arena.store.live import listen
from arena.store.store import Store

log = logging.getLogger(__name__)

MAX_VIEWERS = 2000  # live streams open at once in one web process; more: 503
MAX_PER_ADDRESS = 16  # of them from one client address; more: 429
MAX_MATCHES = 5000  # matches followed at once; the one heard of longest ago goes first
MAX_HELD = 4096  # events of a delayed match held back; past it the oldest go
MAX_PLAYING = 200  # matches a "now playing" list shows
VIEWER_QUEUE = 16  # messages a viewer has not taken yet; past it the oldest go
FORGET_S = 900.0  # a match not heard of for this long is forgotten (its referee is gone)
KEEPALIVE_S = 15.0  # a comment on an idle stream, so that proxies keep it open
TICK_S = 0.25  # how often delayed events are let through and the lists redrawn
RETRY_S = 1.0  # after the channel is lost, the next try


class Viewer:
    """One live stream: the messages it has not taken yet, :data:`VIEWER_QUEUE` at most
    (the oldest go first: each event is whole, so a viewer that falls behind skips
    states). The messages are the feed's, shared by every viewer: each holds references."""

    __slots__ = ("address", "last", "queue", "topic", "wake")

    def __init__(self, topic: str, address: str) -> None:
        self.topic = topic
        self.address = address
        self.queue: deque[tuple[int, bytes]] = deque(maxlen=VIEWER_QUEUE)  # (seq, message)
        self.wake = asyncio.Event()
        self.last = False  # its stream ends once it has taken what it holds

    def give(self, message: bytes, *, last: bool = False, seq: int = 0) -> None:
        """``seq``: a match table's number (0: not one)."""
        self.queue.append((seq, message))
        self.last = self.last or last
        self.wake.set()

    def drop_to(self, seq: int) -> None:
        """Forget the tables numbered up to ``seq`` (it was sent the table ``seq``)."""
        kept = [(n, m) for n, m in self.queue if not 0 < n <= seq]
        self.queue.clear()
        self.queue.extend(kept)

    async def take(self, timeout: float) -> bytes | None:
        """The messages not taken yet, joined; None after ``timeout`` without one."""
        if not self.queue:
            try:
                await asyncio.wait_for(self.wake.wait(), timeout)
            except TimeoutError:
                return None
        self.wake.clear()
        taken = b"".join(m for _, m in self.queue)
        self.queue.clear()
        return taken or None


class Watched:
    """A match the feed follows: what it knows of it and its latest events."""

    __slots__ = ("drawn", "event", "heard", "held", "info", "match_id")

    def __init__(self, match_id: str) -> None:
        self.match_id = match_id
        self.info: Followed | None = None  # None: being looked up
        self.held: deque[dict[str, Any]] = deque(maxlen=MAX_HELD)  # not shown yet
        self.event: dict[str, Any] | None = None  # the latest shown
        self.drawn: bytes | None = None  # its message to viewers
        self.heard = time.monotonic()


def frame(kind: str, data: Any, event_id: int | None = None) -> bytes:
    """One server-sent event."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


class Feed:
    """The live channel as one web process reads it (see the module's text).

    ``render(info, state)`` draws a match's table as HTML; ``playing(rows)`` draws a
    "now playing" list."""

    def __init__(
        self,
        store: Store,
        render: Callable[[Followed, dict[str, Any]], str],
        playing: Callable[[list[dict[str, Any]]], str],
        *,
        source: Callable[[str, Callable[[], None]], AsyncGenerator[str]] = listen,
    ) -> None:
        self.store = store
        self.render = render
        self.playing = playing
        self.source = source
        self.matches: dict[str, Watched] = {}
        self.topics: dict[str, set[Viewer]] = {}
        self.addresses: Counter[str] = Counter()
        self.viewers = 0
        self.listening = threading.Event()  # set while the channel is read
        self._dirty: set[str] = set()  # "now" lists to draw again
        self._looking: set[asyncio.Future[None]] = set()

    # ---- the channel ---------------------------------------------------------------

    async def run(self) -> None:
        """Read the channel until cancelled, again after each loss; and let delayed
        events through."""
        ticker = asyncio.create_task(self._tick())
        try:
            while True:
                try:
                    stream = self.source(self.store.conninfo, self.listening.set)
                    async with contextlib.aclosing(stream):
                        async for payload in stream:
                            self.heard(payload)
                except Exception as e:  # the feed stops; the pages stay
                    log.warning("the live feed's channel was lost (%s); again in %s s", e, RETRY_S)
                self.listening.clear()
                await asyncio.sleep(RETRY_S)
        finally:
            ticker.cancel()
            for future in self._looking:
                future.cancel()

    def heard(self, payload: str) -> None:
        """One notification of the channel."""
        try:
            data = json.loads(payload)
            if "recorded" in data:
                self._recorded(str(data["recorded"]), data.get("run"), data.get("pool"))
            elif isinstance(data.get("match"), str):
                self.heard_event(data)
        except (ValueError, TypeError, KeyError) as e:
            log.warning("the live feed ignored a notification it could not read: %s", e)

    def heard_event(self, event: dict[str, Any]) -> None:
        """A match's event (arena/read/live.py), as the channel brings it."""
        match_id = event["match"]
        live = self.matches.get(match_id)
        if live is None:
            live = self._follow(match_id)
        live.heard = time.monotonic()
        live.held.append(event)
        if live.info is not None:
            self._release(match_id, live)

    def _follow(self, match_id: str) -> Watched:
        while len(self.matches) >= MAX_MATCHES:
            oldest = min(self.matches, key=lambda k: self.matches[k].heard)
            self._forget(oldest)
        live = self.matches[match_id] = Watched(match_id)
        self._look_up(live)
        return live

    def _look_up(self, live: Watched) -> None:
        """Find what the pages need of the match, in a thread; its events wait meanwhile."""
        future = asyncio.ensure_future(self._looked_up(live.match_id, live))
        self._looking.add(future)
        future.add_done_callback(self._looking.discard)

    async def _looked_up(self, match_id: str, live: Watched) -> None:
        try:
            info = await asyncio.to_thread(followed, self.store, match_id)
        except Exception as e:  # its next event looks again
            log.warning("the live feed could not look match %s up: %s", match_id, e)
            if self.matches.get(match_id) is live:
                del self.matches[match_id]
            return
        if self.matches.get(match_id) is not live:
            return  # forgotten meanwhile
        if info is None:  # no such match here: its events are not shown
            live.held.clear()
            live.held = deque(maxlen=0)
            return
        live.info = info
        self._release(match_id, live)

    def _release(self, match_id: str, live: Watched) -> None:
        """Show, in order, the events that fair play allows by now."""
        info = live.info
        if info is None or info.sealed:
            return
        due = time.time() - info.delay_s
        watched = bool(self.topics.get(f"match:{match_id}"))
        while live.held and live.held[0]["at"] <= due:
            live.event, live.drawn = live.held.popleft(), None
            if watched:
                self._send(f"match:{match_id}", self._drawn(live), seq=live.event["seq"])
            self._dirty.update(("now", f"now:{info.pool}"))  # drawn again at the next tick

    def _drawn(self, live: Watched) -> bytes:
        """The message of a match's latest shown event, drawn once."""
        if live.drawn is None:
            assert live.info is not None and live.event is not None
            event = live.event
            try:
                state = live_table(event, live.info.rules, live.info.seats)
                html = self.render(live.info, state)
            except Exception as e:  # a referee's event that does not play
                log.warning("match %s: its live event does not play: %s", live.info.match_id, e)
                state, html = None, ""
            data = {
                "match": live.info.match_id,
                "seq": event["seq"],
                "at": event["at"],
                "hand": event["hand"] + 1,  # counted from 1, as the match's JSON counts
                "ended": bool(event.get("ended")),
                "state": state,
                "html": html,
            }
            live.drawn = frame("table", data, event["seq"])
        return live.drawn

    def _recorded(self, match_id: str, run: Any, pool: Any) -> None:
        """A match was recorded: told its viewers, and its run's and pool's, as late as
        its live delay says (its last events are let through meanwhile)."""
        live = self.matches.get(match_id)
        delay = live.info.delay_s if live is not None and live.info is not None else 0
        if delay:
            asyncio.get_running_loop().call_later(delay, self._recorded_now, match_id, run, pool)
        else:
            self._recorded_now(match_id, run, pool)

    def _recorded_now(self, match_id: str, run: Any, pool: Any) -> None:
        self._send(f"match:{match_id}", frame("recorded", {"match": match_id}), last=True)
        for live in self.matches.values():  # a twin now played: its own may be shown
            if live.info is not None and live.info.twin == match_id and live.info.sealed:
                live.info = None
                self._look_up(live)
        self.matches.pop(match_id, None)
        self._dirty.add("now")
        if isinstance(pool, str):
            self._dirty.add(f"now:{pool}")
        if isinstance(run, int):
            self._send(f"run:{run}", frame("changed", {"match": match_id}))
        if isinstance(pool, str):
            self._send(f"pool:{pool}", frame("changed", {"match": match_id}))

    def _forget(self, match_id: str) -> None:
        live = self.matches.pop(match_id, None)
        if live is not None and live.info is not None:
            self._dirty.update(("now", f"now:{live.info.pool}"))

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            now = time.monotonic()
            for match_id, live in list(self.matches.items()):
                if now - live.heard > FORGET_S:
                    self._forget(match_id)
                elif live.held and live.info is not None and live.info.delay_s:
                    self._release(match_id, live)
            dirty, self._dirty = self._dirty, set()
            for topic in dirty:
                if self.topics.get(topic):
                    self._send(topic, self.now_playing(topic))

    # ---- the pages -----------------------------------------------------------------

    def playing_rows(self, pool: str | None = None) -> list[dict[str, Any]]:
        """The matches playing now that may be shown live (of ``pool``), newest first."""
        rows = []
        for match_id, live in self.matches.items():
            info, event = live.info, live.event
            if info is None or info.sealed or event is None or event.get("ended"):
                continue
            if pool is not None and info.pool != pool:
                continue
            rows.append(
                {
                    "id": match_id,
                    "pool": info.pool,
                    "seats": info.seats,
                    "teams": teams(info.seats),
                    "score": list(event["score"]),
                    "hand": event["hand"] + 1,
                    "run_id": info.run_id,
                    "delay_s": info.delay_s,
                    "at": event["at"],
                }
            )
        rows.sort(key=lambda r: r["at"], reverse=True)
        return rows[:MAX_PLAYING]

    def now_playing(self, topic: str) -> bytes:
        pool = topic.partition(":")[2] or None
        rows = self.playing_rows(pool)
        return frame("playing", {"matches": rows, "html": self.playing(rows)})

    def greet(self, viewer: Viewer) -> list[bytes]:
        """What a new viewer is sent at once: the state as it stands (and of what it was
        given meanwhile, the older tables go: it would draw them after the newer one)."""
        kind, _, key = viewer.topic.partition(":")
        if kind == "match":
            live = self.matches.get(key)
            if live is None or live.event is None or live.info is None or live.info.sealed:
                return []
            viewer.drop_to(live.event["seq"])
            return [self._drawn(live)]
        if kind == "now":
            return [self.now_playing(viewer.topic)]
        return []

    def watch(self, topic: str, address: str) -> Viewer:
        """A new viewer of ``topic``; Unavailable past MAX_VIEWERS, Exhausted past
        MAX_PER_ADDRESS from ``address``."""
        if self.viewers >= MAX_VIEWERS:
            raise Unavailable(f"this server shows {MAX_VIEWERS} live streams at most; try later")
        if self.addresses[address] >= MAX_PER_ADDRESS:
            raise Exhausted(
                f"at most {MAX_PER_ADDRESS} live streams from one address; close some first"
            )
        viewer = Viewer(topic, address)
        self.topics.setdefault(topic, set()).add(viewer)
        self.addresses[address] += 1
        self.viewers += 1
        return viewer

    def unwatch(self, viewer: Viewer) -> None:
        """The viewer takes no more messages (it still holds its place until it leaves)."""
        viewers = self.topics.get(viewer.topic)
        if viewers is not None:
            viewers.discard(viewer)
            if not viewers:
                del self.topics[viewer.topic]

    def leave(self, viewer: Viewer) -> None:
        self.unwatch(viewer)
        self.addresses[viewer.address] -= 1
        if self.addresses[viewer.address] <= 0:
            del self.addresses[viewer.address]
        self.viewers -= 1

    def _send(self, topic: str, message: bytes, *, last: bool = False, seq: int = 0) -> None:
        for viewer in self.topics.get(topic, ()):
            viewer.give(message, last=last, seq=seq)


class Stream(Response):
    """A response: ``first``, then the viewer's messages as they come, until the
    client leaves (or, ``ends``, after ``first``). The viewer's place is given back when
    the response ends; a client that stops reading is cut by the server
    (arena/web/server.py), which ends it too."""

    def __init__(
        self, feed: Feed, viewer: Viewer | None, first: list[bytes], *, ends: bool = False
    ) -> None:
        super().__init__()
        self.feed, self.viewer, self.first, self.ends = feed, viewer, first, ends

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": STREAM_HEADERS})
        writer = asyncio.ensure_future(self._write(send))
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            await asyncio.wait({writer, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            writer.cancel()
            gone.cancel()
            if self.viewer is not None:
                self.feed.leave(self.viewer)
        if writer.done() and not writer.cancelled() and writer.exception() is None:
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _write(self, send: Any) -> None:
        for message in self.first:
            await send({"type": "http.response.body", "body": message, "more_body": True})
        if self.ends or self.viewer is None:
            return
        while True:
            last = self.viewer.last
            taken = await self.viewer.take(KEEPALIVE_S)
            body = taken if taken is not None else b": still here\n\n"
            await send({"type": "http.response.body", "body": body, "more_body": True})
            if last or (self.viewer.last and not self.viewer.queue):
                return


STREAM_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"x-accel-buffering", b"no"),  # nginx passes each event on as it comes
]


async def _disconnected(receive: Any) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
