"""The one way out of a hosted bot's sandbox: a unix socket, handed in, whose every
connection is carried byte for byte to the referee.

The sandbox has no network; its process speaks gRPC in plaintext on the socket, and the
relay, outside, opens a connection to the referee for each one it accepts (over TLS when
the arena's settings ask for it, with ALPN's ``h2`` as gRPC needs) and copies both ways
until either side ends. It knows nothing of gRPC: what reaches the referee is what the
bot sent, and the referee still checks the bot's token as for any bot.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import ssl
import tempfile
import threading
from pathlib import Path

log = logging.getLogger(__name__)

BUFFER = 64 * 1024


class Relay:
    """A unix socket at :attr:`path` (mode 0666, in a folder only this user enters)
    carried to the referee at ``address`` (``HOST:PORT`` or ``unix:PATH``)."""

    def __init__(self, address: str, *, ca_file: str | None = None, tls: bool = False) -> None:
        self.address = address
        self._tls = ssl.create_default_context(cafile=ca_file) if ca_file or tls else None
        if self._tls is not None:
            self._tls.set_alpn_protocols(["h2"])
        self._folder = tempfile.TemporaryDirectory(prefix="truco-relay-")
        os.chmod(self._folder.name, 0o700)
        self.path = Path(self._folder.name) / "referee.sock"
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(self.path))
        os.chmod(self.path, 0o666)  # the sandbox's own uid connects
        self._listener.listen(8)
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, name="relay", daemon=True).start()

    def __enter__(self) -> Relay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop accepting and end every connection carried."""
        with self._lock:
            self._closed = True
            ends = [*self._open, self._listener]
        for s in ends:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()
        self._folder.cleanup()

    def _upstream(self) -> socket.socket:
        if self.address.startswith("unix:"):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(self.address.removeprefix("unix:"))
            return s
        host, _, port = self.address.rpartition(":")
        s = socket.create_connection((host.strip("[]"), int(port)))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self._tls is not None:
            return self._tls.wrap_socket(s, server_hostname=host.strip("[]"))
        return s

    def _accept(self) -> None:
        while True:
            try:
                inner, _ = self._listener.accept()
            except OSError:  # closed
                return
            try:
                outer = self._upstream()
            except OSError as e:
                log.warning("relay: cannot reach the referee at %s: %s", self.address, e)
                inner.close()
                continue
            with self._lock:
                if self._closed:
                    inner.close()
                    outer.close()
                    return
                self._open |= {inner, outer}
            for a, b in ((inner, outer), (outer, inner)):
                threading.Thread(target=self._copy, args=(a, b), daemon=True).start()

    def _copy(self, source: socket.socket, sink: socket.socket) -> None:
        """From ``source`` to ``sink`` until ``source`` ends; then ``sink`` ends too."""
        try:
            while data := source.recv(BUFFER):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
            with self._lock:
                self._open -= {source, sink}
