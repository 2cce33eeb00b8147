"""The referee's gRPC server: the bot protocol, health and reflection.

``create_server(address, hub)`` builds a ``grpc.aio`` server; tests bind it to port 0.
``RefereeServer.stop`` stops it cleanly: every bot stream ends with OK.
The ``Play`` servicer is thin: it checks the hello and the token, then shuttles messages
between the stream and the :class:`~referee.hub.Hub`, and a :class:`WriteWatch` cuts off
a bot whose side of the stream stops taking what is written to it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, text_format
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

from arena.domain.identity import is_match_token
from arena.guard import FailedTokens, caller_address
from arena.hosted.tokens import token_key
from arena.proto.truco.v1 import arena_pb2, bot_pb2_grpc
from arena.proto.truco.v1 import bot_pb2 as pb
from arena.wire import PROTOCOL_VERSION
from referee.callers import bearer
from referee.hub import Hub
from referee.nodes import Node
from referee.sessions import NOT_READING, Outgoing, Session
from referee.statuses import Statuses

if TYPE_CHECKING:  # the Arena API needs the server parts; local matches serve without it
    from referee.api import ArenaApi
    from referee.live import Publisher

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 64 * 1024
HELLO_TIMEOUT_S = 10.0
WRITE_STALL_S = 10.0  # a message the bot's side has not taken in this long: it is not reading
HANDSHAKE_TIMEOUT_MS = 10_000  # a connection must speak HTTP/2 (and TLS) within this
# Clients may send keepalive pings every second (grpc-js users do), with or without a
# call. A ping is a strike only when it comes sooner than this after the previous one
# with nothing sent to the client in between: half the interval, a margin for the network
# and for timers; a strike past PING_STRIKES ends the connection (GOAWAY too_many_pings).
MIN_PING_INTERVAL_MS = 500
PING_STRIKES = 2
HOSTED_HELLO_S = 300.0  # a hosted process may wait this long for its match (a warm one does)
DRAIN_S = 2.0  # a clean stop waits this long for what is queued to reach the bots
SERVICE = pb.DESCRIPTOR.services_by_name["Referee"].full_name
REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"
FIRST_NOT_A_MESSAGE = "the first message is not a BotMessage (binary protobuf)"
NOT_A_MESSAGE = "a message on the stream is not a BotMessage (binary protobuf)"


class RefereeServicer(bot_pb2_grpc.RefereeServicer):
    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.failed = FailedTokens()
        self._endings: set[asyncio.Future[None]] = set()  # statuses queued behind stuck writes

    async def Play(self, request_iterator: AsyncIterator[pb.BotMessage], context: Any) -> None:
        session = await self._greet(context)
        if session is None:
            return
        reader = asyncio.create_task(self._read(context, session))
        handler = asyncio.current_task()
        assert handler is not None
        watch = WriteWatch(session, lambda: self._cut_off(session, context, handler))
        try:
            await self.hub.attach(session)
            await write_all(context, session)
        finally:
            watch.cancel()
            reader.cancel()
            self.hub.detach(session)
        if session.close_code is not None:
            await context.abort(session.close_code, session.close_reason)

    def _cut_off(self, session: Session, context: Any, handler: asyncio.Task[Any]) -> None:
        """The bot's side has taken nothing for WRITE_STALL_S: it is not reading. Its
        session ends (the hub holds its seats from now) and so does its handler, stuck in
        a write that gRPC cannot take back. The status is handed to gRPC first: queued
        behind the stuck message, it reaches the bot if the bot reads again, and nothing
        here waits for that (the call itself lasts until the bot reads or hangs up)."""
        session.close(grpc.StatusCode.RESOURCE_EXHAUSTED, NOT_READING)  # unless cut off before
        assert session.close_code is not None
        ending = asyncio.ensure_future(context.abort(session.close_code, session.close_reason))
        self._endings.add(ending)
        ending.add_done_callback(self._ended)
        handler.cancel()

    def _ended(self, ending: asyncio.Future[None]) -> None:
        """A queued status went out (AbortError) or its call died first: either way done."""
        self._endings.discard(ending)
        if not ending.cancelled():
            ending.exception()  # retrieved, so asyncio does not report it

    async def _greet(self, context: Any) -> Session | None:
        try:
            first = await asyncio.wait_for(context.read(), HELLO_TIMEOUT_S)
        except TimeoutError:
            await context.abort(
                grpc.StatusCode.DEADLINE_EXCEEDED, f"no hello within {HELLO_TIMEOUT_S:.0f} s"
            )
        except DecodeError:  # escaping, it would be UNKNOWN and a traceback in the log
            log.info("refused a stream from %s: %s", context.peer(), FIRST_NOT_A_MESSAGE)
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, FIRST_NOT_A_MESSAGE)
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
        token = hello.token or bearer(context)
        if is_match_token(token):  # a hosted process: one seat of one match
            seat = await self.hub.hosted_seat(token, HOSTED_HELLO_S)
            if isinstance(seat, str):  # the arena signed it, so no guess: refused at once
                await self._refuse(context, None, seat)
            if seat is not None:
                hosted, match_id = seat
                return Session.open(
                    hosted, 1, context.peer(), hello.hand_results, hello.name, match_id
                )
        address = caller_address(context.peer(), context.invocation_metadata(), self.hub.proxies)
        if self.failed.busy(address):
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED, "too many bad tokens from your address"
            )
        # a token book may ask the database: keep the event loop free meanwhile (a match
        # token the arena did not sign is no bot's)
        known = token and not is_match_token(token)
        bot = await asyncio.to_thread(self.hub.tokens.lookup, token) if known else None
        if bot is None:
            await self._refuse(context, address, "unknown token")
        concurrency = max(1, min(hello.concurrency, self.hub.max_concurrency))
        return Session.open(bot, concurrency, context.peer(), hello.hand_results, hello.name)

    async def _refuse(self, context: Any, address: str | None, why: str) -> NoReturn:
        """UNAUTHENTICATED, after holding ``address`` as for any bad token (at once when
        None: a match token of the arena's, whose process may ask again after its match,
        from the address all of its worker's sandboxes share)."""
        level = logging.INFO if address is None else logging.WARNING
        log.log(level, "refused a bot from %s: %s", address or context.peer(), why)
        if address is not None:
            await self.failed.hold(address)
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, why)
        raise AssertionError("abort raises")  # what grpc's untyped abort does not say

    async def _read(self, context: Any, session: Session) -> None:
        while not session.closed:
            message = await receive(context, session)
            if message is None:
                return
            if not session.admit():
                continue
            if message.HasField("action"):
                self.hub.route(session, message.action)


