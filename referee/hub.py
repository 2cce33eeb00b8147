"""The referee's shared state: who is connected, which matches run, and the tokens.

A :class:`Session` is one bot's live stream: an outbox the stream writer drains, and
the bot's name once its token checked out. The :class:`Hub` keeps at most one session
per bot (a new connection with the same token takes over), routes every action to the
match it names, and tells matches when their bots leave and come back. A session cut off
with an error status (not reading, flooding, taken over, its token revoked) leaves the
hub at once, whether or not its stream can still be written to.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import secrets
import time
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import grpc

from arena.engine import quoted
from arena.proto.truco.v1 import bot_pb2 as pb
from arena.wire import PROTOCOL_VERSION

log = logging.getLogger(__name__)

OUTBOX_LIMIT = 1000  # messages queued for a bot that does not read; then it is cut off
# Every request (or rejection) sent lets the bot send one reply. Messages beyond those
# are unsolicited: they pass at this average rate, with this burst, and are dropped past it.
RATE_PER_SECOND = 50.0
RATE_BURST = 100.0
DROPS_BEFORE_CUTOFF = 1000  # unsolicited messages dropped within DROP_WINDOW_S: cut off
DROP_WINDOW_S = 10.0
NOT_READING = "the bot is not reading its stream"


class Seated(Protocol):
    """What the hub needs of a match in progress (a :class:`referee.runner.MatchRunner`):
    the whole of the hub's side of their meeting."""

    match_id: str
    bots: frozenset[str]

    def submit(self, bot: str, request_id: int, action: pb.Action) -> None: ...

    def bot_left(self, bot: str) -> None: ...

    def bot_returned(self, bot: str) -> None: ...


class TokenBook(Protocol):
    """Who a token belongs to (issue 4 puts this in PostgreSQL)."""

    def lookup(self, token: str) -> str | None: ...


class MemoryTokens:
    """Tokens held in memory, as SHA-256 digests, for local matches and tests; tokens it
    does not know are asked of ``fallback`` (the store), when there is one."""

    def __init__(self, fallback: TokenBook | None = None) -> None:
        self._digests: dict[str, bytes] = {}
        self._fallback = fallback

    def rename(self, names: Mapping[str, str]) -> None:
        """The tokens of the bots named in ``names`` (old to new) now stand for the new
        names."""
        self._digests = {names.get(bot, bot): d for bot, d in self._digests.items()}

    def issue(self, bot: str) -> str:
        """A new random token for ``bot`` (replacing any earlier one)."""
        token = secrets.token_urlsafe(32)
        self.add(bot, token)
        return token

    def add(self, bot: str, token: str) -> None:
        self._digests[bot] = _digest(token)

    def lookup(self, token: str) -> str | None:
        # compare against every entry, in constant time each, so timing tells nothing
        digest = _digest(token)
        found = None
        for bot, known in self._digests.items():
            if hmac.compare_digest(known, digest):
                found = bot
        if found is None and self._fallback is not None:
            return self._fallback.lookup(token)
        return found


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


@dataclass
class Session:
    """One bot's stream, after its hello."""

    bot: str
    concurrency: int
    peer: str
    hand_results: bool  # the bot asked for a HandEnded message after every hand
    outbox: asyncio.Queue[pb.RefereeMessage | None]
    hello_name: str = ""  # the name the bot gave itself in its Hello (free text)
    close_code: grpc.StatusCode | None = None
    close_reason: str = ""
    closed: bool = False
    ended: asyncio.Event = field(default_factory=asyncio.Event)  # the stream is over
    writing_since: float | None = None  # loop time the message being written was begun
    on_abort: Callable[[Session], None] | None = None  # the hub's, told of an error close
    _credits: int = 0  # replies the bot is owed room for
    _tokens: float = RATE_BURST
    _refilled: float = 0.0
    _dropped: int = 0
    _window: float = 0.0  # when the current count of drops began

    @staticmethod
    def open(
        bot: str, concurrency: int, peer: str, hand_results: bool = False, hello_name: str = ""
    ) -> Session:
        outbox: asyncio.Queue[pb.RefereeMessage | None] = asyncio.Queue(OUTBOX_LIMIT)
        return Session(
            bot, concurrency, peer, hand_results, outbox, hello_name, _refilled=time.monotonic()
        )

    def send(self, message: pb.RefereeMessage, *, asks: bool = False) -> None:
        """Queue a message; ``asks`` when it invites a reply (a request, a rejection)."""
        if self.closed:
            return
        try:
            self.outbox.put_nowait(message)
        except asyncio.QueueFull:
            self.close(grpc.StatusCode.RESOURCE_EXHAUSTED, NOT_READING)
            return
        if asks:
            self._credits = min(self._credits + 1, OUTBOX_LIMIT)

    def close(self, code: grpc.StatusCode | None = None, reason: str = "") -> None:
        """End the stream: with no code, after the messages already queued; with a
        status code for the bot, at once (even when a clean end was under way), and
        ``on_abort`` hears of it at once: the stream's writer may be stuck on a bot that
        does not read, and the bot's seats must not wait for it."""
        if self.close_code is not None or (self.closed and code is None):
            return
        self.closed = True
        self.close_code, self.close_reason = code, reason
        if code is not None or self.outbox.full():
            while not self.outbox.empty():  # make room for the end marker
                self.outbox.get_nowait()
        self.outbox.put_nowait(None)
        if code is not None and self.on_abort is not None:
            self.on_abort(self)

    def admit(self) -> bool:
        """Rate limit on incoming messages: False drops this one."""
        if self._credits > 0:
            self._credits -= 1
            return True
        now = time.monotonic()
        self._tokens = min(RATE_BURST, self._tokens + (now - self._refilled) * RATE_PER_SECOND)
        self._refilled = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        if now - self._window > DROP_WINDOW_S:
            self._window, self._dropped = now, 0
        self._dropped += 1
        if self._dropped >= DROPS_BEFORE_CUTOFF:
            self.close(grpc.StatusCode.RESOURCE_EXHAUSTED, "too many messages")
        return False


