"""The referee's gRPC server: the bot protocol, health and reflection.

``create_server(address, hub)`` builds a ``grpc.aio`` server; tests bind it to port 0.
The ``Play`` servicer is thin: it checks the hello and the token, then shuttles messages
between the stream and the :class:`~referee.hub.Hub`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena.guard import FailedTokens, peer_address
from arena.proto.truco.v1 import arena_pb2, arena_pb2_grpc, bot_pb2_grpc
from arena.proto.truco.v1 import bot_pb2 as pb
from arena.wire import PROTOCOL_VERSION
from referee.hub import NOT_READING, Hub, Session

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 64 * 1024
HELLO_TIMEOUT_S = 10.0
WRITE_STALL_S = 10.0  # a message the bot's side has not taken in this long: it is not reading
HANDSHAKE_TIMEOUT_MS = 10_000  # a connection must speak HTTP/2 (and TLS) within this
SERVICE = pb.DESCRIPTOR.services_by_name["Referee"].full_name


class RefereeServicer(bot_pb2_grpc.RefereeServicer):
    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.failed = FailedTokens()

    async def Play(self, request_iterator: AsyncIterator[pb.BotMessage], context: Any) -> None:
        session = await self._greet(context)
        if session is None:
            return
        reader = asyncio.create_task(self._read(context, session))
        loop = asyncio.get_running_loop()
        watch = loop.call_later(WRITE_STALL_S / 4, self._watch_writes, session, loop)
        try:
            await self.hub.attach(session)
            outbox = session.outbox
            while True:  # take what is queued without waiting; wait only when empty
                message = await outbox.get() if outbox.empty() else outbox.get_nowait()
                if message is None:
                    break
                # a write waits while the bot's flow-control window is full; one stuck
                # longer than WRITE_STALL_S ends the session (_watch_writes; the write
                # itself cannot be cancelled: gRPC ends the call once it is taken, or when
                # keepalive finds the connection dead)
                session.writing_since = loop.time()
                await context.write(message)
                session.writing_since = None
        finally:
            watch.cancel()
            reader.cancel()
            self.hub.detach(session)
        if session.close_code is not None:
            await context.abort(session.close_code, session.close_reason)

    def _watch_writes(self, session: Session, loop: asyncio.AbstractEventLoop) -> None:
        """Every quarter of WRITE_STALL_S (one timer a stream, not one a message): cut a
        bot off whose stream has taken nothing for WRITE_STALL_S."""
        since = session.writing_since
        if since is not None and loop.time() - since > WRITE_STALL_S:
            self._not_reading(session)
        elif not session.closed:
            loop.call_later(WRITE_STALL_S / 4, self._watch_writes, session, loop)

    def _not_reading(self, session: Session) -> None:
        session.close(grpc.StatusCode.RESOURCE_EXHAUSTED, NOT_READING)
        self.hub.detach(session)  # its seats are held as after a disconnect, from now

    async def _greet(self, context: Any) -> Session | None:
        try:
            first = await asyncio.wait_for(context.read(), HELLO_TIMEOUT_S)
        except TimeoutError:
            await context.abort(
                grpc.StatusCode.DEADLINE_EXCEEDED, f"no hello within {HELLO_TIMEOUT_S:.0f} s"
            )
        if first is grpc.aio.EOF:
            return None
        if not first.HasField("hello"):
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "the first message must be a hello"
            )
        hello = first.hello
        if hello.protocol_version not in (0, PROTOCOL_VERSION):
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"protocol version {hello.protocol_version} is not spoken here; "
                f"this referee speaks {PROTOCOL_VERSION}",
            )
        address = peer_address(context.peer())
        if self.failed.busy(address):
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED, "too many bad tokens from your address"
            )
        token = hello.token or bearer(context)
        # a token book may ask the database: keep the event loop free meanwhile
        bot = await asyncio.to_thread(self.hub.tokens.lookup, token) if token else None
        if bot is None:
            log.warning("refused a bot from %s: unknown token", context.peer())
            await self.failed.hold(address)
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown token")
        concurrency = max(1, min(hello.concurrency, self.hub.max_concurrency))
        return Session.open(bot, concurrency, context.peer(), hello.hand_results)

    async def _read(self, context: Any, session: Session) -> None:
        while not session.closed:
            try:
                message = await context.read()
            except Exception as e:  # the call broke (an oversized message, say): end it
                log.info("stream of bot %s from %s broke: %r", session.bot, session.peer, e)
                message = grpc.aio.EOF
            if message is grpc.aio.EOF:
                session.close()
                return
            if not session.admit():
                continue
            if message.HasField("action"):
                self.hub.route(session, message.action)


def bearer(context: Any) -> str:
    """The token of an ``authorization: Bearer TOKEN`` metadata entry, or ""."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            return value.removeprefix("Bearer ").strip()
    return ""


@dataclass
class RefereeServer:
    server: grpc.aio.Server
    port: int
    hub: Hub
    health: Any

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def start(self) -> None:
        await self.server.start()
        await self.health.set(SERVICE, health_pb2.HealthCheckResponse.SERVING)

    async def stop(self, grace_s: float = 1.0) -> None:
        await self.server.stop(grace_s)


def create_server(
    address: str,
    hub: Hub,
    arena: Any = None,
    credentials: grpc.ServerCredentials | None = None,
) -> RefereeServer:
    """A referee bound to ``address`` (port 0 picks a free port), not yet started; with
    ``arena`` (an ArenaServicer) it serves the Arena API too; with ``credentials``
    (:func:`arena.channel.server_credentials`) it speaks TLS only."""
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.keepalive_time_ms", 20_000),
            ("grpc.keepalive_timeout_ms", 10_000),
            ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.server_handshake_timeout_ms", HANDSHAKE_TIMEOUT_MS),
        ]
    )
    bot_pb2_grpc.add_RefereeServicer_to_server(RefereeServicer(hub), server)
    services = [SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME]
    if arena is not None:
        arena.hub = hub
        arena_pb2_grpc.add_ArenaServicer_to_server(arena, server)
        services.append(arena_pb2.DESCRIPTOR.services_by_name["Arena"].full_name)
    checker = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checker, server)
    reflection.enable_server_reflection(services, server)
    if credentials is None:
        port = server.add_insecure_port(address)
    else:
        port = server.add_secure_port(address, credentials)
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    return RefereeServer(server, port, hub, checker)
