"""HTTP/2 as the hosted bots' relay reads and writes it (RFC 9113): frame headers, the
few frames it writes itself, and header blocks decoded with HPACK (RFC 7541, the
``hpack`` library) and encoded again without the dynamic table.

The relay (:mod:`arena.hosted.relay`, its checks in :mod:`arena.hosted.gate`) must read
a call's method and metadata, which a client compresses with HPACK: Huffman coding and a
dynamic table that lives as long as the connection. It decodes every block the bot
sends, and what it forwards it encodes again with static-table references and literals
that are never indexed, so that the referee's decoder keeps an empty dynamic table and
sees exactly what was checked, and a block the relay keeps back leaves nothing out of
step. What it writes to the bot (a refusal) touches the bot's dynamic table no more.
"""

from __future__ import annotations

import struct

from hpack import Decoder, Encoder, HPACKError, NeverIndexedHeaderTuple

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"  # a client's first bytes
HEAD = struct.Struct(">BHBBI")  # a frame's 9 bytes: length (24 bits), type, flags, stream
HEAD_BYTES = HEAD.size

# frame types
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE = 0, 1, 2, 3, 4, 5
PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = 6, 7, 8, 9
# flags
END_STREAM = ACK = 0x1
END_HEADERS = 0x4
PADDED = 0x8
PRIORITY_FLAG = 0x20
# settings, error codes, limits of the protocol
SETTINGS_HEADER_TABLE_SIZE = 0x1
SETTINGS_MAX_FRAME_SIZE = 0x5
REFUSED_STREAM = 0x7
DEFAULT_MAX_FRAME_BYTES = 16_384
LARGEST_MAX_FRAME_BYTES = (1 << 24) - 1
LARGEST_WINDOW_INCREMENT = (1 << 31) - 1
STREAM_MASK = (1 << 31) - 1
PERMISSION_DENIED = 7  # the gRPC status code
MESSAGE_CHARS = 300  # a refusal's grpc-message is cut to this

Header = tuple[bytes, bytes]


class Malformed(Exception):
    """What the bot sent is not HTTP/2 the relay will carry: its connection ends."""


def head(data: bytes, at: int = 0) -> tuple[int, int, int, int]:
    """The (length, type, flags, stream) of the frame whose header starts at ``at``."""
    high, low, kind, flags, stream = HEAD.unpack_from(data, at)
    return high << 16 | low, kind, flags, stream & STREAM_MASK


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    length = len(payload)
    return HEAD.pack(length >> 16, length & 0xFFFF, kind, flags, stream) + payload


def window_update(stream: int, increment: int) -> bytes:
    """WINDOW_UPDATE frames adding ``increment`` (> 0) to a window, as many as it takes."""
    frames = []
    while increment > 0:
        step = min(increment, LARGEST_WINDOW_INCREMENT)
        frames.append(frame(WINDOW_UPDATE, 0, stream, step.to_bytes(4, "big")))
        increment -= step
    return b"".join(frames)


def rst_stream(stream: int, code: int) -> bytes:
    return frame(RST_STREAM, 0, stream, code.to_bytes(4, "big"))


