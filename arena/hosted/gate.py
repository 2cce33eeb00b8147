"""What the relay lets through of one connection from a hosted bot's sandbox: its Play
with its own match token, and nothing else (docs/sandbox.md, "The relay").

A :class:`Gate` sits between the bot's bytes and the referee's, on one connection, and
does no I/O: :meth:`Gate.from_bot` takes what the bot sent and returns what goes to the
referee and what goes back to the bot; :meth:`Gate.from_referee` returns what goes on
to the bot. Every header block the bot sends is decoded (:mod:`arena.hosted.h2frames`);
a new stream whose ``:path`` is not the Play method, or whose ``authorization`` is not
the process's own token, is refused at once: its headers never reach the referee, the
bot gets a trailers-only PERMISSION_DENIED, its later frames are dropped (the bytes of
its DATA given back to the connection's window). A Play stream is held, its headers
and DATA kept back, until its first message is whole: a hello with the own token lets
it through unchanged from then on, anything else refuses it.

What the relay writes to the bot goes in between the referee's frames (never inside a
frame, nor between a HEADERS and its CONTINUATIONs). Malformed HTTP/2 from the bot
raises :class:`~arena.hosted.h2frames.Malformed`: the relay ends that connection.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from arena.hosted import h2frames as h2
from arena.hosted.calls import FIRST_MESSAGE_BYTES, ONLY, first_message, headers_refusal
from arena.hosted.h2frames import Header, Malformed

log = logging.getLogger(__name__)

MAX_STREAMS = 4  # streams held or passed at once on a connection; beyond: REFUSED_STREAM
HEADER_BLOCK_BYTES = 16 * 1024  # a header block as sent, and as decoded
HELD_BYTES = FIRST_MESSAGE_BYTES + 16 * 1024  # all a held stream's frames, with their padding
CONTROL_FRAME_BYTES = 16 * 1024  # any other frame but DATA, which streams through
TABLE_BYTES = 64 * 1024  # the most dynamic table the relay decodes with
WAITING_BYTES = 64 * 1024  # the relay's own frames waiting for a gap in the referee's


@dataclass
class _Held:
    """A Play stream kept back until its first message is whole and checked."""

    headers: list[Header]
    bearer: bool  # it carried authorization (its own token: checked)
    frames: list[bytes] = field(default_factory=list)  # its DATA frames, raw
    window: int = 0  # what its WINDOW_UPDATE frames added to the referee's
    message: bytearray = field(default_factory=bytearray)
    data_bytes: int = 0  # of its DATA frames' payloads: the window they took
    size: int = 0
    ready: bool = False
    ended: bool = False


class Gate:
    """One connection's checks, for the process whose match token is ``token``."""

    def __init__(self, token: str, peer: str = "a sandbox") -> None:
        self.token = token
        self.peer = peer
        self.refused = 0  # streams refused so far
        self._bearer = b"Bearer " + token.encode()
        self._codec = h2.HeaderCodec(HEADER_BLOCK_BYTES, TABLE_BYTES)
        self._max_frame = h2.DEFAULT_MAX_FRAME_BYTES  # the referee's, from its SETTINGS
        self._preface = True
        self._inbox = b""  # the bot's bytes not yet taken: at most one frame's
        self._rest = 0  # bytes of a DATA payload still to stream through...
        self._rest_passes = False  # ...to the referee (else dropped)
        self._block: tuple[int, int, list[bytes]] | None = None  # stream, flags, fragments
        self._quiet = False  # nothing begun, held or waiting: a read may be one frame
        self._last = 0  # the highest stream the bot opened
        self._held: dict[int, _Held] = {}  # in the order of their ids
        self._passed: dict[int, list[bool]] = {}  # stream: [the bot ended, the referee ended]
        self._given = 0  # dropped DATA bytes, to give back to the bot's connection window
        self._up: list[bytes] = []
        self._down: list[bytes] = []  # to the bot as soon as the referee's side allows
        self._down_bytes = 0
        # the referee's side: where its frames begin and end
        self._down_head = b""  # a frame header begun
        self._down_rest = 0  # payload bytes of the current frame still to come
        self._down_keep: bytearray | None = None  # a SETTINGS payload, read as it passes
        self._down_block = False  # between a HEADERS and its last CONTINUATION
        self._down_open = False  # its first frame has begun

    # ---- the bot's side ----

    def from_bot(self, data: bytes) -> tuple[bytes, bytes]:
        """What goes to the referee and what goes back to the bot, for ``data``."""
        if self._quiet and len(data) >= h2.HEAD_BYTES:  # one DATA frame of a passed stream:
            length, kind, flags, stream = h2.head(data)  # what most reads are
            whole = len(data) == h2.HEAD_BYTES + length and length <= self._max_frame
            if kind == h2.DATA and whole and stream in self._passed:
                if flags & h2.END_STREAM:
                    self._ended(stream, 0)
                return data, b""
        up, down = self._from_bot(data)
        self._quiet = not (
            self._preface or self._inbox or self._rest or self._held or self._down or self._block
        )
        return up, down

    def _from_bot(self, data: bytes) -> tuple[bytes, bytes]:
        buf = self._inbox + data if self._inbox else data
        end, at = len(buf), 0
        if self._rest:
            at = min(self._rest, end)
            self._stream_through(buf, 0, at)
        if self._preface:
            if buf[at : at + len(h2.PREFACE)] != h2.PREFACE[: end - at]:
                raise Malformed("no HTTP/2 client preface")
            if end - at < len(h2.PREFACE):
                self._inbox = buf[at:]
                return b"", b""
            self._up.append(h2.PREFACE)
            at += len(h2.PREFACE)
            self._preface = False
        while end - at >= h2.HEAD_BYTES:
            length, kind, flags, stream = h2.head(buf, at)
            if length > self._max_frame:
                raise Malformed(f"a frame of {length} bytes, over the limit of {self._max_frame}")
            if self._block is not None and (kind != h2.CONTINUATION or stream != self._block[0]):
                raise Malformed("a frame inside a header block")
            if kind == h2.DATA and self._streams_through(flags, stream, length):
                taken = min(length, end - at - h2.HEAD_BYTES)
                if self._rest_passes:
                    self._up.append(buf[at : at + h2.HEAD_BYTES + taken])
                else:
                    self._given += taken
                self._rest = length - taken
                at += h2.HEAD_BYTES + taken
                continue
            if kind != h2.DATA and length > CONTROL_FRAME_BYTES:
                raise Malformed(f"a frame of type {kind} of {length} bytes")
            if end - at - h2.HEAD_BYTES < length:
                break
            payload = buf[at + h2.HEAD_BYTES : at + h2.HEAD_BYTES + length]
            self._frame(kind, flags, stream, payload, buf[at : at + h2.HEAD_BYTES + length])
            at += h2.HEAD_BYTES + length
        self._inbox = buf[at:]
        self._release()
        if self._given:
            self._inject(h2.window_update(0, self._given))
            self._given = 0
        up = b"".join(self._up)
        self._up.clear()
        return up, self.pending()

    def _stream_through(self, buf: bytes, start: int, stop: int) -> None:
        """Part of a DATA payload: on to the referee, or dropped and its window given
        back."""
        if self._rest_passes:
            self._up.append(buf[start:stop])
        else:
            self._given += stop - start
        self._rest -= stop - start

    def _streams_through(self, flags: int, stream: int, length: int) -> bool:
        """Whether a DATA frame's payload goes through as it comes (a passed stream's, or
        a dropped one's) rather than whole into a held stream. Ends what DATA ends."""
        if stream == 0 or stream > self._last:
            raise Malformed(f"DATA on stream {stream}, not open")
        held = self._held.get(stream)
        if held is not None and held.size + length + h2.HEAD_BYTES > HELD_BYTES:
            self._refuse(stream, f"a Play sent over {HELD_BYTES} bytes before its first message")
            held = None
        if held is not None:
            return False
        self._rest_passes = stream in self._passed
        if self._rest_passes and flags & h2.END_STREAM:
            self._ended(stream, 0)
        return True

    def _frame(self, kind: int, flags: int, stream: int, payload: bytes, raw: bytes) -> None:
        """A whole frame from the bot, other than a DATA that streams through."""
        if kind == h2.DATA:
            self._held_data(stream, flags, payload, raw)
        elif kind in (h2.HEADERS, h2.CONTINUATION):
            self._fragment(kind, flags, stream, payload)
        elif kind in (h2.SETTINGS, h2.PING, h2.GOAWAY):
            if stream != 0:
                raise Malformed(f"a frame of type {kind} on stream {stream}")
            self._up.append(raw)
        elif kind in (h2.RST_STREAM, h2.WINDOW_UPDATE):
            if (kind == h2.RST_STREAM and stream == 0) or stream > self._last:
                raise Malformed(f"a frame of type {kind} on stream {stream}, not open")
            held = self._held.get(stream)
            if stream == 0 or stream in self._passed:
                self._up.append(raw)
                if kind == h2.RST_STREAM:
                    del self._passed[stream]
            elif held is not None and kind == h2.RST_STREAM:  # given up: nothing reached
                self._given += self._held.pop(stream).data_bytes  # the referee
            elif held is not None and len(payload) == 4:  # sent on once the stream is
                held.window += int.from_bytes(payload, "big") & h2.STREAM_MASK
        elif kind == h2.PUSH_PROMISE:
            raise Malformed("a PUSH_PROMISE from a client")
        # PRIORITY (which gRPC ignores) and frames of unknown types are dropped

    def _fragment(self, kind: int, flags: int, stream: int, payload: bytes) -> None:
        if kind == h2.CONTINUATION and self._block is None:
            raise Malformed("a CONTINUATION out of place")
        piece = h2.fragment(kind, flags, payload)
        if self._block is None:
            self._block = (stream, flags, [])
        fragments = self._block[2]
        fragments.append(piece)
        if sum(map(len, fragments)) > HEADER_BLOCK_BYTES:
            raise Malformed(f"a header block over {HEADER_BLOCK_BYTES} bytes")
        if flags & h2.END_HEADERS:
            stream, first_flags, _ = self._block
            self._block = None
            self._headers(stream, first_flags, self._codec.decode(b"".join(fragments)))

    def _headers(self, stream: int, flags: int, headers: list[Header]) -> None:
        """A whole header block from the bot, decoded."""
        if stream == 0:
            raise Malformed("HEADERS on stream 0")
        if stream <= self._last:  # trailers: passed on, or dropped with their stream
            if stream in self._passed:
                ends = bool(flags & h2.END_STREAM)
                self._up.append(self._codec.encode(headers, stream, ends, self._max_frame))
                if ends:
                    self._ended(stream, 0)
            elif stream in self._held:
                self._refuse(stream, "headers again before its first message")
            return
        if stream % 2 == 0:
            raise Malformed(f"a client opened stream {stream}, an even one")
        self._last = stream
        why = headers_refusal(headers, self._bearer)
        if why is not None:
            self._refuse(stream, why)
        elif len(self._held) + len(self._passed) >= MAX_STREAMS:
            self._inject(h2.rst_stream(stream, h2.REFUSED_STREAM))
        elif flags & h2.END_STREAM:
            self._refuse(stream, "a Play ended before its hello")
        else:
            bearer = any(name.lower() == b"authorization" for name, _ in headers)
            self._held[stream] = _Held(headers, bearer)

    def _held_data(self, stream: int, flags: int, payload: bytes, raw: bytes) -> None:
        held = self._held[stream]
        held.frames.append(raw)
        held.size += len(raw)
        held.data_bytes += len(payload)
        if not held.ready:
            held.message += h2.data_of(flags, payload)
        if flags & h2.END_STREAM:
            held.ended = True
        self._check(stream, held)

    def _check(self, stream: int, held: _Held) -> None:
        """A held stream whose first message may be whole: let through once the rest of
        the held before it are (:meth:`_release`), or refused."""
        why = None
        if not held.ready:
            whole, why = first_message(bytes(held.message), self.token, held.bearer)
            held.ready = whole and why is None
        if why is None and held.ended and not held.ready:
            why = "a Play ended before its hello"
        if why is not None:
            self._refuse(stream, why)

    def _release(self) -> None:
        """Held streams whose first message passed, in the order of their ids (the
        referee must see streams open in that order), up to the first still held."""
        while self._held:
            stream, held = next(iter(self._held.items()))
            if not held.ready:
                return
            del self._held[stream]
            self._up.append(self._codec.encode(held.headers, stream, False, self._max_frame))
            self._up.extend(held.frames)
            if held.window:
                self._up.append(h2.window_update(stream, held.window))
            self._passed[stream] = [held.ended, False]

    def _refuse(self, stream: int, why: str) -> None:
        held = self._held.pop(stream, None)
        if held is not None:
            self._given += held.data_bytes
        self.refused += 1
        level = logging.INFO if self.refused == 1 else logging.DEBUG
        log.log(level, "relay: refused a call from %s: %s", self.peer, why)
        self._inject(h2.refusal(stream, f"{ONLY}: {why}"))

    def _ended(self, stream: int, side: int) -> None:
        """``side`` (0 the bot, 1 the referee) ended a passed stream; gone once both did."""
        ends = self._passed.get(stream)
        if ends is not None:
            ends[side] = True
            if all(ends):
                del self._passed[stream]

    def _inject(self, frames: bytes) -> None:
        """Frames of the relay's own for the bot, once the referee's side is between
        frames (and past its first, the SETTINGS that must come first)."""
        self._down.append(frames)
        self._down_bytes += len(frames)
        if self._down_bytes > WAITING_BYTES:
            raise Malformed(f"over {WAITING_BYTES} bytes of refusals waiting for the bot")

    # ---- the referee's side ----

    def from_referee(self, data: bytes) -> bytes:
        """What goes to the bot for ``data`` from the referee: the same bytes, with what
        the relay has for the bot between two of its frames."""
        idle = self._down_open and not (self._down_rest or self._down_head or self._down)
        if idle and len(data) >= h2.HEAD_BYTES:  # one DATA frame, as most reads are
            length, kind, flags, stream = h2.head(data)
            if kind == h2.DATA and len(data) == h2.HEAD_BYTES + length:
                if flags & h2.END_STREAM:
                    self._ended(stream, 1)
                return data
        out: list[bytes] = []
        end, at, start = len(data), 0, 0
        while True:
            if self._down_rest:
                taken = min(self._down_rest, end - at)
                if self._down_keep is not None:
                    self._down_keep += data[at : at + taken]
                at += taken
                self._down_rest -= taken
                if self._down_rest:
                    break
            if self._down_keep is not None:
                self._settings(bytes(self._down_keep))
                self._down_keep = None
            if self._down and self._down_open and not self._down_block:
                out += (data[start:at], *self._down)
                self._down.clear()
                self._down_bytes = 0
                start = at
            if at >= end:
                break
            need = h2.HEAD_BYTES - len(self._down_head)
            if end - at < need:
                self._down_head += data[at:]
                break
            header = self._down_head + data[at : at + need]
            self._down_head = b""
            at += need
            self._down_rest, kind, flags, stream = h2.head(header)
            self._referee_frame(kind, flags, stream)
        if not out:
            return data
        out.append(data[start:])
        return b"".join(out)

    def pending(self) -> bytes:
        """What the relay has for the bot now, if the referee's side is between frames
        (else it waits for :meth:`from_referee`)."""
        if self._down_block or self._down_head or self._down_rest or not self._down_open:
            return b""
        down = b"".join(self._down)
        self._down.clear()
        self._down_bytes = 0
        return down

    def _referee_frame(self, kind: int, flags: int, stream: int) -> None:
        self._down_open = True  # by the next boundary its SETTINGS has gone through
        if kind in (h2.HEADERS, h2.PUSH_PROMISE, h2.CONTINUATION):
            self._down_block = not flags & h2.END_HEADERS
        if kind in (h2.HEADERS, h2.DATA) and flags & h2.END_STREAM:
            self._ended(stream, 1)
        elif kind == h2.RST_STREAM:
            self._passed.pop(stream, None)
        elif kind == h2.SETTINGS and not flags & h2.ACK:
            self._down_keep = bytearray()

    def _settings(self, payload: bytes) -> None:
        values = h2.settings(payload)
        size = values.get(h2.SETTINGS_MAX_FRAME_SIZE)
        if size is not None and h2.DEFAULT_MAX_FRAME_BYTES <= size <= h2.LARGEST_MAX_FRAME_BYTES:
            self._max_frame = size
        table = values.get(h2.SETTINGS_HEADER_TABLE_SIZE)
        if table is not None:
            self._codec.table_size(table)
