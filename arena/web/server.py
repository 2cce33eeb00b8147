"""Serving the web pages (``arena web``): uvicorn, configured in this one place, with a
deadline on each request head.

uvicorn waits for a request head as long as bytes keep coming: a client that sends a
header line every few seconds holds its connection forever, and a few hundred such
clients (slowloris) hold every connection the server can take. :class:`HeadTimeout`
closes a connection whose request head is not complete ``HEAD_TIMEOUT_S`` after the
connection opened or after the previous response ended.

Nor does uvicorn give up on a client that stops reading a response: what is written to
it waits in the connection's buffer, and a live stream (arena/web/live.py) would wait on
it for ever. The protocol cuts a connection whose buffer has stayed full (writing paused)
for ``WRITE_STALL_S``: its response ends, and its place among the live viewers is free.
The kernel's send buffer of each connection is set to ``SEND_BUFFER``, not left to grow
(on loopback it grew to megabytes a client): what a client that does not read holds
stays small, and fills soon enough to be seen.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import struct
from collections.abc import Callable, Collection
from typing import Any

import uvicorn
from starlette.applications import Starlette
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

HEAD_TIMEOUT_S = 10.0
WRITE_STALL_S = 30.0  # a client that takes nothing of a response for this long is cut
SEND_BUFFER = 128 * 1024  # a connection's send buffer in the kernel (Linux doubles it)
DRAIN_S = 5  # a stop waits this long for the open requests, then cuts them


class HeadTimeout(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, with a deadline for each request head.

    A new request is under way when uvicorn starts a new request-response cycle: then the
    deadline goes. It comes back when a response ends and no pipelined request is already
    under way, so that the rest of an unread body counts against the next head too."""

    _deadline: asyncio.TimerHandle | None = None
    _stalled: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        sock = transport.get_extra_info("socket")
        if sock is not None:  # the kernel's share of what a client leaves unread
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        super().connection_made(transport)
        self._await_head()

    def data_received(self, data: bytes) -> None:
        cycle = self.cycle
        super().data_received(data)
        if self.cycle is not cycle:
            self._stop_waiting()

    def on_response_complete(self) -> None:
        cycle = self.cycle
        super().on_response_complete()
        if self.cycle is cycle and not self.transport.is_closing():
            self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        self._reading()
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stalled is None:
            self._stalled = self.loop.call_later(WRITE_STALL_S, self._not_reading)

    def resume_writing(self) -> None:
        self._reading()
        super().resume_writing()

    def _reading(self) -> None:
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None

    def _not_reading(self) -> None:
        """Cut the connection with a reset: what its buffers hold is dropped at once (a
        plain close would leave the kernel trying to deliver it for minutes)."""
        self._stalled = None
        log.info("cut a connection from %s: it took nothing for %s s", self.client, WRITE_STALL_S)
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.transport.abort()

    def _await_head(self) -> None:
        self._stop_waiting()
        self._deadline = self.loop.call_later(HEAD_TIMEOUT_S, self._head_too_slow)

    def _stop_waiting(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _head_too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            log.debug("closed a connection from %s: no request head in time", self.client)
            self.transport.close()


class Server(uvicorn.Server):
    """uvicorn's server, calling ``stopped`` once its requests are done or cut at a stop:
    before the event loop ends, which waits for the threads those requests left (one
    waiting for a database that is gone would hold the stop for the pool's 30 s)."""

    def __init__(self, config: uvicorn.Config, stopped: Callable[[], None]) -> None:
        super().__init__(config)
        self.stopped = stopped

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        await super().shutdown(sockets)
        self.stopped()


def web_server(
    app: Starlette,
    host: str = "127.0.0.1",
    port: int = 8080,
    proxies: Collection[str] = (),
    stopped: Callable[[], None] = lambda: None,
) -> uvicorn.Server:
    """A uvicorn server of ``app``, not started: HTTP/1.1 with a deadline on request
    heads, no websockets, DRAIN_S for the open requests at a stop, then ``stopped()``.
    The client's address is the one a proxy on loopback or among ``proxies``
    (``ARENA_TRUSTED_PROXIES``) forwarded, else the peer's. Its lines go through the
    process's logging (arena/logs.py), a line for each request only at DEBUG."""
    access = logging.getLogger().isEnabledFor(logging.DEBUG)
    config = uvicorn.Config(
        app, host=host, port=port, http=HeadTimeout, ws="none", log_config=None,
        log_level=None, access_log=access,
        forwarded_allow_ips=["127.0.0.1", "::1", *sorted(proxies)],
        timeout_graceful_shutdown=DRAIN_S,
    )  # fmt: skip
    return Server(config, stopped)


def serve(
    app: Starlette,
    host: str,
    port: int,
    proxies: Collection[str] = (),
    stopped: Callable[[], None] = lambda: None,
) -> bool:
    """Serve ``app`` until SIGINT or SIGTERM, then finish the open requests (for DRAIN_S
    at most) and call ``stopped()``; whether the server started."""
    server = web_server(app, host, port, proxies, stopped)
    log.info("web pages on http://%s:%d/", host, port)

    def stopped_by(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stopped_by)
    with contextlib.suppress(KeyboardInterrupt):
        server.run()  # on SIGINT or SIGTERM it finishes open requests, then re-raises the signal
    return server.started