def settings(payload: bytes) -> dict[int, int]:
    """A SETTINGS frame's values by identifier (a malformed tail is left out)."""
    return {
        ident: value for ident, value in struct.iter_unpack(">HI", payload[: len(payload) // 6 * 6])
    }


def fragment(kind: int, flags: int, payload: bytes) -> bytes:
    """The header block fragment of a HEADERS (or CONTINUATION) frame's payload, without
    its padding and priority fields."""
    start, end = 0, len(payload)
    if kind == HEADERS and flags & PADDED:
        if not payload or payload[0] >= end:
            raise Malformed("a HEADERS frame padded past its end")
        start, end = 1, end - payload[0]
    if kind == HEADERS and flags & PRIORITY_FLAG:
        start += 5
        if start > end:
            raise Malformed("a HEADERS frame too short for its priority")
    return payload[start:end]


def data_of(flags: int, payload: bytes) -> bytes:
    """A DATA frame's data, without its padding."""
    if not flags & PADDED:
        return payload
    if not payload or payload[0] >= len(payload):
        raise Malformed("a DATA frame padded past its end")
    return payload[1 : len(payload) - payload[0]]


class HeaderCodec:
    """The bot's header blocks, one connection's: decoded with the dynamic table the bot's
    encoder builds, encoded again for the referee with none. ``limit`` bounds a block's
    decoded size too (a one-byte reference may stand for a 4 KiB field)."""

    def __init__(self, limit: int, table_limit: int) -> None:
        self._decoder = Decoder(max_header_list_size=limit)
        self._encoder = Encoder()  # never-indexed fields only: its table stays empty
        self._table_limit = table_limit
        self.table_size(4096)  # the protocol's default until the referee says otherwise

    def table_size(self, size: int) -> None:
        """The referee allows the bot's encoder ``size`` bytes of dynamic table (its
        SETTINGS_HEADER_TABLE_SIZE): the relay decodes as the referee would."""
        self._decoder.max_allowed_table_size = min(size, self._table_limit)

    def decode(self, block: bytes) -> list[Header]:
        try:
            return [(bytes(n), bytes(v)) for n, v in self._decoder.decode(block, raw=True)]
        except HPACKError as e:
            raise Malformed(f"a header block that does not decode: {e}") from None
        except (IndexError, ValueError) as e:  # what hpack lets through on a truncated block
            raise Malformed(f"a header block that does not decode: {e!r}") from None

    def encode(self, headers: list[Header], stream: int, end_stream: bool, max_frame: int) -> bytes:
        """HEADERS (and CONTINUATION frames, each within ``max_frame``) carrying
        ``headers`` on ``stream``."""
        block = self._encoder.encode([NeverIndexedHeaderTuple(n, v) for n, v in headers])
        return header_frames(block, stream, end_stream, max_frame)


def header_frames(block: bytes, stream: int, end_stream: bool, max_frame: int) -> bytes:
    pieces = [block[i : i + max_frame] for i in range(0, len(block), max_frame)] or [b""]
    frames = []
    for k, piece in enumerate(pieces):
        flags = END_HEADERS if k == len(pieces) - 1 else 0
        if k == 0:
            flags |= END_STREAM if end_stream else 0
        frames.append(frame(HEADERS if k == 0 else CONTINUATION, flags, stream, piece))
    return b"".join(frames)


def _integer(value: int) -> bytes:
    """An HPACK integer with a 7-bit prefix (RFC 7541 5.1), the prefix's other bit 0."""
    if value < 0x7F:
        return bytes((value,))
    out, value = [0x7F], value - 0x7F
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes((*out, value))


def _literal(name: bytes, value: bytes) -> bytes:
    """A field as a literal without indexing, new name, no Huffman (RFC 7541 6.2.2)."""
    return b"\x00" + _integer(len(name)) + name + _integer(len(value)) + value


def percent_encoded(text: str) -> bytes:
    """gRPC's encoding of grpc-message: printable ASCII but ``%`` as it is, the rest
    percent-encoded as UTF-8 bytes."""
    return b"".join(
        bytes((b,)) if 0x20 <= b <= 0x7E and b != 0x25 else b"%%%02X" % b for b in text.encode()
    )


def refusal(stream: int, why: str) -> bytes:
    """A gRPC trailers-only response ending ``stream``: status 200, content-type
    application/grpc, grpc-status PERMISSION_DENIED and ``why`` (cut at MESSAGE_CHARS). It uses
    static-table references and literals without indexing only: the bot's decoder's
    dynamic table stays as the referee's encoder left it."""
    message = percent_encoded(why[:MESSAGE_CHARS])
    block = (
        b"\x88"  # :status 200, static index 8
        + b"\x0f\x10"  # content-type, static name index 31, then its literal value
        + _integer(len(b"application/grpc"))
        + b"application/grpc"
        + _literal(b"grpc-status", str(PERMISSION_DENIED).encode())
        + _literal(b"grpc-message", message)
    )
    return frame(HEADERS, END_STREAM | END_HEADERS, stream, block)
