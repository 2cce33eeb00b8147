"""The formats of a bot's archive, read as a stream of entries: a tar (gzip-, bzip2- or
xz-compressed, or not) or a zip. :func:`entries` yields each regular file, folder and
link as an :class:`Entry`, a file's contents to be read before the next is asked for, and
refuses what no format reader may be trusted with: more of headers (what the archive says
of its files) than allowed, before they are read; devices, FIFOs and hard links; zip
methods that inflate whole. What a bot's folder may hold, and its identity, are
:mod:`arena.hosted.archive`'s."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import stat
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Protocol

from arena.engine import quoted
from arena.errors import Invalid

PATH_MAX = 4096  # the longest path or link target the kernel takes
SPECIAL = "a device, FIFO or other special file"
ONLY = "a bot's folder holds files, folders and links"
READING = (tarfile.TarError, EOFError, OSError, zlib.error, lzma.LZMAError, zipfile.BadZipFile)
"""What reading a damaged archive raises, whatever its format or compression."""


@dataclass(frozen=True, slots=True)
class Bounds:
    """What a format's reader refuses before it reads: headers past ``header_bytes``,
    more than ``files`` entries in a zip's directory, a file said to be larger than
    ``file_bytes``."""

    header_bytes: int
    files: int
    file_bytes: int


@dataclass(slots=True)
class Entry:
    """An entry as a format's reader found it, before it is checked; a file's contents
    are read before the next entry is asked for."""

    path: str
    kind: str
    executable: bool = False
    target: str = ""
    contents: IO[bytes] | None = None


class _Stream(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...
    def seek(self, offset: int, whence: int = 0, /) -> int: ...
    def tell(self) -> int: ...


class _Headers:
    """A tar's (decompressed) stream, counting what tarfile reads of it besides the
    files' contents: its headers, long names and pax headers included, which tarfile
    reads whole into memory. A read that would take them past ``room`` is refused before
    it is made."""

    def __init__(self, stream: _Stream, room: int) -> None:
        self.stream = stream
        self.limit = self.room = room
        self.contents = False  # a file's contents are being read: not counted here

    def read(self, size: int = -1, /) -> bytes:
        if not self.contents:
            if size < 0 or size > self.room:
                raise Invalid(f"archive: its headers are over the limit of {self.limit:,} bytes")
            data = self.stream.read(size)
            self.room -= len(data)
            return data
        return self.stream.read(size)

    def seek(self, pos: int, whence: int = 0, /) -> int:
        return self.stream.seek(pos, whence)

    def tell(self) -> int:
        return self.stream.tell()

    def write(self, data: bytes, /) -> int:
        raise io.UnsupportedOperation("read only")

    def close(self) -> None:
        """The stream is its owner's to close."""


COMPRESSED = {b"\x1f\x8b": "gz", b"BZh": "bz2", b"\xfd7zXZ\x00": "xz"}  # first bytes: format


def _decompressed(f: IO[bytes]) -> _Stream:
    """The tar inside ``f``, decompressed as it is read when it is compressed."""
    start = f.read(6)
    f.seek(0)
    kind = next((k for magic, k in COMPRESSED.items() if start.startswith(magic)), None)
    if kind == "gz":
        return gzip.GzipFile(fileobj=f, mode="rb")
    if kind == "bz2":
        return bz2.BZ2File(f)
    if kind == "xz":
        return lzma.LZMAFile(f)
    return f


def _tar_entries(f: IO[bytes], bounds: Bounds) -> Iterator[Entry]:
    headers = _Headers(_decompressed(f), bounds.header_bytes)
    try:
        archive = tarfile.TarFile(fileobj=headers, mode="r")
    except READING as e:
        raise Invalid(f"archive: not a tar, tar.gz or zip file ({e})") from None
    with archive:
        try:
            while (info := archive.next()) is not None:
                path = info.name
                if info.isdir():
                    yield Entry(path, "dir")
                elif info.issym():
                    yield Entry(path, "link", target=info.linkname)
                elif info.isreg():
                    if info.size > bounds.file_bytes:
                        raise Invalid(f"file {quoted(path)}: larger than the unpacked limit")
                    contents = archive.extractfile(info)
                    assert contents is not None  # a regular file has contents
                    headers.contents = True
                    yield Entry(path, "file", bool(info.mode & 0o111), contents=contents)
                    headers.contents = False
                else:
                    kind = "a hard link" if info.islnk() else SPECIAL
                    raise Invalid(f"{quoted(path)}: {kind}; {ONLY}")
        except READING as e:
            raise Invalid(f"archive: damaged ({e})") from None


