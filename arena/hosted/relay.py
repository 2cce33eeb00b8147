"""The one way out of a hosted bot's sandbox: a unix socket, handed in, whose
connections are carried to the referee, for the bot protocol only.

The sandbox has no network; its process speaks gRPC in plaintext on the socket, and the
relay, outside, opens a connection to the referee for each one it accepts (over TLS when
the arena's settings ask for it, with ALPN's ``h2`` as gRPC needs). The referee's port
serves the Arena API too: each connection goes through a :class:`~arena.hosted.gate.Gate`,
which lets through the process's own Play and refuses every other call with
PERMISSION_DENIED before it reaches the referee (docs/sandbox.md, "The relay").

One event loop, in one daemon thread of the process (:func:`_loop`), serves every relay
the process has: no thread per connection. A relay takes at most MAX_CONNECTIONS
connections at once (more are closed as they come), and reads no more from a side
while what it wrote to the other is over BUFFER_BYTES.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import ssl
import tempfile
import threading
from pathlib import Path
from typing import Any

from arena.errors import Invalid
from arena.hosted.gate import Gate
from arena.hosted.h2frames import Malformed

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 4  # a sandbox's live connections; one more is closed as it comes
BUFFER_BYTES = 256 * 1024  # written to one side and not yet taken: reading the other pauses
CONNECT_S = 10.0  # to reach the referee
CLOSE_S = 5.0  # close() waits this long for the loop (it takes microseconds)
BACKLOG = 8

_shared: dict[int, asyncio.AbstractEventLoop] = {}  # by process: a fork starts its own
_shared_lock = threading.Lock()


def _loop() -> asyncio.AbstractEventLoop:
    """The process's relays' event loop, started in a daemon thread the first time."""
    with _shared_lock:
        loop = _shared.get(os.getpid())
        if loop is None:
            loop = _shared[os.getpid()] = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="relays", daemon=True).start()
        return loop


class Relay:
    """A unix socket at :attr:`path` (mode 0666, in a folder only this user enters)
    carried to the referee at ``address`` (``HOST:PORT`` or ``unix:PATH``) for the bot
    protocol of the process whose match token is ``token``, and nothing else."""

    def __init__(
        self, address: str, *, token: str, ca_file: str | None = None, tls: bool = False
    ) -> None:
        if not token:
            raise Invalid("a relay carries the Play of one match token: give it")
        self.address = address
        self.token = token
        self._tls = ssl.create_default_context(cafile=ca_file) if ca_file or tls else None
        if self._tls is not None:
            self._tls.set_alpn_protocols(["h2"])
        self._target = _target(address)
        self._folder = tempfile.TemporaryDirectory(prefix="truco-relay-")
        os.chmod(self._folder.name, 0o700)
        self.path = Path(self._folder.name) / "referee.sock"
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(self.path))
        os.chmod(self.path, 0o666)  # the sandbox's own uid connects
        listener.listen(BACKLOG)
        self._links: set[_Link] = set()
        self._closed = False
        self._crowded = False  # logged that the sandbox opened too many connections
        self._loop = _loop()
        self._server = asyncio.run_coroutine_threadsafe(
            self._loop.create_unix_server(lambda: _BotSide(self), sock=listener, backlog=BACKLOG),
            self._loop,
        ).result(CLOSE_S)

    def __enter__(self) -> Relay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop accepting and end every connection carried, from any thread; returns once
        done (at once when called again)."""
        if self._closed:
            return
        self._closed = True
        done = threading.Event()

        def shut() -> None:
            try:
                self._server.close()
                for link in list(self._links):
                    link.abort()
            finally:
                done.set()

        if _in_loop(self._loop):
            shut()
        else:
            self._loop.call_soon_threadsafe(shut)
            done.wait(CLOSE_S)
        self._folder.cleanup()

    def _admit(self, bot: asyncio.Transport) -> _Link | None:
        """A link for a connection the sandbox made, or None (closed) past the cap."""
        if self._closed or len(self._links) >= MAX_CONNECTIONS:
            if not self._crowded:
                self._crowded = True
                log.info("relay: a sandbox opened over %d connections at once", MAX_CONNECTIONS)
            bot.abort()
            return None
        link = _Link(self, bot)
        self._links.add(link)
        self._loop.create_task(link.connect())
        return link

    async def _upstream(self, link: _Link) -> asyncio.Transport:
        loop, host, port = self._loop, *self._target
        if port is None:
            unix, _ = await loop.create_unix_connection(lambda: _RefereeSide(link), host)
            return unix
        name = self.address.rpartition(":")[0].strip("[]") if self._tls else None
        tcp, _ = await loop.create_connection(
            lambda: _RefereeSide(link), host, port, ssl=self._tls, server_hostname=name
        )
        return tcp


