"""The web server against slow clients, on a real uvicorn server on a loopback port: a
client that sends its request head a line at a time (slowloris), before its first request
or after a response, is cut off once the head takes longer than the timeout; a client
that sends its requests whole is served, on one connection, however slow the answers."""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from arena import guard
from arena.store.store import Store
from arena.web import create_app, server
from arena.web.server import web_server
from tests.webdata import ORGANIZER

HEAD_S = 1.0  # the head timeout in these tests
LINE_S = 0.3  # a slow client's pause between header lines
PATIENCE_S = 60.0  # how long a test waits for the server to close (never reached if it works)

Address = tuple[str, int]


@pytest.fixture
def address(store: Store, monkeypatch: pytest.MonkeyPatch) -> Iterator[Address]:
    """The address of ``arena web`` over the store, with a head timeout of ``HEAD_S``."""
    monkeypatch.setattr(server, "HEAD_TIMEOUT_S", HEAD_S)
    uvicorn_server = web_server(create_app(store, organizer_token=ORGANIZER))
    # listening before the server starts: the first connection waits in the backlog
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    thread = threading.Thread(target=uvicorn_server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield sock.getsockname()
    finally:
        uvicorn_server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def response(conn: socket.socket) -> bytes:
    """One whole response to a request for /healthz (its body is ``ok``)."""
    data = b""
    while not data.endswith(b"\r\n\r\nok"):
        chunk = conn.recv(4096)
        assert chunk, data
        data += chunk
    return data


def dribble_until_closed(conn: socket.socket) -> tuple[bytes, float]:
    """Send a request head a header line every ``LINE_S``, never ending it, until the
    server closes the connection: what the server sent meanwhile, and when it closed
    (``time.monotonic()``)."""
    conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: arena\r\n")
    conn.settimeout(LINE_S)
    received = b""
    for line in range(int(PATIENCE_S / LINE_S)):
        try:
            chunk = conn.recv(4096)
        except TimeoutError:
            chunk = None  # still open: one more line
        except ConnectionResetError:
            chunk = b""
        if chunk == b"":
            return received, time.monotonic()
        if chunk:
            received += chunk
            continue
        try:
            conn.sendall(f"X-Line-{line}: slow\r\n".encode())
        except (BrokenPipeError, ConnectionResetError):
            return received, time.monotonic()
    pytest.fail(f"the server kept a head of {PATIENCE_S} s open")


def test_a_request_head_sent_a_line_at_a_time_is_cut_off(address: Address) -> None:
    start = time.monotonic()  # before the server's clock starts: when it accepts
    with socket.create_connection(address, timeout=PATIENCE_S) as conn:
        received, closed = dribble_until_closed(conn)
    assert received == b"" and closed - start >= HEAD_S


def test_after_a_response_the_next_head_is_timed_out_too(address: Address) -> None:
    with socket.create_connection(address, timeout=PATIENCE_S) as conn:
        start = time.monotonic()  # before the server's clock starts: when it has answered
        conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: arena\r\n\r\n")
        assert response(conn).startswith(b"HTTP/1.1 200 ")
        received, closed = dribble_until_closed(conn)
    assert received == b"" and closed - start >= HEAD_S


def test_whole_requests_are_served_on_one_connection_however_slow_the_answer(
    address: Address, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(guard, "FREE_FAILURES", 0)
    monkeypatch.setattr(guard, "FIRST_DELAY_S", 2 * HEAD_S)  # a refusal held past the timeout
    conn = http.client.HTTPConnection(*address, timeout=PATIENCE_S)
    try:
        conn.request("GET", "/healthz")
        first = conn.getresponse()
        assert (first.status, first.read()) == (200, b"ok")
        sock = conn.sock
        start = time.monotonic()
        conn.request("GET", "/api/bots?token=guess")
        held = conn.getresponse()
        assert held.status == 403 and b"not a token of this arena" in held.read()
        assert time.monotonic() - start >= 2 * HEAD_S
        conn.request("GET", "/api/bots")
        last = conn.getresponse()
        assert (last.status, last.read()) == (200, b'{"bots":[]}')
        assert conn.sock is sock  # the same connection throughout
    finally:
        conn.close()


def test_a_head_in_pieces_within_the_timeout_is_served(address: Address) -> None:
    with socket.create_connection(address, timeout=PATIENCE_S) as conn:
        for piece in (b"GET /hea", b"lthz HTTP/1.1\r\n", b"Host: arena\r\n", b"\r\n"):
            conn.sendall(piece)
        assert response(conn).startswith(b"HTTP/1.1 200 ")
