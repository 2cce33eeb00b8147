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

``view`` is an :class:`arena.engine.View`: cards and actions are engine types. A bot may
set ``version`` and ``concurrency`` (the most matches it plays at once) as attributes,
and may define ``on_hand_end(match_id, hand)`` (a :class:`arena.engine.view.SeenHand`,
after every hand of its matches) and ``on_match_end(match_id, ended)`` (the
``MatchEnded`` message). Every view also carries the latest finished hand as
``view.last_hand``.
"""

from __future__ import annotations

import logging
import os
import queue
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import grpc

from arena.bots.base import Bot
from arena.channel import address_from_env, addresses, open_channel, tls_from_env
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


@dataclass
class Stats:
    """What a bot's run has seen, for its logs and tests."""

    matches: int = 0
    decisions: int = 0
    nodes: list[str] = field(default_factory=list)  # the address of every Welcome, in order
    rejected: list[str] = field(default_factory=list)
    results: list[pb.MatchEnded] = field(default_factory=list)


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

    views: dict[tuple[str, int], View] = {}
    with open_channel(address, *secure, options=KEEPALIVE) as channel:
        stream = bot_pb2_grpc.RefereeStub(channel).Play(outgoing())
        try:
            for message in stream:
                kind = message.WhichOneof("kind")
                if kind == "welcome":
                    welcomed_at.append(time.monotonic())
                    _welcomed(address, message.welcome, stats)
                elif kind == "decision":
                    request = message.decision
                    seen = view_from_pb(request.view)
                    views[(request.match_id, request.request_id)] = seen
                    action, error = _decide(bot, seen)
                    outbox.put(_reply(request.match_id, request.request_id, action, error))
                    stats.decisions += 1
                elif kind == "rejected":
                    rejected = message.rejected
                    stats.rejected.append(rejected.reason)
                    log.warning("action rejected: %s", rejected.reason)
                    retry = views.pop((rejected.match_id, rejected.request_id), None)
                    if retry is not None:  # one more try, with the first legal action
                        outbox.put(_reply(rejected.match_id, rejected.request_id, retry.legal[0]))
                elif kind == "match_started" and not message.match_started.resumed:
                    stats.matches += 1
                elif kind == "hand_ended":
                    ended_hand = message.hand_ended
                    _hook(bot, "on_hand_end", ended_hand.match_id, hand_from_pb(ended_hand))
                elif kind == "match_ended":
                    ended = message.match_ended
                    stats.results.append(ended)
                    _hook(bot, "on_match_end", ended.match_id, ended)
                    views = {k: v for k, v in views.items() if k[0] != ended.match_id}
                    if max_matches is not None and len(stats.results) >= max_matches:
                        return True
        finally:
            outbox.put(None)
            stream.cancel()
    return False


def _welcomed(address: str, welcome: pb.Welcome, stats: Stats) -> None:
    again = bool(stats.nodes)  # a reconnection, maybe to another node: worth a warning
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


def _decide(bot: Bot, seen: View) -> tuple[Action, str]:
    """The bot's action, and "" when its ``decide`` worked. When it raised, the first
    legal action and what went wrong: the referee plays that and counts it against the
    bot as an error (docs/protocol.md, section 8), so a broken bot is not taken for a
    bot that chose to play its first card."""
    try:
        action = bot.decide(seen)
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
