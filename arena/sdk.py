"""The Python bot SDK: write ``decide(view) -> Action``, call ``run(bot)``.

```python
import random
from arena.sdk import run

class MyBot:
    name = "my-bot"
    def decide(self, view):
        return random.choice(view.legal)

run(MyBot())  # connects to $ARENA_ADDRESS with $ARENA_TOKEN
```

Over the internet the referee speaks TLS: set ``ARENA_CA_FILE`` to its CA certificate
(a self-signed referee), or ``ARENA_TLS=1`` to trust the system's roots (or pass
``ca_file`` / ``tls``).

``run`` opens one stream to the referee, answers every decision request of every match
the bot is seated in, and reconnects with backoff when the connection drops (the
referee holds the bot's seats meanwhile). An arena of several referees (``arena serve``
nodes on one database) is given as a list, ``ARENA_ADDRESS=a:50051,b:50051``: the bot
dials them in turn, moves to the next one at once when its own goes away, and waits
only once every one of them has failed (:class:`Rotation`).

``view`` is an :class:`arena.engine.View`: cards and actions are engine types, the
seat's cards in the order they were dealt. A ``decide`` with a second parameter (without
a default) gets the :class:`Request` too: the match id, the seat and the deadline
(``decide(view, request)``; ``decide(view)`` works as ever). A bot may set ``version``
and ``concurrency`` (the most matches it plays at once) as attributes, and may define
``on_hand_end(match_id, hand)`` (a :class:`arena.engine.view.SeenHand`, after every hand
of its matches) and ``on_match_end(match_id, ended)`` (the ``MatchEnded`` message), or
``on_match_end(match_id, ended, seat)`` to be told its seat. Every view also carries the
latest finished hand as ``view.last_hand``.

What the SDK keeps is bounded: :class:`Stats` counts, and keeps only the last
``KEPT`` of its lists; the views and seats of a match go when it ends.
"""

from __future__ import annotations

import inspect
import logging
import os
import queue
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import grpc

from arena.bots.base import Bot
from arena.channel import address_from_env, addresses, open_channel, tls_from_env, tls_mismatch
from arena.domain.identity import is_match_token
from arena.engine import Action, View
from arena.errors import Invalid
from arena.proto.truco.v1 import bot_pb2 as pb
from arena.proto.truco.v1 import bot_pb2_grpc
from arena.wire import PROTOCOL_VERSION, action_to_pb, hand_from_pb, view_from_pb

log = logging.getLogger(__name__)

FATAL = {
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.ABORTED,  # another connection took over this bot
}


# The bot pings its referee, so that a node that hangs, or a machine that vanishes
# without closing its connections, is noticed (UNAVAILABLE) within 15 s and the bot moves
# on; the referee accepts pings as often as once a second (docs/protocol.md section 2).
KEEPALIVE = (
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.http2.ping_timeout_ms", 5_000),  # else gRPC core waits 60 s for any ping's ack
    ("grpc.http2.max_pings_without_data", 0),  # an idle bot (no match) pings on
)


class BotError(RuntimeError):
    """The referee refused the bot for good (bad token, wrong version, taken over)."""


KEPT = 100  # the most entries of each list Stats keeps (the latest): a run's memory stays flat


def _kept() -> deque[Any]:
    return deque(maxlen=KEPT)


@dataclass
class Stats:
    """What a bot's run has seen, for its logs and tests: counts of everything, and the
    latest ``KEPT`` of each list (a bot that plays for months holds no more)."""

    matches: int = 0  # matches started
    ended: int = 0  # MatchEnded messages
    decisions: int = 0
    rejections: int = 0
    welcomes: int = 0
    nodes: deque[str] = field(default_factory=_kept)  # the address of each Welcome, in order
    rejected: deque[str] = field(default_factory=_kept)  # the reasons
    results: deque[pb.MatchEnded] = field(default_factory=_kept)


@dataclass(frozen=True, slots=True)
class Request:
    """A decision request as the SDK received it, for a ``decide(view, request)``: whose
    match and seat, and how long there is. ``deadline_ms`` is the time the referee gave
    when it sent the request (``time_bank_ms`` of it the time bank); ``deadline`` is when
    that runs out on this machine's :func:`time.monotonic` clock, counted from the
    request's arrival (the network's delay is the bot's to allow for)."""

    match_id: str
    request_id: int
    seat: int
    deadline_ms: int
    time_bank_ms: int
    received_at: float  # time.monotonic() when it arrived

    @property
    def deadline(self) -> float:
        return self.received_at + self.deadline_ms / 1000

    def left_ms(self) -> int:
        """The milliseconds left now (0 once the deadline has passed)."""
        return max(0, int((self.deadline - time.monotonic()) * 1000))


