"""What holds a sandbox's processes from the host's side: a uid of its own for each
sandbox (as root), cgroups where the hierarchies can be written, and the host's process
table, read to find and kill what a sandbox left (arena/hosted/sandbox.py)."""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import signal
import tempfile
from dataclasses import dataclass, fields
from pathlib import Path

from arena.errors import Invalid, Unavailable
from arena.settings import private_folder

log = logging.getLogger(__name__)

CGROUPS = Path("/sys/fs/cgroup")  # the cgroup v1 hierarchies, used where writable
# A uid (and gid) for each running sandbox, for root: past the ranges systemd and
# /etc/subuid hand out, below 2**31 (some tools read uids as signed).
UIDS = range(2_000_000_000, 2_000_065_536)
MiB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """What one sandbox may use. RLIMIT_AS and RLIMIT_CPU hold each process; the match's
    own clock (stop()) and, where it can be made, the memory cgroup hold the whole."""

    memory_bytes: int = 512 * MiB  # address space of each process (RLIMIT_AS)
    processes: int = 64  # tasks: threads count (RLIMIT_NPROC)
    cpu_s: int = 300  # CPU time of each process: SIGXCPU, then SIGKILL a second later
    file_bytes: int = 16 * MiB  # the largest file it may write (RLIMIT_FSIZE)
    open_files: int = 256  # RLIMIT_NOFILE
    tmp_bytes: int = 32 * MiB  # the size of its /tmp (a tmpfs)
    log_bytes: int = 256 * 1024  # what its log keeps of its stdout and stderr

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise Invalid(f"Limits.{field.name} must be a positive whole number, not {value!r}")


def kill(pidfd: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        signal.pidfd_send_signal(pidfd, signal.SIGKILL)


def pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


STATUS_FIELDS = ("State", "Uid", "Threads")  # what the host reads of a process's status


def status(pid: int) -> dict[str, str] | None:
    """The :data:`STATUS_FIELDS` of /proc/PID/status, or None once the process is gone.
    Read for every process of the machine at each sandbox's start and end: the kernel's
    text is searched as bytes, not split into all of its 50-odd lines."""
    try:
        fd = os.open(f"/proc/{pid}/status", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        text = os.read(fd, 16384)
    except OSError:
        return None
    finally:
        os.close(fd)
    found = {}
    for name in STATUS_FIELDS:
        key = f"\n{name}:\t".encode()
        start = text.find(key)
        if start >= 0:
            end = text.find(b"\n", start + 1)
            found[name] = text[start + len(key) : end if end >= 0 else None].decode()
    return found


def tasks(uid: int) -> int:
    """How many tasks (threads) run as ``uid``: what RLIMIT_NPROC counts."""
    count = 0
    for pid in pids():
        found = status(pid)
        if found and found.get("Uid", "").split()[:1] == [str(uid)]:
            count += int(found.get("Threads", "1"))
    return count


_CLEAN: set[int] = set()  # uids this process's sandboxes ended with, nothing left running


def take_uid() -> tuple[int, int]:
    """A uid of UIDS that no process runs as and no other sandbox holds, locked (the
    lock's descriptor) until the sandbox ends: one that a sandbox of this process ended
    with and left nothing of (:func:`give_back`), else one a look at every process finds
    unused."""
    folder = private_folder(Path(tempfile.gettempdir()) / "truco-arena-sandboxes")
    for uid in sorted(_CLEAN):
        _CLEAN.discard(uid)
        if (fd := _lock(folder, uid)) >= 0:
            return uid, fd
    busy = {u for pid in pids() if (s := status(pid)) for u in s.get("Uid", "").split()}
    for uid in UIDS:
        if str(uid) not in busy and (fd := _lock(folder, uid)) >= 0:
            return uid, fd
    raise Unavailable(f"all {len(UIDS)} sandbox uids are in use")


def give_back(uid: int) -> None:
    """A sandbox of this process ended with ``uid`` and no process of it is left (its
    lock still held): the next may take it without a look at every process."""
    _CLEAN.add(uid)


def _lock(folder: Path, uid: int) -> int:
    """The uid's lock, taken (its descriptor), or -1 when another sandbox holds it."""
    fd = os.open(folder / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return -1
    return fd


def cgroups(name: str, limits: Limits, *pids: int) -> list[Path]:
    """A cgroup of each writable v1 pids and memory hierarchy holding ``pids`` (bwrap's
    two, before the bot starts), capping the processes and the memory (tmpfs included)
    of the whole sandbox; none where the hierarchies cannot be written."""
    made = []
    for controller, file, value in (
        ("pids", "pids.max", limits.processes + 2),  # and bwrap's two
        ("memory", "memory.limit_in_bytes", limits.memory_bytes + limits.tmp_bytes),
    ):
        base = CGROUPS / controller
        folder = base / "truco-arena" / name
        if not base.is_dir():
            continue
        try:
            folder.parent.mkdir(exist_ok=True)
            folder.mkdir(exist_ok=True)
            (folder / file).write_text(str(value))
            swap = folder / "memory.memsw.limit_in_bytes"  # memory and swap, where counted
            if controller == "memory" and swap.exists():
                swap.write_text(str(value))
            for pid in pids:
                (folder / "cgroup.procs").write_text(str(pid))
        except OSError as e:
            log.debug("no %s cgroup for the sandbox: %s", controller, e)
            with contextlib.suppress(OSError):
                folder.rmdir()
            continue
        made.append(folder)
    return made


def oom_kills(folders: list[Path]) -> int:
    """How many processes the kernel killed for memory in the memory cgroup among
    ``folders`` (0 without one, or on a kernel that does not count them)."""
    for folder in folders:
        with contextlib.suppress(OSError, ValueError):
            lines = (folder / "memory.oom_control").read_text().splitlines()
            counts = dict(line.split() for line in lines if len(line.split()) == 2)
            return int(counts.get("oom_kill", "0"))
    return 0
