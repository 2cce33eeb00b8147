"""A submitted bot's archive: read, checked and unpacked by one walk over its members.

An archive is a tar (gzip-compressed or not) or a zip of the bot's folder. Whatever the
format, :func:`members` yields its regular files, folders and symbolic links as
:class:`Member` values, checking each as it comes, and raises :class:`Invalid` at the
first thing a bot's folder may not hold:

- more bytes than the limits allow, compressed or unpacked (the unpacked bytes are counted
  as they are read, never taken from the archive's own headers: a zip bomb is stopped at
  the limit, not believed);
- more files than allowed;
- a path that leaves the folder (absolute, ``..``, or a link whose target does);
- a device, a FIFO, a hard link or anything but a file, a folder or a link.

The same walk computes a version's identity (:func:`check`: a hash of the files, their
executable bits and the manifest, so that packing the same folder twice, with new time
stamps, is one version) and writes the folder out for a sandbox (:func:`unpack`), so what
was checked is what runs.
"""

from __future__ import annotations

import hashlib
import io
import posixpath
import shlex
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.engine import quoted
from arena.errors import Invalid

RUNTIMES = ("python", "node", "exec")
MiB = 1024 * 1024
SPECIAL = "a device, FIFO or other special file"
ONLY = "a bot's folder holds files, folders and links"


@dataclass(frozen=True, slots=True)
class Limits:
    """How large a bot's folder may be."""

    archive_bytes: int = 32 * MiB  # as sent, compressed
    unpacked_bytes: int = 128 * MiB  # the files' contents, summed
    files: int = 5_000  # files, folders and links


@dataclass(frozen=True, slots=True)
class Manifest:
    """What the bot is and how it starts: ``entry`` is a command line run in the bot's
    folder, whose first word is the file to run (``bot.py`` for python, ``index.js`` for
    node, ``./bot`` or ``bin/bot`` for exec)."""

    runtime: str
    entry: str

    def __post_init__(self) -> None:
        if self.runtime not in RUNTIMES:
            raise Invalid(f"runtime: {quoted(self.runtime)} is not one of {', '.join(RUNTIMES)}")
        if not self.program:
            raise Invalid("entry: give the file to run, e.g. bot.py")

    @property
    def words(self) -> list[str]:
        try:
            return shlex.split(self.entry)
        except ValueError as e:
            raise Invalid(f"entry: {quoted(self.entry)} is not a command line ({e})") from None

    @property
    def program(self) -> str:
        """The entry's file, as a path inside the folder."""
        words = self.words
        return posixpath.normpath(words[0]) if words else ""


@dataclass(frozen=True, slots=True)
class Member:
    """One entry of a bot's folder: ``kind`` is ``file``, ``dir`` or ``link``; ``data``
    a file's bytes, ``target`` a link's."""

    path: str
    kind: str
    executable: bool = False
    data: bytes = b""
    target: str = ""


@dataclass(frozen=True, slots=True)
class Checked:
    """What :func:`check` found: the version's identity and its size."""

    hash: str
    size: int  # the archive's bytes
    unpacked: int  # the files' bytes
    files: int  # regular files (folders and links aside)


def _inside(path: str, what: str) -> str:
    """``path`` made relative and normal, refused if it leaves the folder."""
    if path.startswith("/") or "\\" in path:
        raise Invalid(f"{what} {quoted(path)}: an absolute path leaves the bot's folder")
    normal = posixpath.normpath(path)
    if normal == ".." or normal.startswith("../"):
        raise Invalid(f"{what} {quoted(path)}: leaves the bot's folder")
    return normal


def _tar_members(data: bytes, limits: Limits) -> Iterator[Member]:
    try:
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")  # noqa: SIM115 (closed below)
    except (tarfile.TarError, EOFError, OSError) as e:
        raise Invalid(f"archive: not a tar, tar.gz or zip file ({e})") from None
    with archive:
        try:
            for info in archive:
                path = info.name
                if info.isdir():
                    yield Member(path, "dir")
                elif info.issym():
                    yield Member(path, "link", target=info.linkname)
                elif info.isreg():
                    if info.size > limits.unpacked_bytes:
                        raise Invalid(f"file {quoted(path)}: larger than the unpacked limit")
                    f = archive.extractfile(info)
                    assert f is not None  # a regular file has contents
                    yield Member(
                        path, "file", bool(info.mode & 0o111), f.read(limits.unpacked_bytes + 1)
                    )
                else:
                    kind = "a hard link" if info.islnk() else SPECIAL
                    raise Invalid(f"{quoted(path)}: {kind}; {ONLY}")
        except (tarfile.TarError, EOFError, zlib.error) as e:
            raise Invalid(f"archive: damaged ({e})") from None