@dataclass
class Rotation:
    """Which of the referees' addresses to dial next, and how long to wait first: each
    in turn, round-robin; the backoff (``first_backoff_s`` doubling up to
    ``max_backoff_s``) only after a whole round of them has failed, so that a bot whose
    referee went away moves to a live one at once. With one address, every failure is
    a whole round: the backoff before each retry, as ever."""

    addresses: tuple[str, ...]
    first_backoff_s: float = 0.1
    max_backoff_s: float = 5.0
    steady_s: float = 5.0  # a session welcomed this long was a success: the count restarts
    index: int = 0
    failed: int = 0  # sessions ended in a row, since the last steady one
    backoff_s: float = field(init=False)

    def __post_init__(self) -> None:
        if not self.addresses:
            raise Invalid("no address to dial")
        self.backoff_s = self.first_backoff_s

    @property
    def address(self) -> str:
        return self.addresses[self.index]

    def ended(self, welcomed_for_s: float | None) -> float:
        """The session on :attr:`address` ended, ``welcomed_for_s`` after its Welcome
        (None: never welcomed); move on to the next address and return the seconds to
        wait before dialing it. A session that lasted ``steady_s`` starts the count
        afresh; shorter ones count as failures, so that referees that welcome a bot and
        drop it at once are not dialed in a busy loop."""
        if welcomed_for_s is not None and welcomed_for_s >= self.steady_s:
            self.failed, self.backoff_s = 0, self.first_backoff_s
        self.failed += 1
        self.index = (self.index + 1) % len(self.addresses)
        if self.failed % len(self.addresses):
            return 0.0
        wait_s = self.backoff_s
        self.backoff_s = min(self.backoff_s * 2, self.max_backoff_s)
        return wait_s


def run(
    bot: Bot,
    address: str | Sequence[str] | None = None,
    token: str | None = None,
    *,
    reconnect: bool = True,
    max_matches: int | None = None,
    concurrency: int | None = None,
    ca_file: str | None = None,
    tls: bool | None = None,
) -> Stats:
    """Play until stopped (or until ``max_matches`` have ended). ``address`` (default
    ``$ARENA_ADDRESS``) is one referee or several, separated by commas or as a list
    (:func:`arena.channel.addresses` reads it; :class:`Rotation` goes through them).
    ``concurrency``, when given, overrides the bot's own. ``ca_file`` (default
    ``$ARENA_CA_FILE``) or ``tls`` (default ``$ARENA_TLS``) connect over TLS. Raises
    BotError when the referee refuses the bot (no other referee of the arena would
    take it either), and Invalid when no address or token is given."""
    targets = addresses(address or address_from_env())
    token = token or os.environ.get("ARENA_TOKEN", "")
    if not targets or not token:
        raise Invalid("set ARENA_ADDRESS and ARENA_TOKEN (or pass address and token)")
    if is_match_token(token) and max_matches is None:
        max_matches = 1  # a hosted process: its token seats it in one match, then it is done
    env_ca_file, env_tls = tls_from_env()
    secure = (ca_file or env_ca_file, env_tls if tls is None else tls)
    stats = Stats()
    rotation = Rotation(tuple(targets))
    while True:
        address = rotation.address
        welcomed_at: list[float] = []  # when the referee welcomed the bot, if it did
        try:
            if _session(bot, address, secure, token, stats, max_matches, concurrency, welcomed_at):
                return stats
            why, level = "ended by the referee", logging.INFO
        except grpc.RpcError as e:
            code = e.code()
            if code in FATAL:
                raise BotError(f"the referee refused {bot.name}: {e.details()}") from None
            if not reconnect:
                raise
            why, level = f"lost ({code.name})", logging.WARNING
            if hint := tls_mismatch(e.details() or "", address, *secure):
                why = f"{why}: {hint}"
        wait_s = rotation.ended(time.monotonic() - welcomed_at[0] if welcomed_at else None)
        then = "retrying" if rotation.address == address else f"moving to {rotation.address}"
        if rotation.address != address:  # which node the bot moves to is worth a warning
            level = logging.WARNING
        later = f" in {wait_s:.1f} s" if wait_s else ""
        log.log(level, "connection to %s %s; %s%s", address, why, then, later)
        time.sleep(wait_s)


