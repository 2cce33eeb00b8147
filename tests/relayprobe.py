"""What a hosted bot might try through its socket besides its Play: every Arena method
(with each token it is given and with none), health, reflection v1 and v1alpha, a path
no service has, and Play with tokens not its own. :func:`calls` makes them all on one
channel and returns what each got, for the relay's tests (tests/hosted/test_relay.py), in
process and copied into a sandboxed bot's folder (it needs grpc and arena.proto only)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import grpc

from arena.proto.truco.v1 import arena_pb2
from arena.proto.truco.v1 import bot_pb2 as pb

PLAY = "/truco.v1.Referee/Play"
OTHERS = {  # path: (client streams, server streams)
    "/grpc.health.v1.Health/Check": (False, False),
    "/grpc.health.v1.Health/Watch": (False, True),
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo": (True, True),
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo": (True, True),
    "/truco.v1.Nothing/Here": (False, False),
}
WAIT_S = 30.0  # a refusal comes at once; only a failure waits this out


def arena_methods() -> dict[str, tuple[bool, bool]]:
    service = arena_pb2.DESCRIPTOR.services_by_name["Arena"]
    return {
        f"/{service.full_name}/{m.name}": (m.client_streaming, m.server_streaming)
        for m in service.methods
    }


def call(channel: Any, path: str, kind: tuple[bool, bool], body: bytes, token: str) -> str:
    """``CODE: details`` of a call of ``path`` with one message ``body``, the token (if
    any) as ``authorization`` metadata; ``OK`` if it was answered."""
    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    client_streams, server_streams = kind
    make = {
        (False, False): channel.unary_unary,
        (False, True): channel.unary_stream,
        (True, False): channel.stream_unary,
        (True, True): channel.stream_stream,
    }[kind]
    request: bytes | Iterator[bytes] = iter([body]) if client_streams else body
    try:
        answer = make(path)(request, metadata=metadata, timeout=WAIT_S)
        if server_streams:
            list(answer)
    except grpc.RpcError as e:
        return f"{e.code().name}: {e.details()}"
    return "OK"


def hello(token: str) -> bytes:
    return pb.BotMessage(hello=pb.Hello(token=token, protocol_version=1)).SerializeToString()


def calls(address: str, tokens: Mapping[str, str], not_own: Mapping[str, str]) -> dict[str, str]:
    """Every call but the bot's own Play, by ``PATH [token name]``: each other service's
    method with each of ``tokens`` (name: token; "" for none), and Play with each token
    of ``not_own`` in its hello and, apart, in its metadata."""
    found = {}
    with grpc.insecure_channel(address) as channel:
        for path, kind in {**arena_methods(), **OTHERS}.items():
            for name, token in tokens.items():
                found[f"{path} [{name}]"] = call(channel, path, kind, b"", token)
        play = (True, True)
        for name, token in not_own.items():
            found[f"{PLAY} [{name} in hello]"] = call(channel, PLAY, play, hello(token), "")
            found[f"{PLAY} [{name} as bearer]"] = call(channel, PLAY, play, hello(""), token)
    return found