LATENCY_MAX_US = 10_000
LATENESS_KEPT = 100_000


def percentile_us(counts: list[int], q: float) -> int:
    """The ``q`` quantile (0 to 1) of latencies counted per microsecond."""
    total = sum(counts)
    if total == 0:
        raise ValueError("no latencies counted")
    seen = 0
    for us, n in enumerate(counts):
        seen += n
        if seen >= q * total:
            return us
    return len(counts) - 1


class Hub:
    """Sessions by bot, running matches by id."""

    def __init__(self, tokens: TokenBook, max_concurrency: int = 64) -> None:
        self.tokens = tokens
        self.max_concurrency = max_concurrency
        self.sessions: dict[str, Session] = {}
        self.matches: dict[str, Seated] = {}
        self._arrived = asyncio.Condition()
        self._busy: Counter[str] = Counter()  # matches each bot is seated in, by playing()
        # The referee's own latency: from a bot's action arriving to the match being done
        # with it (the next request queued, or the rejection), counted in whole
        # microseconds (the last count is 10 ms or more): constant memory however long it
        # runs.
        self.latency_us = [0] * (LATENCY_MAX_US + 1)
        # How late each deadline was acted on (seconds after it), the latest LATENESS_KEPT
        self.lateness: deque[float] = deque(maxlen=LATENESS_KEPT)
        self._waiting: list[tuple[frozenset[str], asyncio.Future[None]]] = []  # playing()
        self.finishing = False  # a clean stop is under way: no new sessions

    async def attach(self, session: Session) -> None:
        """Make ``session`` the bot's live one: greet it, resume its matches. Once the
        hub is finishing, the session ends instead, cleanly and at once."""
        if self.finishing:
            session.close()
            return
        old = self.sessions.get(session.bot)
        self.sessions[session.bot] = session
        session.on_abort = self._leave
        if old is not None:  # no longer live: its end is not a disconnect
            log.info(
                "bot %s reconnected from %s; closing its old stream", session.bot, session.peer
            )
            old.close(grpc.StatusCode.ABORTED, "another connection took over this bot's session")
        mine = [m for m in self.matches.values() if session.bot in m.bots]
        session.send(
            pb.RefereeMessage(
                welcome=pb.Welcome(
                    bot=session.bot,
                    protocol_version=PROTOCOL_VERSION,
                    concurrency=session.concurrency,
                    resumed_matches=len(mine),
                )
            )
        )
        for match in mine:
            match.bot_returned(session.bot)
        async with self._arrived:
            self._arrived.notify_all()
        self._grant()  # its concurrency may seat waiting matches

    def rename(self, names: Mapping[str, str]) -> None:
        """Give connected bots other names (``names``: old to new) before any match has
        seated them: their sessions go by the new ones (the token book is the caller's)."""
        assert not self.matches and not self._busy.total(), "bots are renamed before play"
        moved = {names[bot]: self.sessions.pop(bot) for bot in names if bot in self.sessions}
        for bot, session in moved.items():
            session.bot = bot
        self.sessions.update(moved)

    def detach(self, session: Session) -> None:
        """The stream ended; if it was the bot's live one, its matches hold its seats."""
        session.close()
        session.ended.set()
        self._leave(session)

    def revoke(self, bot: str, reason: str) -> None:
        """End the bot's live session at once with UNAUTHENTICATED (its token no longer
        holds, as after a rotation); its seats are held as after a disconnect, until it
        comes back with a token that does."""
        session = self.sessions.get(bot)
        if session is not None:  # the hub's disconnect line gives the reason
            session.close(grpc.StatusCode.UNAUTHENTICATED, reason)

    def _leave(self, session: Session) -> None:
        """If ``session`` is the bot's live one, it is no more: the bot's matches hold its
        seats from now, as after any disconnect."""
        if self.sessions.get(session.bot) is not session:
            return
        del self.sessions[session.bot]
        why = f": {session.close_reason}" if session.close_reason else ""
        log.info("bot %s disconnected%s", session.bot, why)
        for match in self.matches.values():
            if session.bot in match.bots:
                match.bot_left(session.bot)

    async def finish(self, timeout_s: float = 5.0) -> None:
        """End every stream once its queued messages are written, and any that attaches
        from now on at once (for a clean stop)."""
        self.finishing = True
        sessions = list(self.sessions.values())
        for session in sessions:
            session.close()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                for session in sessions:
                    await session.ended.wait()

    # ---- the runners' side (referee.runner.Table) ---------------------------------------

    def opened(self, match: Seated) -> None:
        self.matches[match.match_id] = match

    def closed(self, match: Seated) -> None:
        del self.matches[match.match_id]

    def connected(self, bot: str) -> bool:
        return bot in self.sessions

    def wants_hands(self, bot: str) -> bool:
        session = self.sessions.get(bot)
        return session is not None and session.hand_results

    def late(self, seconds: float) -> None:
        self.lateness.append(seconds)

    def send(self, bot: str, message: pb.RefereeMessage, *, asks: bool = False) -> None:
        session = self.sessions.get(bot)
        if session is not None:
            session.send(message, asks=asks)

    def route(self, session: Session, reply: pb.ActionReply) -> None:
        match = self.matches.get(reply.match_id)
        if match is None or session.bot not in match.bots:
            shown = quoted(reply.match_id)  # a bot's words echoed back stay small
            session.send(
                pb.RefereeMessage(
                    rejected=pb.ActionRejected(
                        match_id=reply.match_id,
                        request_id=reply.request_id,
                        reason=f"you are not seated in a match {shown} in progress",
                    )
                )
            )
            return
        arrived = time.perf_counter()
        match.submit(session.bot, reply.request_id, reply.action)  # answered in this turn
        us = int((time.perf_counter() - arrived) * 1e6)
        self.latency_us[us if us < LATENCY_MAX_US else LATENCY_MAX_US] += 1

    async def wait_for(self, bots: Iterable[str], timeout_s: float) -> None:
        """Until every bot named is connected; TimeoutError names the missing ones."""
        wanted = set(bots)
        try:
            async with asyncio.timeout(timeout_s), self._arrived:
                await self._arrived.wait_for(lambda: wanted <= self.sessions.keys())
        except TimeoutError:
            missing = ", ".join(sorted(wanted - self.sessions.keys()))
            raise TimeoutError(f"not connected after {timeout_s:.0f} s: {missing}") from None

    @contextlib.asynccontextmanager
    async def playing(self, bots: Iterable[str]) -> AsyncIterator[None]:
        """Seat ``bots`` in one more match once each has a free slot of the concurrency
        it declared. All are taken at once, so two matches never hold half of each
        other's bots; waiters are served first come, first served, each woken only when
        its seats are granted. A bot that is not connected is not waited for (the match
        runner holds its seats)."""
        wanted = frozenset(bots)
        granted = asyncio.get_running_loop().create_future()
        self._waiting.append((wanted, granted))
        self._grant()
        try:
            await granted
        except asyncio.CancelledError:
            if granted.done() and not granted.cancelled():  # granted as it was cancelled
                self._release(wanted)
            else:
                self._waiting.remove((wanted, granted))
            raise
        try:
            yield
        finally:
            self._release(wanted)

    def _free(self, bots: frozenset[str]) -> bool:
        return all(
            b not in self.sessions or self._busy[b] < self.sessions[b].concurrency for b in bots
        )

    def _release(self, bots: frozenset[str]) -> None:
        self._busy.subtract(bots)
        self._grant()

    def _grant(self) -> None:
        """Seat the waiters whose bots are all free now, in the order they came."""
        for entry in list(self._waiting):
            bots, granted = entry
            if self._free(bots):
                self._waiting.remove(entry)
                self._busy.update(bots)
                granted.set_result(None)
