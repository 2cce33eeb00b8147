"""A small client of the live pages' server-sent events, on asyncio's streams: light
enough for a thousand at once (tests/bench/live.py), exact about what arrives when; and
the events a random match tells, as the referee would tell them."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import time
from collections.abc import Callable
from typing import Any

from arena.engine import Match, Rules
from arena.read.live import PublicLog


def random_match(
    rules: Rules, seats: list[str], seed: int, match_id: str
) -> tuple[Match, list[dict[str, Any]]]:
    """A match of random legal actions (seeded), and the events its PublicLog told, in
    order: one after every action, and one before the first."""
    rng = random.Random(seed)
    match = Match(rules, seats, seed=seed)
    log = PublicLog(match_id)
    events = log.told(match)
    while not match.is_over:
        match.apply(rng.choice(match.legal_actions()))
        events += log.told(match)
    return match, events


class Refused(Exception):
    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"{status}: {body}")
        self.status = status
        self.body = body


class Events:
    """One stream: ``await Events.open(port, path)``, then ``await next()`` for each event
    as ``(kind, data, arrived)``: its name, its JSON data, and time.time() when read."""

    decode: Callable[[str], Any] = staticmethod(json.loads)  # an event's data

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self._text = b""

    @classmethod
    async def open(
        cls, port: int, path: str, *, receive_buffer: int | None = None, source: str = "127.0.0.1"
    ) -> Events:
        """Refused (with the status) for anything but a 200. ``source``: the loopback
        address it comes from (any of 127.0.0.0/8), as another client's would."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind((source, 0))
        if receive_buffer is not None:  # before connecting: the window it offers
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
        reader, writer = await asyncio.open_connection(sock=sock)
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        events = cls(reader, writer)
        if status != 200:
            body = await events._rest(head)
            writer.close()
            raise Refused(status, body)
        return events

    async def _rest(self, head: bytes) -> str:
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return (await self.reader.readexactly(length)).decode() if length else ""

    async def next(self) -> tuple[str, Any, float]:
        """The next event (comments skipped); EOFError when the stream ends."""
        while True:
            end = self._text.find(b"\n\n")
            if end >= 0:
                block, self._text = self._text[:end], self._text[end + 2 :]
                kind, data = "message", None
                for line in block.decode().split("\n"):
                    if line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("data: "):
                        data = self.decode(line[6:])
                if data is not None:
                    return kind, data, time.time()
                continue
            self._text += await self._chunk()

    async def _chunk(self) -> bytes:
        """One chunk of the chunked body."""
        size_line = await self.reader.readline()
        if not size_line:
            raise EOFError("the stream was closed")
        size = int(size_line.strip() or b"0", 16)
        if size == 0:
            raise EOFError("the stream ended")
        data = await self.reader.readexactly(size + 2)
        return data[:-2]

    def close(self) -> None:
        self.writer.close()
