"""A submitted bot's archive: read, checked and unpacked by one walk over its members,
streamed.

An archive is a tar (gzip-, bzip2- or xz-compressed, or not) or a zip of the bot's folder,
given as a path, a binary file or bytes. Whatever the format, :func:`members` yields its
regular files, folders and symbolic links as :class:`Member` values, checking each as it
comes, and raises :class:`Invalid` at the first thing a bot's folder may not hold:

- more bytes than the limits allow, compressed or unpacked (the unpacked bytes are counted
  as they are read, never taken from the archive's own headers: a zip bomb is stopped at
  the limit, not believed), or more of headers (what the archive says of its files) than
  allowed, refused before they are read;
- more files than allowed;
- a path that leaves the folder (absolute, ``..``) or goes through a link or a file;
- a link whose target leaves the folder, read as text or followed as the kernel follows
  it on the whole tree (:mod:`arena.hosted.tree`; checked once every member is read);
- a device, a FIFO, a hard link or anything but a file, a folder or a link.

A file's contents are read :data:`CHUNK` bytes at a time, each hashed (and, unpacking,
written) before the next is read: what a walk holds is a chunk and each member's metadata
(bounded by the limits on files and headers), never a file, whatever the archive unpacks
to.

The same walk computes a version's identity (:func:`check`: a hash of the files, their
executable bits and the manifest, so that packing the same folder twice, with new time
stamps, is one version) and writes the folder out for a sandbox (:func:`unpack`), so what
was checked is what runs.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import hashlib
import io
import lzma
import os
import posixpath
import stat
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

from arena.domain.versions import Checked, Manifest
from arena.engine import quoted
from arena.errors import Invalid
from arena.hosted.tree import Tree

MiB = 1024 * 1024
CHUNK = 64 * 1024  # bytes of a file read (hashed, written) at a time
PATH_MAX = 4096  # the longest path or link target the kernel takes
SPECIAL = "a device, FIFO or other special file"
ONLY = "a bot's folder holds files, folders and links"
EMPTY = hashlib.sha256(b"").digest()  # the contents of a folder or an empty file, hashed
READING = (tarfile.TarError, EOFError, OSError, zlib.error, lzma.LZMAError, zipfile.BadZipFile)
"""What reading a damaged archive raises, whatever its format or compression."""

Source = bytes | Path | IO[bytes]
"""An archive: its bytes, its file's path, or a binary file open on it (read from its
start; seekable)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """How large a bot's folder may be."""

    archive_bytes: int = 32 * MiB  # as sent, compressed
    unpacked_bytes: int = 128 * MiB  # the files' contents, summed
    files: int = 5_000  # files, folders and links
    header_bytes: int = 8 * MiB  # tar headers (long names included), a zip's central directory


@dataclass(frozen=True, slots=True)
class Member:
    """One entry of a bot's folder: ``kind`` is ``file``, ``dir`` or ``link``; a file's
    ``size`` and the sha256 ``digest`` of its contents (of nothing, for the others), a
    link's ``target``."""

    path: str
    kind: str
    executable: bool = False
    size: int = 0
    digest: bytes = EMPTY
    target: str = ""


@dataclass(slots=True)
class _Entry:
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


def _inside(path: str, what: str) -> str:
    """``path`` made relative and normal, refused if it leaves the folder."""
    if path.startswith("/") or "\\" in path:
        raise Invalid(f"{what} {quoted(path)}: an absolute path leaves the bot's folder")
    normal = posixpath.normpath(path)
    if normal == ".." or normal.startswith("../"):
        raise Invalid(f"{what} {quoted(path)}: leaves the bot's folder")
    return normal


def _text(value: str, what: str) -> str:
    """``value`` (a path or a link's target) refused if it is not UTF-8 or is longer
    than the kernel takes."""
    try:
        size = len(value.encode())
    except UnicodeEncodeError:
        raise Invalid(f"{what} {quoted(value)}: not UTF-8") from None
    if size > PATH_MAX:
        raise Invalid(f"{what} {quoted(value)}: longer than {PATH_MAX:,} bytes")
    return value


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


