"""Which calls of a hosted bot the relay lets through (arena/hosted/gate.py reads them off
the wire): the Play method, with no token but the process's own, and a first message
that is a hello with that token. Everything here says why a call is refused, or None."""

from __future__ import annotations

from google.protobuf.message import DecodeError

from arena.hosted.h2frames import Header
from arena.proto.truco.v1 import bot_pb2

PLAY = b"/truco.v1.Referee/Play"
ONLY = "a hosted bot reaches the bot protocol only"  # every refusal's message begins so
FIRST_MESSAGE_BYTES = 64 * 1024  # a Play's first message (the referee's own limit)


def headers_refusal(headers: list[Header], bearer: bytes) -> str | None:
    """Why a new stream with ``headers`` is refused: not one ``:path``, not Play, or an
    ``authorization`` that is not ``bearer`` (``Bearer`` and the own token)."""
    paths = [value for name, value in headers if name.lower() == b":path"]
    if len(paths) != 1:
        return f"a call with {len(paths)} :path fields"
    if paths[0] != PLAY:
        return f"{paths[0][:200].decode(errors='replace')} is refused"
    for name, value in headers:
        if name.lower() == b"authorization" and value != bearer:
            return "Play with its own match token, not another authorization"
    return None


def first_message(message: bytes, token: str, bearer: bool) -> tuple[bool, str | None]:
    """Of a Play's DATA so far (``bearer``: its headers had an authorization, checked):
    whether its first gRPC message is whole, and why the stream is refused (None: not,
    or not yet)."""
    if len(message) < 5:
        return False, None
    size = int.from_bytes(message[1:5], "big")
    if message[0] != 0:
        return False, "its first message must be a hello, not compressed"
    if size > FIRST_MESSAGE_BYTES:
        return False, f"its first message must be a hello within {FIRST_MESSAGE_BYTES} bytes"
    if len(message) < 5 + size:
        return False, None
    try:
        first = bot_pb2.BotMessage.FromString(message[5 : 5 + size])
    except DecodeError:
        return True, "its first message is not a BotMessage"
    if not first.HasField("hello"):
        return True, "its first message must be a hello"
    if (first.hello.token or (token if bearer else "")) != token:
        return True, "Play with its own match token, not another"
    return True, None