async def receive(context: Any, session: Session) -> pb.BotMessage | None:
    """The bot's next message; None once there are no more, the session closed: cleanly
    at the end of the stream (or when the call broke), with INVALID_ARGUMENT when the
    bytes are not a BotMessage (the hub logs that line)."""
    try:
        message = await context.read()
    except DecodeError:
        session.close(grpc.StatusCode.INVALID_ARGUMENT, NOT_A_MESSAGE)
        return None
    except Exception as e:  # the call broke (an oversized message, say): end it
        log.info("stream of bot %s from %s broke: %r", session.bot, session.peer, e)
        message = grpc.aio.EOF
    if message is grpc.aio.EOF:
        session.close()
        return None
    return message  # type: ignore[no-any-return]


async def write_all(context: Any, session: Session) -> None:
    """Write what the session queues, up to its end marker. A write waits while the bot's
    flow-control window is full, for as long as the bot does not read: ``writing_since``
    tells the :class:`WriteWatch` when it began."""
    loop = asyncio.get_running_loop()
    outbox = session.outbox
    while True:  # take what is queued without waiting; wait only when empty
        message = await outbox.get() if outbox.empty() else outbox.get_nowait()
        if message is None:
            return
        session.writing_since = loop.time()
        await context.write(message)
        session.writing_since = None


class WriteWatch:
    """Watches one stream's writes for as long as its handler runs, and calls ``cut_off``
    once a write has waited WRITE_STALL_S. One timer a stream, not one a message: it looks
    every quarter of WRITE_STALL_S, and when it finds a write waiting, next when that
    write's time is up. It keeps looking after the session is closed: a closed session's
    last write can be the one that never ends."""

    def __init__(self, session: Session, cut_off: Callable[[], None]) -> None:
        self._session = session
        self._cut_off = cut_off
        self._loop = asyncio.get_running_loop()
        self._timer = self._loop.call_later(WRITE_STALL_S / 4, self._look)

    def _look(self) -> None:
        now = self._loop.time()
        since = self._session.writing_since
        if since is not None and now - since >= WRITE_STALL_S:
            self._cut_off()
            return
        # a timer may ring a hair early: then it looks again at once
        due = now + WRITE_STALL_S / 4 if since is None else since + WRITE_STALL_S
        self._timer = self._loop.call_at(due, self._look)

    def cancel(self) -> None:
        self._timer.cancel()


@dataclass
class RefereeServer:
    server: grpc.aio.Server
    port: int
    hub: Hub
    health: Any
    services: list[str]
    node: Node | None = None  # with the Arena API: this referee as a node of several
    publisher: Publisher | None = None  # with the Arena API: the live feed's (referee/live.py)
    _leases: asyncio.Task[None] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def start(self) -> None:
        await self.server.start()
        for service in self.services:
            await self.health.set(service, health_pb2.HealthCheckResponse.SERVING)
        if self.node is not None:
            self._leases = asyncio.create_task(self.node.run())

    async def stop(self, drain_s: float = DRAIN_S) -> None:
        """Stop cleanly: health turns NOT_SERVING, no new call is taken, and every bot
        stream ends with OK once the messages queued for it are written. What is still
        open after ``drain_s`` (a bot that does not read, a stream without a hello yet)
        is cancelled."""
        await self.health.enter_graceful_shutdown()
        await asyncio.gather(self.server.stop(drain_s), self.hub.finish(drain_s))
        if self.node is not None:
            if self._leases is not None:
                self._leases.cancel()
            await self.node.stop()
            await self.node.close()
        if self.publisher is not None:
            await asyncio.to_thread(self.publisher.close)