def _tar_entries(f: IO[bytes], limits: Limits) -> Iterator[_Entry]:
    headers = _Headers(_decompressed(f), limits.header_bytes)
    try:
        archive = tarfile.TarFile(fileobj=headers, mode="r")
    except READING as e:
        raise Invalid(f"archive: not a tar, tar.gz or zip file ({e})") from None
    with archive:
        try:
            while (info := archive.next()) is not None:
                path = info.name
                if info.isdir():
                    yield _Entry(path, "dir")
                elif info.issym():
                    yield _Entry(path, "link", target=info.linkname)
                elif info.isreg():
                    if info.size > limits.unpacked_bytes:
                        raise Invalid(f"file {quoted(path)}: larger than the unpacked limit")
                    contents = archive.extractfile(info)
                    assert contents is not None  # a regular file has contents
                    headers.contents = True
                    yield _Entry(path, "file", bool(info.mode & 0o111), contents=contents)
                    headers.contents = False
                else:
                    kind = "a hard link" if info.islnk() else SPECIAL
                    raise Invalid(f"{quoted(path)}: {kind}; {ONLY}")
        except READING as e:
            raise Invalid(f"archive: damaged ({e})") from None


_EOCD_SIZE, _EOCD_LOCATION, _EOCD_SIGNATURE = 5, 9, 0  # in zipfile's end record
_CENTRAL = struct.Struct("<4s24x3H12x")  # a central directory entry: its lengths, 46 bytes


