"""A socket of the hosted bots' relay (arena/hosted/relay.py) on the relay's event loop:
nonblocking, read through the loop's readiness callbacks (``add_reader``), written at
once and, for what the socket does not take, when it is writable again.

It does what the relay needs of an asyncio transport and no more, at a fraction of the
Python a transport runs per read and write: the relay is on every decision of a hosted
bot, and a transport's layers cost it about as much again as its own checks
(tests/bench/relay.py). TLS to the referee keeps asyncio's own transport, which has the
same methods (write, pause_reading, resume_reading, close, abort).
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

READ_BYTES = 256 * 1024  # asyncio's own read size


class Side:
    """``sock`` on ``loop``: each read goes to ``received`` (while reading, which starts
    paused); the socket's end or failure calls ``lost`` once; ``full(True)`` once over
    ``limit`` bytes wait to be written, ``full(False)`` once back under a quarter of it;
    ``closed`` once the socket is closed."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        sock: socket.socket,
        received: Callable[[bytes], None],
        lost: Callable[[], None],
        full: Callable[[bool], None],
        limit: int,
        closed: Callable[[], None] = lambda: None,
    ) -> None:
        sock.setblocking(False)
        self._loop, self._sock, self._fd = loop, sock, sock.fileno()
        self._received, self._lost, self._full, self._closed_hook = received, lost, full, closed
        self._limit = limit
        self._waiting = bytearray()  # written, not yet taken by the socket
        self._reading = self._over = self._closing = self._closed = False

    def resume_reading(self) -> None:
        if not self._reading and not self._closed and not self._closing:
            self._loop.add_reader(self._fd, self._read)
            self._reading = True

    def pause_reading(self) -> None:
        if self._reading:
            self._loop.remove_reader(self._fd)
            self._reading = False

    def write(self, data: bytes) -> None:
        if self._closed or self._closing or not data:
            return
        if not self._waiting:
            try:
                sent = self._sock.send(data)
            except (BlockingIOError, InterruptedError):
                sent = 0
            except OSError:
                self._lose()
                return
            if sent == len(data):
                return
            self._loop.add_writer(self._fd, self._write_ready)
            data = data[sent:]
        self._waiting += data
        if not self._over and len(self._waiting) > self._limit:
            self._over = True
            self._full(True)

    def close(self) -> None:
        """Once what waits is written (at once if nothing does)."""
        if not self._waiting:
            self.abort()
        else:
            self.pause_reading()
            self._closing = True

    def abort(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.pause_reading()
        if self._waiting:
            self._loop.remove_writer(self._fd)
            self._waiting.clear()
        self._sock.close()
        self._closed_hook()

    def _read(self) -> None:
        try:
            data = self._sock.recv(READ_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if data:
            self._received(data)
        else:
            self._lose()

    def _write_ready(self) -> None:
        try:
            sent = self._sock.send(self._waiting)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._lose()
            return
        del self._waiting[:sent]
        if self._over and len(self._waiting) <= self._limit // 4:
            self._over = False
            self._full(False)
        if not self._waiting:
            self._loop.remove_writer(self._fd)
            if self._closing:
                self.abort()

    def _lose(self) -> None:
        if not self._closed:
            self.abort()
            self._lost()