def _zip_members(data: bytes, limits: Limits) -> Iterator[Member]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError) as e:
        raise Invalid(f"archive: damaged zip file ({e})") from None
    with archive:
        for info in archive.infolist():
            mode = info.external_attr >> 16
            path = info.filename
            kind = stat.S_IFMT(mode) if info.create_system == 3 and mode else 0
            if info.is_dir():
                yield Member(path.rstrip("/"), "dir")
                continue
            if kind not in (0, stat.S_IFREG, stat.S_IFLNK):
                raise Invalid(f"{quoted(path)}: {SPECIAL}; {ONLY}")
            try:
                with archive.open(info) as f:
                    read = f.read(limits.unpacked_bytes + 1)  # whatever the header claims
            except (zipfile.BadZipFile, OSError, NotImplementedError, zlib.error) as e:
                raise Invalid(f"file {quoted(path)}: cannot be read ({e})") from None
            if kind == stat.S_IFLNK:
                yield Member(path, "link", target=read.decode(errors="replace"))
            else:
                yield Member(path, "file", bool(mode & 0o111), read)


def members(data: bytes, limits: Limits = Limits()) -> Iterator[Member]:
    """The archive's entries, each checked against the limits and the folder's bounds
    (:class:`Invalid` at the first that fails); paths relative and normal."""
    if len(data) > limits.archive_bytes:
        raise Invalid(f"archive: {len(data):,} bytes, over the limit of {limits.archive_bytes:,}")
    read = _zip_members if data[:4] == b"PK\x03\x04" else _tar_members
    unpacked = files = 0
    seen: set[str] = set()
    links: set[str] = set()
    parents: set[str] = set()  # every folder some path goes through
    for m in read(data, limits):
        path = _inside(m.path, "path")
        if path == ".":
            continue
        files += 1
        if files > limits.files:
            raise Invalid(f"archive: more than {limits.files:,} files, folders and links")
        unpacked += len(m.data)
        if unpacked > limits.unpacked_bytes:
            raise Invalid(f"archive: over {limits.unpacked_bytes:,} bytes once unpacked")
        if path in seen:
            raise Invalid(f"path {quoted(path)}: twice in the archive")
        seen.add(path)
        parts = path.split("/")[:-1]
        parents |= {"/".join(parts[: i + 1]) for i in range(len(parts))}
        if m.kind == "link":
            if m.target.startswith("/"):
                raise Invalid(f"link {quoted(path)}: points at an absolute path")
            _inside(posixpath.join(posixpath.dirname(path), m.target), f"link {quoted(path)} to")
            links.add(path)
        if links & parents:  # a path through a link would be written where it points
            raise Invalid(
                f"path {quoted(path)}: goes through the link {quoted(min(links & parents))}"
            )
        yield Member(path, m.kind, m.executable, m.data, m.target)


def check(data: bytes, manifest: Manifest, limits: Limits = Limits()) -> Checked:
    """The archive checked whole: its identity and size. :class:`Invalid` says what is
    wrong, the entry point missing included."""
    digest = hashlib.sha256(f"{manifest.runtime}\0{manifest.entry}\0".encode())
    found: dict[str, Member] = {}
    for m in sorted(members(data, limits), key=lambda m: m.path):
        found[m.path] = m
        content = m.target.encode() if m.kind == "link" else hashlib.sha256(m.data).digest()
        digest.update(f"{m.kind}\0{m.path}\0{int(m.executable)}\0".encode() + content)
    entry = found.get(_resolve(found, manifest.program))
    if entry is None or entry.kind != "file":
        raise Invalid(f"entry: no file {quoted(manifest.program)} in the archive")
    if manifest.runtime == "exec" and not entry.executable:
        raise Invalid(f"entry: {quoted(manifest.program)} is not executable (chmod +x it)")
    unpacked = sum(len(m.data) for m in found.values())
    files = sum(m.kind == "file" for m in found.values())
    return Checked(digest.hexdigest(), len(data), unpacked, files)


def _resolve(found: dict[str, Member], path: str) -> str:
    """``path`` with its links followed (as far as the folder's own links go)."""
    for _ in range(40):  # as the kernel gives up on a loop of links
        m = found.get(path)
        if m is None or m.kind != "link":
            return path
        path = posixpath.normpath(posixpath.join(posixpath.dirname(path), m.target))
    return path


def unpack(data: bytes, into: Path, limits: Limits = Limits()) -> None:
    """Write the archive's folder under ``into`` (made, and empty): files and folders
    readable by anyone, executable where marked; nothing writable but by the owner. Links
    are made last, so nothing is ever written through one."""
    into.mkdir(parents=True)
    links = []
    for m in members(data, limits):
        target = into / m.path
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        if m.kind == "dir":
            target.mkdir(exist_ok=True, mode=0o755)
        elif m.kind == "link":
            links.append(m)
        else:
            target.write_bytes(m.data)
            target.chmod(0o755 if m.executable else 0o644)
    for m in links:
        (into / m.path).symlink_to(m.target)