def _target(address: str) -> tuple[str, int | None]:
    """Where the referee is: a unix socket's path (and None), or a host and port, the host
    resolved here, once: the loop then starts no resolver threads (where it cannot be
    resolved now, the loop tries again at each connection)."""
    if address.startswith("unix:"):
        return address.removeprefix("unix:"), None
    host, _, port = address.rpartition(":")
    host = host.strip("[]")
    try:
        number = int(port)
    except ValueError:
        raise Invalid(f"the referee's address {address} is not HOST:PORT") from None
    try:
        return str(socket.getaddrinfo(host, number, type=socket.SOCK_STREAM)[0][4][0]), number
    except OSError as e:
        log.warning("relay: cannot resolve the referee's address %s now: %s", address, e)
        return host, number


def _in_loop(loop: asyncio.AbstractEventLoop) -> bool:
    with contextlib.suppress(RuntimeError):
        return asyncio.get_running_loop() is loop
    return False


class _Link:
    """One connection of the sandbox and its connection to the referee, through a gate."""

    def __init__(self, relay: Relay, bot: asyncio.Transport) -> None:
        self.relay = relay
        self.bot = bot
        self.referee: asyncio.Transport | None = None
        self.gate = Gate(relay.token, f"the sandbox of {relay.path}")
        self.full = [False, False]  # the bot's side, the referee's: over BUFFER_BYTES
        self.ended = False
        bot.set_write_buffer_limits(BUFFER_BYTES, BUFFER_BYTES // 4)
        bot.pause_reading()  # until the referee is reached

    async def connect(self) -> None:
        try:
            transport = await asyncio.wait_for(self.relay._upstream(self), CONNECT_S)
        except (OSError, TimeoutError) as e:
            log.warning("relay: cannot reach the referee at %s: %s", self.relay.address, e)
            self.abort()
            return
        if self.ended:
            transport.abort()

    def reached(self, referee: asyncio.Transport) -> None:
        self.referee = referee
        referee.set_write_buffer_limits(BUFFER_BYTES, BUFFER_BYTES // 4)
        self.flow()

    def from_bot(self, data: bytes) -> None:
        try:
            up, down = self.gate.from_bot(data)
        except Malformed as e:
            log.info("relay: ended a connection of %s: %s", self.gate.peer, e)
            self.abort()
            return
        if up and self.referee is not None:
            self.referee.write(up)
        if down:
            self.bot.write(down)

    def from_referee(self, data: bytes) -> None:
        self.bot.write(self.gate.from_referee(data))

    def flow(self) -> None:
        """Read from a side only while what was written to the other is taken (the bot's
        side also while its own is: what the relay answers it goes there)."""
        bot_full, referee_full = self.full
        if self.ended or self.referee is None:
            return
        if bot_full or referee_full:
            self.bot.pause_reading()
        else:
            self.bot.resume_reading()
        if bot_full:
            self.referee.pause_reading()
        else:
            self.referee.resume_reading()

    def end(self) -> None:
        """Either side ended: so does the other (after what is written to it)."""
        if not self.ended:
            self.ended = True
            self.relay._links.discard(self)
            self.bot.close()
            if self.referee is not None:
                self.referee.close()

    def abort(self) -> None:
        self.end()
        self.bot.abort()
        if self.referee is not None:
            self.referee.abort()


class _BotSide(asyncio.Protocol):
    def __init__(self, relay: Relay) -> None:
        self.relay = relay
        self.link: _Link | None = None

    def connection_made(self, transport: Any) -> None:
        self.link = self.relay._admit(transport)

    def data_received(self, data: bytes) -> None:
        if self.link is not None:
            self.link.from_bot(data)

    def pause_writing(self) -> None:
        self._full(True)

    def resume_writing(self) -> None:
        self._full(False)

    def _full(self, full: bool) -> None:
        if self.link is not None:
            self.link.full[0] = full
            self.link.flow()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.link is not None:
            self.link.end()


class _RefereeSide(asyncio.Protocol):
    def __init__(self, link: _Link) -> None:
        self.link = link

    def connection_made(self, transport: Any) -> None:
        self.link.reached(transport)

    def data_received(self, data: bytes) -> None:
        self.link.from_referee(data)

    def pause_writing(self) -> None:
        self.link.full[1] = True
        self.link.flow()

    def resume_writing(self) -> None:
        self.link.full[1] = False
        self.link.flow()

    def connection_lost(self, exc: Exception | None) -> None:
        self.link.end()
