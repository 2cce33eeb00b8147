"""Bots' live streams as the referee keeps them: a :class:`Session` is one bot's stream,
an outbox the stream writer drains and the bot's name once its token checked out, with
the limits that cut off a bot that floods or does not read; the tokens that name bots
(:class:`MemoryTokens`, or the store's); what a match is to the hub (:class:`Seated`).
The :class:`~referee.hub.Hub` keeps the sessions."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import grpc

from arena.domain.identity import HostedSeat
from arena.guard import new_token
from arena.proto.truco.v1 import bot_pb2 as pb

log = logging.getLogger(__name__)

OUTBOX_LIMIT = 1000  # messages queued for a bot that does not read; then it is cut off
# Every request (or rejection) sent lets the bot send one reply. Messages beyond those
# are unsolicited: they pass at this average rate, with this burst, and are dropped past it.
RATE_PER_SECOND = 50.0
RATE_BURST = 100.0
DROPS_BEFORE_CUTOFF = 1000  # unsolicited messages dropped within DROP_WINDOW_S: cut off
DROP_WINDOW_S = 10.0
NOT_READING = "the bot is not reading its stream"

# What a bot's stream carries: a RefereeMessage (the hub's, a relay's) or one already
# encoded (a match's requests, starts and ends); the stream's writer sends either as is.
Outgoing = pb.RefereeMessage | bytes


class Seated(Protocol):
    """What the hub needs of a match in progress (a :class:`referee.runner.MatchRunner`):
    the whole of the hub's side of their meeting."""

    match_id: str
    bots: frozenset[str]

    def submit(self, bot: str, request_id: int, action: pb.Action, error: str = "") -> None: ...

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
        token = new_token()
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
    outbox: asyncio.Queue[Outgoing | None]
    hello_name: str = ""  # the name the bot gave itself in its Hello (free text)
    match: str = ""  # a hosted version's process: the one match it may play
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
        bot: str,
        concurrency: int,
        peer: str,
        hand_results: bool = False,
        hello_name: str = "",
        match: str = "",
    ) -> Session:
        outbox: asyncio.Queue[Outgoing | None] = asyncio.Queue(OUTBOX_LIMIT)
        return Session(
            bot, concurrency, peer, hand_results, outbox, hello_name, match,
            _refilled=time.monotonic(),
        )  # fmt: skip

    @property
    def key(self) -> str:
        """What the hub knows it by: the bot, or a hosted process's bot and match."""
        return str(HostedSeat(self.bot, self.match)) if self.match else self.bot

    def plays(self, match: Seated) -> bool:
        """Whether this session speaks for its bot in ``match``."""
        return self.bot in match.bots and (not self.match or match.match_id == self.match)

    def send(self, message: Outgoing, *, asks: bool = False) -> None:
        """Queue a message (or its encoding); ``asks`` when it invites a reply (a
        request, a rejection)."""
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
