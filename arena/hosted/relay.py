"""The one way out of a hosted bot's sandbox: a unix socket, handed in, whose
connections are carried to the referee, for the bot protocol only.

The sandbox has no network; its process speaks gRPC in plaintext on the socket, and the
relay, outside, opens a connection to the referee for each one it accepts (over TLS when
the arena's settings ask for it, with ALPN's ``h2`` as gRPC needs). The referee's port
serves the Arena API too: each connection goes through a :class:`~arena.hosted.gate.Gate`,
which lets through the process's own Play and refuses every other call with
PERMISSION_DENIED before it reaches the referee (docs/sandbox.md, "The relay").

One asyncio event loop, in one daemon thread of the process (:func:`_loop`), serves every
relay the process has: no thread per connection. Its sockets are on the loop's readiness
callbacks (:mod:`arena.hosted.sockets`), a TLS connection to the referee is asyncio's
own transport. A relay takes at most MAX_CONNECTIONS
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

from arena.errors import Invalid
from arena.hosted.gate import Gate
from arena.hosted.h2frames import Malformed
from arena.hosted.sockets import Side

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
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(self.path))
        os.chmod(self.path, 0o666)  # the sandbox's own uid connects
        self._listener.listen(BACKLOG)  # connections wait here until the loop takes them
        self._listener.setblocking(False)
        self._links: set[_Link] = set()
        self._closed = False
        self._crowded = False  # logged that the sandbox opened too many connections
        self._loop = _loop()
        self._loop.call_soon_threadsafe(self._loop.add_reader, self._listener, self._accept)

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
                self._loop.remove_reader(self._listener)
                self._listener.close()
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

    def _accept(self) -> None:
        """Every connection waiting: a link for each, or closed at once past the cap."""
        while not self._closed:
            try:
                sock, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as e:
                log.warning("relay: cannot accept at %s: %s", self.path, e)
                return
            if len(self._links) >= MAX_CONNECTIONS:
                if not self._crowded:
                    self._crowded = True
                    log.info("relay: a sandbox opened over %d connections", MAX_CONNECTIONS)
                sock.close()
                continue
            link = _Link(self, sock)
            self._links.add(link)
            self._loop.create_task(link.connect())

    async def _upstream(self, link: _Link) -> Side | asyncio.Transport:
        """A connection to the referee for ``link``."""
        loop, host, port = self._loop, *self._target
        if self._tls is not None and port is not None:
            name = self.address.rpartition(":")[0].strip("[]")
            tls, _ = await loop.create_connection(
                lambda: _TlsSide(link), host, port, ssl=self._tls, server_hostname=name
            )
            tls.set_write_buffer_limits(BUFFER_BYTES, BUFFER_BYTES // 4)
            return tls
        family = socket.AF_UNIX if port is None else _family(host)
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setblocking(False)
            await loop.sock_connect(sock, host if port is None else (host, port))
            if port is not None:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except BaseException:
            sock.close()
            raise
        return Side(loop, sock, link.from_referee, link.end, link.referee_full, BUFFER_BYTES)


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


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _in_loop(loop: asyncio.AbstractEventLoop) -> bool:
    with contextlib.suppress(RuntimeError):
        return asyncio.get_running_loop() is loop
    return False


class _Link:
    """One connection of the sandbox and its connection to the referee, through a gate."""

    def __init__(self, relay: Relay, sock: socket.socket) -> None:
        self.relay = relay
        self.gate = Gate(relay.token, f"the sandbox of {relay.path}")
        self.full = [False, False]  # the bot's side, the referee's: over BUFFER_BYTES
        self.ended = False
        self.referee: Side | asyncio.Transport | None = None
        self.bot = Side(
            relay._loop, sock, self.from_bot, self.end, self.bot_full, BUFFER_BYTES,
            closed=lambda: relay._links.discard(self),
        )  # fmt: skip

    async def connect(self) -> None:
        """Reach the referee, then read the bot (not before: nothing to carry it to)."""
        try:
            referee = await asyncio.wait_for(self.relay._upstream(self), CONNECT_S)
        except (OSError, TimeoutError) as e:
            log.warning("relay: cannot reach the referee at %s: %s", self.relay.address, e)
            self.abort()
            return
        if self.ended:
            referee.abort()
            return
        self.referee = referee
        self.flow()

    def from_bot(self, data: bytes) -> None:
        try:
            up, down = self.gate.from_bot(data)
        except Malformed as e:
            log.info("relay: ended a connection of %s: %s", self.gate.peer, e)
            self.abort()
            return
        except Exception:  # a flaw of the relay's: it costs that connection only
            log.exception("relay: ended a connection of %s", self.gate.peer)
            self.abort()
            return
        if up and self.referee is not None:
            self.referee.write(up)
        if down:
            self.bot.write(down)

    def from_referee(self, data: bytes) -> None:
        try:
            self.bot.write(self.gate.from_referee(data))
        except Exception:
            log.exception("relay: ended a connection of %s", self.gate.peer)
            self.abort()

    def bot_full(self, full: bool) -> None:
        self.full[0] = full
        self.flow()

    def referee_full(self, full: bool) -> None:
        self.full[1] = full
        self.flow()

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
        """Either side ended: so does the other, once what is written to it is taken. The
        link counts against the relay's cap until its bot's socket is closed."""
        if not self.ended:
            self.ended = True
            self.bot.close()
            if self.referee is not None:
                self.referee.close()

    def abort(self) -> None:
        self.end()
        self.bot.abort()
        if self.referee is not None:
            self.referee.abort()


class _TlsSide(asyncio.Protocol):
    """A TLS connection's protocol: asyncio's transport, the link's callbacks."""

    def __init__(self, link: _Link) -> None:
        self.link = link

    def data_received(self, data: bytes) -> None:
        self.link.from_referee(data)

    def pause_writing(self) -> None:
        self.link.referee_full(True)

    def resume_writing(self) -> None:
        self.link.referee_full(False)

    def connection_lost(self, exc: Exception | None) -> None:
        self.link.end()