_EOCD_SIZE, _EOCD_LOCATION, _EOCD_SIGNATURE = 5, 9, 0  # in zipfile's end record
_CENTRAL = struct.Struct("<4s24x3H12x")  # a central directory entry: its lengths, 46 bytes


def _zip_directory(f: IO[bytes], bounds: Bounds) -> None:
    """Refuses a zip whose central directory holds more bytes than the limit on headers
    or more entries than the limit on files, before zipfile reads it: zipfile reads it
    whole and makes an object of every entry (some 500 bytes from 46 of the archive),
    whatever the end record claims. The end record is found by zipfile's own reader, so
    that this looks at the very directory zipfile will read."""
    try:
        end = zipfile._EndRecData(f)  # type: ignore[attr-defined]  # zipfile's own, as old as it
    except READING:
        end = None
    if not end:
        return  # zipfile says what is wrong
    size = end[_EOCD_SIZE]
    if size > bounds.header_bytes:
        raise Invalid(
            f"archive: a zip directory of {size:,} bytes, over the limit of {bounds.header_bytes:,}"
        )
    zip64 = end[_EOCD_SIGNATURE] == b"PK\x06\x06"
    start = end[_EOCD_LOCATION] - size - (76 if zip64 else 0)  # as zipfile finds it
    if start < 0:
        return
    f.seek(start)
    count = read = 0
    while read < size:
        head = f.read(_CENTRAL.size)
        if len(head) < _CENTRAL.size or not head.startswith(b"PK\x01\x02"):
            return  # damaged: zipfile says so
        count += 1
        if count > bounds.files:
            raise Invalid(f"archive: more than {bounds.files:,} files, folders and links")
        _, name, extra, comment = _CENTRAL.unpack(head)
        f.seek(name + extra + comment, os.SEEK_CUR)
        read += _CENTRAL.size + name + extra + comment


def _zip_entries(f: IO[bytes], bounds: Bounds) -> Iterator[Entry]:
    _zip_directory(f, bounds)
    f.seek(0)
    try:
        archive = zipfile.ZipFile(f)
    except READING as e:
        raise Invalid(f"archive: damaged zip file ({e})") from None
    with archive:
        for info in archive.infolist():
            mode = info.external_attr >> 16
            path = info.filename
            kind = stat.S_IFMT(mode) if info.create_system == 3 and mode else 0
            if info.is_dir():
                yield Entry(path.rstrip("/"), "dir")
                continue
            if kind not in (0, stat.S_IFREG, stat.S_IFLNK):
                raise Invalid(f"{quoted(path)}: {SPECIAL}; {ONLY}")
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                # zipfile inflates bzip2 and lzma whole, however much comes of a few bytes
                raise Invalid(
                    f"file {quoted(path)}: compressed with method {info.compress_type}; "
                    "only stored or deflated files are read (what zip tools write)"
                )
            try:
                contents = archive.open(info)
            except (*READING, NotImplementedError, RuntimeError) as e:  # RuntimeError: encrypted
                raise Invalid(f"file {quoted(path)}: cannot be read ({e})") from None
            with contents:
                if kind == stat.S_IFLNK:
                    target = read_contents(contents, path, PATH_MAX + 1)
                    yield Entry(path, "link", target=target.decode(errors="replace"))
                else:
                    yield Entry(path, "file", bool(mode & 0o111), contents=contents)


def read_contents(contents: IO[bytes], path: str, size: int) -> bytes:
    """Up to ``size`` bytes of a member's contents; damage said as the member's."""
    try:
        return contents.read(size)
    except (*READING, NotImplementedError) as e:
        raise Invalid(f"file {quoted(path)}: cannot be read ({e})") from None


def entries(f: IO[bytes], bounds: Bounds) -> Iterator[Entry]:
    """The archive's entries, by its format: a zip by its first bytes, else a tar."""
    is_zip = f.read(4) == b"PK\x03\x04"
    f.seek(0)
    return _zip_entries(f, bounds) if is_zip else _tar_entries(f, bounds)
