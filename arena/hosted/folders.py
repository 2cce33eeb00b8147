"""The unpacked folders of hosted versions on a worker's machine (``ARENA_HOME/hosted/
HASH``), shared by every worker process and thread of the machine, and removed when no
process of theirs needs them.

Why removing is safe, whoever runs on the machine:

- A lock file per folder, ``HASH.lock``, locked with ``flock``. Whoever runs a sandbox on
  a folder (:meth:`Folders.lease`) holds a shared lock on it from before it looks at the
  folder until its sandbox is stopped (:meth:`Lease.release`); the kernel releases it if
  the process dies. Many hold it at once.
- Removing (:meth:`Folders.remove`) takes the exclusive lock without waiting: a folder
  someone holds is skipped, never waited for, so a remover never blocks a match and
  never holds a lock while waiting for one. Holding it, no sandbox runs on the folder
  and none can start: the folder is renamed away (``.removing-...``, so that a folder at
  ``HASH`` is always complete), the lock file is unlinked, the lock released, and only
  then is the renamed folder deleted.
- A user that waited for its shared lock while a removal held the exclusive one finds,
  once it has it, that the lock file it holds is no longer the one at its path: it opens
  the one there (made anew) and looks again, unpacking the folder anew if it is gone.
- A folder is unpacked under the shared lock too, into ``.unpacking-HASH-...`` and then
  renamed into place: two processes that unpack it at once both hold the shared lock (no
  removal runs meanwhile), and the second rename fails on the first's folder, which is
  the same files. What a crash leaves (``.unpacking-``, ``.removing-``) is deleted by the
  next removal of that hash, under its exclusive lock.

Each use touches the folder's time, so that :meth:`Folders.prune` removes the least
recently used first.

Workers of an older version, which took no locks, must not share ``ARENA_HOME`` with
these: restart a machine's workers together.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

log = logging.getLogger(__name__)

NAME = re.compile(r"[0-9a-f]{64}")  # a version's hash: the only folders kept here
LEFTOVER = re.compile(r"\.(?:unpacking|removing)-([0-9a-f]{64})-.*")


class Lease:
    """A folder in use: it stays as it is until :meth:`release` (called twice: once)."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class Folders:
    """The folders under ``root`` (one of this user's only), by name."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def lease(self, name: str, fill: Callable[[Path], None]) -> Lease:
        """The folder ``name``, held until the lease is released; made by ``fill(path)``
        (which writes a new folder at ``path``) when it is missing."""
        fd = self._shared(name)
        try:
            folder = self.root / name
            if not folder.is_dir():
                fresh = Path(tempfile.mkdtemp(dir=self.root, prefix=f".unpacking-{name}-"))
                try:
                    fill(fresh / "bot")
                    try:
                        (fresh / "bot").rename(folder)
                    except OSError as e:  # another process unpacked it first: the same files
                        if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                            raise
                finally:
                    shutil.rmtree(fresh, ignore_errors=True)
            os.utime(folder)  # its last use, for prune's order
        except BaseException:
            os.close(fd)
            raise
        return Lease(folder, fd)

    def remove(self, name: str) -> bool:
        """Remove the folder ``name`` (and what a crash left of it) unless someone holds
        it; whether it is gone."""
        lock = self.root / f"{name}.lock"
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        gone: list[Path] = []
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False  # in use
            if not _current(fd, lock):
                return False  # removed meanwhile, and perhaps in use again: next time
            folder = self.root / name
            if folder.exists():
                away = self.root / f".removing-{name}-{secrets.token_hex(4)}"
                folder.rename(away)
                gone.append(away)
            gone += [p for p in self.root.iterdir() if _leftover_of(p.name) == name]
            lock.unlink()
        finally:
            os.close(fd)
        for path in gone:
            shutil.rmtree(path, ignore_errors=True)
        return True

    def prune(self, keep: Callable[[Sequence[str]], Iterable[str]], most: int) -> list[str]:
        """Remove the folders that nobody holds and ``keep(names)`` does not name (it is
        asked about every folder here), then, while more than ``most`` remain, the least
        recently used that nobody holds; and what crashes left. The names removed."""
        names, leftovers = set(), set()
        for path in self.root.iterdir():
            if NAME.fullmatch(path.name) and path.is_dir():
                names.add(path.name)
            elif (of := _leftover_of(path.name)) is not None:
                leftovers.add(of)
        kept = set(keep(sorted(names))) if names else set()
        removed = [n for n in sorted(names - kept) if self.remove(n)]
        rest = sorted(names - set(removed), key=self._used)  # the least recently used first
        excess = len(rest) - most
        for name in rest:
            if excess <= 0:
                break
            if self.remove(name):
                removed.append(name)
                excess -= 1
        for name in leftovers - names:
            self.remove(name)
        if removed:
            log.info("removed %d unpacked version folders: %s", len(removed), removed)
        return removed

    def _used(self, name: str) -> float:
        with contextlib.suppress(FileNotFoundError):
            return (self.root / name).stat().st_mtime
        return 0.0

    def _shared(self, name: str) -> int:
        """A shared lock on the folder's lock file, the one at its path."""
        lock = self.root / f"{name}.lock"
        while True:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            fcntl.flock(fd, fcntl.LOCK_SH)  # waits only while a removal holds it
            if _current(fd, lock):
                return fd
            os.close(fd)  # unlinked by the removal it waited for: the new one


def _current(fd: int, lock: Path) -> bool:
    """Whether ``fd`` is the lock file at ``lock`` (not one a removal unlinked)."""
    try:
        return os.fstat(fd).st_ino == lock.stat().st_ino
    except FileNotFoundError:
        return False


def _leftover_of(name: str) -> str | None:
    found = LEFTOVER.fullmatch(name)
    return found.group(1) if found else None
