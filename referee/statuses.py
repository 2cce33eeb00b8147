"""What the Arena API's errors become, in one place: a server interceptor
(:class:`Statuses`) around every Arena RPC. A kind of :mod:`arena.errors`, or one of the
engine's typed errors (a request's rules or record that do not parse), is the caller's:
its status from :data:`STATUS`, with its message. Anything else is a bug of ours:
INTERNAL, logged once with its traceback, its details kept from the caller. The Referee
service (the bots' stream) ends its calls with statuses of its own and is left alone.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from arena.engine import TrucoError
from arena.errors import (
    Exhausted,
    Exists,
    Forbidden,
    Invalid,
    NotFound,
    NotReady,
    Sealed,
    Unauthenticated,
    Unavailable,
)
from arena.proto.truco.v1 import arena_pb2

log = logging.getLogger(__name__)

ARENA = "/" + arena_pb2.DESCRIPTOR.services_by_name["Arena"].full_name + "/"

STATUS: dict[type[Exception], grpc.StatusCode] = {
    NotFound: grpc.StatusCode.NOT_FOUND,
    Exists: grpc.StatusCode.ALREADY_EXISTS,
    Invalid: grpc.StatusCode.INVALID_ARGUMENT,
    TrucoError: grpc.StatusCode.INVALID_ARGUMENT,  # the engine's: rules, actions, records
    Forbidden: grpc.StatusCode.PERMISSION_DENIED,
    Unauthenticated: grpc.StatusCode.UNAUTHENTICATED,
    NotReady: grpc.StatusCode.FAILED_PRECONDITION,
    Sealed: grpc.StatusCode.FAILED_PRECONDITION,
    Unavailable: grpc.StatusCode.UNAVAILABLE,
    Exhausted: grpc.StatusCode.RESOURCE_EXHAUSTED,
}
"""The status of each kind of error the caller is told about (none of them overlap)."""

Behavior = Callable[[Any, Any], Awaitable[Any]]
Streams = Callable[[Any, Any], AsyncIterator[Any]]


def status_of(error: BaseException) -> grpc.StatusCode | None:
    """The status of an error of the caller's; None for a bug."""
    for kind, code in STATUS.items():
        if isinstance(error, kind):
            return code
    return None


def translated(behavior: Behavior, method: str) -> Behavior:
    """An RPC's behavior whose errors become statuses, as the module says."""

    async def call(request: Any, context: Any) -> Any:
        try:
            return await behavior(request, context)
        except (grpc.aio.AbortError, asyncio.CancelledError):
            raise
        except Exception as e:
            await _abort(context, method, e)

    return call


def translated_stream(behavior: Streams, method: str) -> Streams:
    """A server-streaming RPC's behavior whose errors become statuses: before its first
    reply, or after some (the caller then has part of the stream, and the status)."""

    async def call(request: Any, context: Any) -> AsyncIterator[Any]:
        try:
            async for reply in behavior(request, context):
                yield reply
        except (grpc.aio.AbortError, asyncio.CancelledError):
            raise
        except Exception as e:
            await _abort(context, method, e)

    return call


async def _abort(context: Any, method: str, error: Exception) -> None:
    code = status_of(error)
    if code is None:
        log.exception("%s failed", method)
        await context.abort(grpc.StatusCode.INTERNAL, f"{method} failed; see the server's log")
    await context.abort(code, str(error))


class Statuses(grpc.aio.ServerInterceptor):  # type: ignore[misc]  # grpc.aio is untyped
    """The interceptor that applies :func:`translated` to every Arena RPC."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        method: str = details.method
        if handler is None or not method.startswith(ARENA):
            return handler
        name = method.removeprefix(ARENA)
        if handler.unary_unary is not None:
            return handler._replace(unary_unary=translated(handler.unary_unary, name))
        if handler.stream_unary is not None:
            return handler._replace(stream_unary=translated(handler.stream_unary, name))
        if handler.unary_stream is not None:  # the exports
            return handler._replace(unary_stream=translated_stream(handler.unary_stream, name))
        raise AssertionError(f"{method}: the Arena API streams replies to one request only")