def _session(
    bot: Bot,
    address: str,
    secure: tuple[str | None, bool],
    token: str,
    stats: Stats,
    max_matches: int | None,
    concurrency: int | None,
    welcomed_at: list[float],
) -> bool:
    """One stream. True when done (max_matches reached), False when the stream ended.
    The time of the referee's Welcome goes to ``welcomed_at``."""
    outbox: queue.SimpleQueue[pb.BotMessage | None] = queue.SimpleQueue()
    outbox.put(
        pb.BotMessage(
            hello=pb.Hello(
                token=token,
                protocol_version=PROTOCOL_VERSION,
                name=bot.name,
                version=str(getattr(bot, "version", "")),
                concurrency=concurrency or int(getattr(bot, "concurrency", 1)),
                hand_results=hasattr(bot, "on_hand_end"),
            )
        )
    )

    def outgoing() -> Iterator[pb.BotMessage]:
        while (message := outbox.get()) is not None:
            yield message

    views: dict[str, tuple[int, View]] = {}  # each match's latest request, for a retry
    seats: dict[str, int] = {}  # each match in progress: the bot's (first) seat
    decide = _decider(bot)
    ends = _ender(bot)
    with open_channel(address, *secure, options=KEEPALIVE) as channel:
        stream = bot_pb2_grpc.RefereeStub(channel).Play(outgoing())
        try:
            for message in stream:
                kind = message.WhichOneof("kind")
                if kind == "welcome":
                    welcomed_at.append(time.monotonic())
                    _welcomed(address, message.welcome, stats)
                elif kind == "decision":
                    asked = message.decision
                    request = Request(
                        asked.match_id, asked.request_id, asked.view.seat, asked.deadline_ms,
                        asked.time_bank_ms, time.monotonic(),
                    )  # fmt: skip
                    seen = view_from_pb(asked.view)
                    views[asked.match_id] = (asked.request_id, seen)
                    action, error = _decide(bot, decide, seen, request)
                    outbox.put(_reply(asked.match_id, asked.request_id, action, error))
                    stats.decisions += 1
                elif kind == "rejected":
                    rejected = message.rejected
                    stats.rejections += 1
                    stats.rejected.append(rejected.reason)
                    log.warning("action rejected: %s", rejected.reason)
                    asked_id, retry = views.get(rejected.match_id, (None, None))
                    if retry is not None and asked_id == rejected.request_id:  # one more try,
                        del views[rejected.match_id]  # with the first legal action
                        outbox.put(_reply(rejected.match_id, rejected.request_id, retry.legal[0]))
                elif kind == "match_started":
                    started = message.match_started
                    seats[started.match_id] = min(started.seats, default=0)
                    stats.matches += not started.resumed
                elif kind == "hand_ended":
                    ended_hand = message.hand_ended
                    _hook(bot, "on_hand_end", ended_hand.match_id, hand_from_pb(ended_hand))
                elif kind == "match_ended":
                    ended = message.match_ended
                    stats.ended += 1
                    stats.results.append(ended)
                    seat = seats.pop(ended.match_id, None)
                    _hook(bot, "on_match_end", *ends(ended.match_id, ended, seat))
                    views.pop(ended.match_id, None)
                    if max_matches is not None and stats.ended >= max_matches:
                        return True
        finally:
            outbox.put(None)
            stream.cancel()
    return False


def _welcomed(address: str, welcome: pb.Welcome, stats: Stats) -> None:
    again = bool(stats.welcomes)  # a reconnection, maybe to another node: worth a warning
    stats.welcomes += 1
    stats.nodes.append(address)
    level = logging.WARNING if again else logging.INFO
    log.log(level, "%s to %s as %s", "reconnected" if again else "connected", address, welcome.bot)


def _hook(bot: Bot, name: str, *args: object) -> None:
    method = getattr(bot, name, None)
    if method is None:
        return
    try:
        method(*args)
    except Exception:
        log.exception("%s.%s failed", bot.name, name)


ERROR_CHARS = 200  # of an exception's description, told to the referee


def _takes(method: Callable[..., object], count: int) -> bool:
    """Whether ``method`` has ``count`` positional parameters without defaults (one of
    ``decide(self, view, depth=3)`` is not handed the request as its depth)."""
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):  # no signature to read: the old calling convention
        return False
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = [p for p in parameters if p.kind in positional and p.default is p.empty]
    return len(required) >= count


def _decider(bot: Bot) -> Callable[[View, Request], Action]:
    """The bot's ``decide``, called as ``decide(view, request)`` when it has a second
    parameter, else ``decide(view)``."""
    method = bot.decide
    if _takes(method, 2):
        return cast("Callable[[View, Request], Action]", method)  # it takes the request
    return lambda seen, _: method(seen)


def _ender(bot: Bot) -> Callable[[str, pb.MatchEnded, int | None], tuple[object, ...]]:
    """The arguments ``on_match_end`` takes: (match_id, ended, seat) when it has a third
    parameter, else the first two."""
    method = getattr(bot, "on_match_end", None)
    if method is not None and _takes(method, 3):
        return lambda *given: given
    return lambda match_id, ended, _: (match_id, ended)


def _decide(
    bot: Bot, decide: Callable[[View, Request], Action], seen: View, request: Request
) -> tuple[Action, str]:
    """The bot's action, and "" when its ``decide`` worked. When it raised, the first
    legal action and what went wrong: the referee plays that and counts it against the
    bot as an error (docs/protocol.md, section 8), so a broken bot is not taken for a
    bot that chose to play its first card."""
    try:
        action = decide(seen, request)
    except Exception as e:
        log.exception("%s.decide failed; playing the first legal action", bot.name)
        return seen.legal[0], f"{type(e).__name__}: {e}"[:ERROR_CHARS]
    if not isinstance(action, Action):
        log.error("%s.decide returned %r, not an Action; playing the first legal action",
                  bot.name, action)  # fmt: skip
        return seen.legal[0], f"decide returned {type(action).__name__}, not an Action"
    return action, ""


def _reply(match_id: str, request_id: int, action: Action, error: str = "") -> pb.BotMessage:
    return pb.BotMessage(
        action=pb.ActionReply(
            match_id=match_id, request_id=request_id, action=action_to_pb(action), error=error
        )
    )
