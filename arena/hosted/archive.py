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

import contextlib
import hashlib
import io
import os
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from arena.domain.versions import Checked, Manifest
from arena.engine import quoted
from arena.errors import Invalid
from arena.hosted.formats import PATH_MAX, Bounds, entries, read_contents
from arena.hosted.tree import Tree

MiB = 1024 * 1024
CHUNK = 64 * 1024  # bytes of a file read (hashed, written) at a time
EMPTY = hashlib.sha256(b"").digest()  # the contents of a folder or an empty file, hashed


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
    bounds = Bounds(limits.header_bytes, limits.files, limits.unpacked_bytes)
    unpacked = files = 0
    for e in entries(f, bounds):
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
        while chunk := read_contents(contents, path, CHUNK):
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