def create_server(
    address: str,
    hub: Hub,
    arena: ArenaApi | None = None,
    credentials: grpc.ServerCredentials | None = None,
    local_socket: str | None = None,
    node: NodeName | None = None,
) -> RefereeServer:
    """A referee bound to ``address`` (port 0 picks a free port), not yet started; with
    ``arena`` it serves the Arena API too (referee/api/), and is a node of the referees
    on its database (referee/nodes.py), named as ``node`` says; with ``credentials``
    (:func:`arena.channel.server_credentials`) it speaks TLS only on ``address``; with
    ``local_socket`` (``unix:PATH``, in a folder of one user's own) it also listens
    there, in plaintext, for that user's CLI (:func:`arena.settings.referee_socket`)."""
    server = grpc.aio.server(
        interceptors=[Statuses()],  # what the Arena API's errors become
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.keepalive_time_ms", 20_000),
            ("grpc.keepalive_timeout_ms", 10_000),
            ("grpc.http2.min_ping_interval_without_data_ms", MIN_PING_INTERVAL_MS),
            ("grpc.http2.max_ping_strikes", PING_STRIKES),
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.server_handshake_timeout_ms", HANDSHAKE_TIMEOUT_MS),
        ],
    )
    if credentials is None:
        port = server.add_insecure_port(address)
    else:
        port = server.add_secure_port(address, credentials)
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    if local_socket is not None:
        server.add_insecure_port(local_socket)
    add_referee(RefereeServicer(hub), server)
    services = [SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME, REFLECTION_V1]
    this_node = publisher = None
    if arena is not None:  # a node of the referees on its database, reached at its port
        hub.token_key = token_key(arena.store.deal_key())  # hosted bots' match tokens
        named = node or NodeName()
        reached = named.address or address.rsplit(":", 1)[0] + f":{port}"
        this_node = Node(
            named.name or reached, reached, arena.store, hub, arena.admin_token, named.secure
        )
        from referee.live import Publisher  # a server part, as the Arena API is

        publisher = Publisher(arena.store.conninfo)
        hub.live = publisher.publish
        arena.serve(server, hub, this_node)
        services.append(arena_pb2.DESCRIPTOR.services_by_name["Arena"].full_name)
    checker = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checker, server)
    add_reflection(services, server)
    return RefereeServer(server, port, hub, checker, services, this_node, publisher)


def add_referee(servicer: RefereeServicer, server: grpc.aio.Server) -> None:
    """The Referee service, as ``add_RefereeServicer_to_server`` adds it but for what it
    writes: a RefereeMessage or the bytes of one (:data:`~referee.sessions.Outgoing`),
    so that a message the runner encoded is not parsed only to be encoded again."""
    play = grpc.stream_stream_rpc_method_handler(
        servicer.Play,
        request_deserializer=pb.BotMessage.FromString,
        response_serializer=encoded,
    )
    handlers = {"Play": play}
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    server.add_registered_method_handlers(SERVICE, handlers)


def encoded(message: Outgoing) -> bytes:
    return message if isinstance(message, bytes) else message.SerializeToString()


@dataclass(frozen=True)
class NodeName:
    """What a referee is called as a node, and how the others reach it: its name (default:
    its address), the address it is reached at (default: the one it listens on, with the
    port it got) and the TLS the others use to reach it (``(ca_file, tls)``)."""

    name: str = ""
    address: str = ""
    secure: tuple[str | None, bool] = (None, False)


def _describe_reflection_v1() -> None:
    """Put grpc.reflection.v1 in the default descriptor pool, so that reflection can
    describe it too: grpcio-reflection has only v1alpha, whose messages v1 keeps as they
    were (same names, same field numbers), so v1 is v1alpha renamed."""
    pool = descriptor_pool.Default()
    try:
        pool.FindServiceByName(REFLECTION_V1)
        return  # a library put the real one there
    except KeyError:
        pass
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(proto)
    proto.ClearField("options")  # v1alpha's are its own (deprecated, its packages)
    text = text_format.MessageToString(proto).replace(".v1alpha", ".v1")
    renamed = text_format.Parse(text, descriptor_pb2.FileDescriptorProto())
    renamed.name = "grpc/reflection/v1/reflection.proto"
    pool.AddSerializedFile(renamed.SerializeToString())


_describe_reflection_v1()


def add_reflection(services: list[str], server: grpc.aio.Server) -> None:
    """Reflection as v1alpha and as v1 (which grpcurl and other current tools ask
    first): one servicer answers both, the messages being the same on the wire."""
    servicer = reflection.aio.ReflectionServicer(services)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    info = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    v1 = grpc.method_handlers_generic_handler(REFLECTION_V1, {"ServerReflectionInfo": info})
    server.add_generic_rpc_handlers((v1,))
