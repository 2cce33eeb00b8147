"""The time control on the wire: the one conversion between the domain's
:class:`~arena.domain.clock.TimeControl` and bot.proto's ``Clock`` message, which
``MatchStarted`` carries to the bots and every Arena API request and reply that sets or
shows a clock carries as its ``clock`` field (docs/protocol.md, "The clock").

Those Arena API messages keep the clock's three fields of before, deprecated, so that
older clients work: a request is read from them when it has no ``clock`` (each one left
unset takes its default), and a reply fills them beside ``clock``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypeVar

from google.protobuf.message import Message

from arena.domain.clock import DEFAULT_CLOCK, LIMITS_MS, TimeControl
from arena.proto.truco.v1 import bot_pb2 as pb

DEPRECATED = tuple(LIMITS_MS)  # the Arena API's fields of before, named as TimeControl's
M = TypeVar("M", bound=Message)


def clock_to_pb(clock: TimeControl) -> pb.Clock:
    return pb.Clock(
        decision_ms=clock.decision_ms,
        time_bank_ms=clock.time_bank_ms,
        reconnect_grace_ms=clock.reconnect_grace_ms,
    )


def clock_from_pb(msg: pb.Clock) -> TimeControl:
    """Every field as given, 0 included; Invalid naming one out of range."""
    return TimeControl(
        decision_ms=msg.decision_ms,
        time_bank_ms=msg.time_bank_ms,
        reconnect_grace_ms=msg.reconnect_grace_ms,
    )


def sets_clock(request: Any) -> bool:
    """Whether an Arena API request sets a clock, by ``clock`` or a deprecated field."""
    return request.HasField("clock") or any(request.HasField(name) for name in DEPRECATED)


def request_clock(request: Any, base: TimeControl = DEFAULT_CLOCK) -> TimeControl:
    """The clock an Arena API request sets: its ``clock``, whole; without one, ``base``
    changed by the deprecated fields that are set. Invalid names a clock out of range."""
    if request.HasField("clock"):
        return clock_from_pb(request.clock)
    given = {name: getattr(request, name) for name in DEPRECATED if request.HasField(name)}
    return replace(base, **given)


def put_clock(reply: M, clock: TimeControl) -> M:
    """``reply`` (an Arena API message) showing ``clock``: its ``clock`` field and the
    deprecated ones."""
    fields: Any = reply  # a message with a clock: the generated types share no base for it
    fields.clock.CopyFrom(clock_to_pb(clock))
    for name in DEPRECATED:
        setattr(fields, name, getattr(clock, name))
    return reply