def _zip_directory(f: IO[bytes], limits: Limits) -> None:
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
    if size > limits.header_bytes:
        raise Invalid(
            f"archive: a zip directory of {size:,} bytes, over the limit of {limits.header_bytes:,}"
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
        if count > limits.files:
            raise Invalid(f"archive: more than {limits.files:,} files, folders and links")
        _, name, extra, comment = _CENTRAL.unpack(head)
        f.seek(name + extra + comment, os.SEEK_CUR)
        read += _CENTRAL.size + name + extra + comment


def _zip_entries(f: IO[bytes], limits: Limits) -> Iterator[_Entry]:
    _zip_directory(f, limits)
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
                yield _Entry(path.rstrip("/"), "dir")
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
                    target = _read(contents, path, PATH_MAX + 1)
                    yield _Entry(path, "link", target=target.decode(errors="replace"))
                else:
                    yield _Entry(path, "file", bool(mode & 0o111), contents=contents)


def _read(contents: IO[bytes], path: str, size: int) -> bytes:
    """Up to ``size`` bytes of a member's contents; damage said as the member's."""
    try:
        return contents.read(size)
    except (*READING, NotImplementedError) as e:
        raise Invalid(f"file {quoted(path)}: cannot be read ({e})") from None


def _size(f: IO[bytes]) -> int:
    size = f.seek(0, os.SEEK_END)
    f.seek(0)
    return size


def _walk(f: IO[bytes], limits: Limits, tree: Tree, into: Path | None) -> Iterator[Member]:
    """The archive's members, checked, each file's contents hashed (and written under
    ``into``, when given) as they are read; its links checked on the whole tree after the
    last."""
    size = _size(f)
    if size > limits.archive_bytes:
        raise Invalid(f"archive: {size:,} bytes, over the limit of {limits.archive_bytes:,}")
    is_zip = f.read(4) == b"PK\x03\x04"
    f.seek(0)
    entries = _zip_entries(f, limits) if is_zip else _tar_entries(f, limits)
    unpacked = files = 0
    for e in entries:
        path = _inside(_text(e.path, "path"), "path")
        if path == ".":
            continue
        files += 1
        if files > limits.files:
            raise Invalid(f"archive: more than {limits.files:,} files, folders and links")
        if e.kind == "link":
            _text(e.target, f"link {quoted(path)} to")
            if e.target.startswith("/"):
                raise Invalid(f"link {quoted(path)}: points at an absolute path")
            _inside(posixpath.join(posixpath.dirname(path), e.target), f"link {quoted(path)} to")
        tree.add(path, e.kind, e.target)
        digest, read = EMPTY, 0
        out = into / path if into is not None else None
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
            if e.kind == "dir":
                out.mkdir(exist_ok=True, mode=0o755)
        if e.contents is not None:
            room = limits.unpacked_bytes - unpacked
            digest, read = _consume(e.contents, path, room, limits, out)
            if out is not None:
                out.chmod(0o755 if e.executable else 0o644)
            unpacked += read
        yield Member(path, e.kind, e.executable, read, digest, e.target)
    tree.check_links()


def _consume(
    contents: IO[bytes], path: str, room: int, limits: Limits, out: Path | None
) -> tuple[bytes, int]:
    """A file's contents read a chunk at a time: their sha256 and size, refused once they
    pass ``room`` bytes; written to ``out`` (a new file) when given."""
    digest = hashlib.sha256()
    size = 0
    with out.open("xb") if out is not None else contextlib.nullcontext() as sink:
        while chunk := _read(contents, path, CHUNK):
            size += len(chunk)
            if size > room:
                raise Invalid(f"archive: over {limits.unpacked_bytes:,} bytes once unpacked")
            digest.update(chunk)
            if sink is not None:
                sink.write(chunk)
    return digest.digest(), size


@contextlib.contextmanager
def _opened(source: Source) -> Iterator[IO[bytes]]:
    if isinstance(source, bytes):
        yield io.BytesIO(source)
    elif isinstance(source, Path):
        with source.open("rb") as f:
            yield f
    else:
        source.seek(0)
        yield source


def members(source: Source, limits: Limits = Limits()) -> Iterator[Member]:
    """The archive's entries, each checked against the limits and the folder's bounds
    (:class:`Invalid` at the first that fails, its links' lookups once the last is read);
    paths relative and normal."""
    with _opened(source) as f:
        yield from _walk(f, limits, Tree(), None)


def check(source: Source, manifest: Manifest, limits: Limits = Limits()) -> Checked:
    """The archive checked whole: its identity and size. :class:`Invalid` says what is
    wrong, the entry point missing included."""
    tree = Tree()
    with _opened(source) as f:
        found = {m.path: m for m in _walk(f, limits, tree, None)}
        size = _size(f)
        archive = hashlib.sha256()
        while chunk := f.read(CHUNK):
            archive.update(chunk)
    digest = hashlib.sha256(f"{manifest.runtime}\0{manifest.entry}\0".encode())
    for path in sorted(found):
        m = found[path]
        content = m.target.encode() if m.kind == "link" else m.digest
        digest.update(f"{m.kind}\0{m.path}\0{int(m.executable)}\0".encode() + content)
    entry = found.get(tree.find(manifest.program) or "")
    if entry is None or entry.kind != "file":
        raise Invalid(f"entry: no file {quoted(manifest.program)} in the archive")
    if manifest.runtime == "exec" and not entry.executable:
        raise Invalid(f"entry: {quoted(manifest.program)} is not executable (chmod +x it)")
    unpacked = sum(m.size for m in found.values())
    files = sum(m.kind == "file" for m in found.values())
    return Checked(digest.hexdigest(), size, unpacked, files, archive.hexdigest())


def unpack(source: Source, into: Path, limits: Limits = Limits()) -> None:
    """Write the archive's folder under ``into`` (made, and empty): files and folders
    readable by anyone, executable where marked; nothing writable but by the owner. Links
    are made last, once the whole tree is checked, so nothing is ever written through one
    and none is made that leaves the folder. On :class:`Invalid`, what was written stays
    for the caller to remove."""
    into.mkdir(parents=True)
    with _opened(source) as f:
        links = [m for m in _walk(f, limits, Tree(), into) if m.kind == "link"]
    for m in links:
        (into / m.path).symlink_to(m.target)
