"""The zygote: one Python interpreter per worker with gRPC and the SDK imported once,
forked for every hosted Python process, the child entering a sandbox that bwrap has just
built for its match (:mod:`arena.hosted.sandbox`) before any of the bot's code is read.
docs/hosting.md says why, and what it costs.

```python
zygote = Zygote()                       # python -m arena.hosted.zygote, ready
pid = zygote.spawn(Spawn(...), log_fd=..., status_fd=..., env_fd=...)
zygote.close()
```

The zygote never runs a bot's code and never holds a secret: a spawn names the sandbox
(its pid 1 on the host), the uid, the limits, the cgroups and the bot's file; the bot's
environment (its token) comes on a pipe that only the child reads. The child, still
root, joins the cgroups and every namespace of the sandbox's pid 1 (as ``nsenter`` does),
sets the limits (as ``prlimit`` does), drops every capability and takes the sandbox's uid
(as ``setpriv`` does), then forks once more: the grandchild, the first of the sandbox's
pid namespace that is a fork and not bwrap's, runs the bot's file as ``__main__``. The
child waits for it and writes its status to ``status_fd``, which the sandbox's holder
reads and exits with, so that bwrap exits with the bot's status as it always has.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import json
import os
import resource
import runpy
import signal
import socket
import subprocess
import sys
import threading
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path

from arena.errors import Unavailable

PRELOAD = ("arena.sdk", "random", "json")  # imported once, before any fork
READY = b"ready"
MESSAGE_BYTES = 64 * 1024  # a spawn's description, at most
# the namespaces a child joins, in order: mnt last, once every other file is open
NAMESPACES = (
    ("ipc", 0x08000000), ("uts", 0x04000000), ("net", 0x40000000),
    ("cgroup", 0x02000000), ("pid", 0x20000000), ("mnt", 0x00020000),
)  # fmt: skip
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NAME = 1, 4, 15
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 24, 38
LIBC = ctypes.CDLL(None, use_errno=True)  # setns and prctl, which os has not in 3.11
LIMITS = {
    "as": resource.RLIMIT_AS, "nproc": resource.RLIMIT_NPROC, "cpu": resource.RLIMIT_CPU,
    "core": resource.RLIMIT_CORE, "fsize": resource.RLIMIT_FSIZE,
    "nofile": resource.RLIMIT_NOFILE,
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Spawn:
    """What a child needs to become a sandbox's bot, none of it secret: the sandbox's
    pid 1 on the host and the namespaces bwrap said it made (their inodes, by kind: a
    pid 1 gone and its pid taken by another process is found out), its uid, the limits
    (soft, hard) by :data:`LIMITS` name, the cgroup folders to join, the bot's file
    inside the sandbox and its arguments."""

    pid1: int
    namespaces: dict[str, int]
    uid: int
    limits: dict[str, tuple[int, int]]
    cgroups: list[str]
    file: str
    args: list[str]
    cwd: str = "/bot"


class Zygote:
    """The worker's side: a zygote process, started now and ready when this returns,
    serving one spawn at a time (a lock) over a unix socket pair. Its end comes with the
    worker's (it exits when the socket closes). Unavailable when it cannot start."""

    def __init__(self, timeout_s: float = 30.0) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "MALLOC_ARENA_MAX": "2"}
        env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-B", "-m", "arena.hosted.zygote", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, env=env, cwd="/",
            )  # fmt: skip
        finally:
            theirs.close()
        self._socket = ours
        self._lock = threading.Lock()
        ours.settimeout(timeout_s)
        try:
            said = ours.recv(len(READY))
        except OSError as e:
            said = str(e).encode()
        if said != READY:
            self.close()
            raise Unavailable(f"the zygote did not start: {said.decode(errors='replace')}")
        ours.settimeout(None)

    def spawn(self, spawn: Spawn, *, log_fd: int, status_fd: int, env_fd: int) -> int:
        """Fork a child into the sandbox ``spawn`` names; its pid on the host. The bot's
        output goes to ``log_fd``, its status to ``status_fd``, and its environment is
        read from ``env_fd`` (a pipe holding a JSON object, its write end closed)."""
        message = json.dumps(asdict(spawn)).encode()
        with self._lock:
            try:
                socket.send_fds(self._socket, [message], [log_fd, status_fd, env_fd])
                reply = self._socket.recv(MESSAGE_BYTES)
            except OSError as e:
                raise Unavailable(f"the zygote is gone: {e}") from None
        if not reply:
            raise Unavailable(f"the zygote is gone (status {self._process.poll()})")
        answer = json.loads(reply)
        if "error" in answer:
            raise Unavailable(f"the zygote could not fork: {answer['error']}")
        return int(answer["pid"])

    def alive(self) -> bool:
        return self._process.poll() is None

    def close(self) -> None:
        self._socket.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(5)
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait()


def serve(control: socket.socket) -> None:
    """The zygote's loop: a fork per spawn asked for, until the worker closes the socket.
    Its children are reaped by the kernel (SIGCHLD ignored); a child sets it back."""
    for name in PRELOAD:
        importlib.import_module(name)
    sys.dont_write_bytecode = True
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    _name(b"arena-zygote")
    control.send(READY)
    while True:
        message, fds, _, _ = socket.recv_fds(control, MESSAGE_BYTES, 3)
        if not message:
            return
        try:
            spawn = Spawn(**json.loads(message))
            if len(fds) != 3:
                raise ValueError(f"3 descriptors wanted, {len(fds)} came")
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
        except (OSError, ValueError, TypeError) as e:
            reply: dict[str, object] = {"error": str(e)}
        else:
            if pid == 0:
                try:
                    control.close()
                    _enter(spawn, *fds)
                except BaseException:
                    failed = traceback.format_exc(limit=-1).strip()
                    with contextlib.suppress(OSError):
                        os.write(fds[0], f"[sandbox: the bot could not start: {failed}]\n".encode())
                finally:
                    os._exit(127)
            reply = {"pid": pid}
        for fd in fds:
            os.close(fd)
        control.send(json.dumps(reply).encode())


def _enter(spawn: Spawn, log_fd: int, status_fd: int, env_fd: int) -> None:
    """In the child, still root: into the sandbox, down to its uid, then the bot forked;
    its status written where the holder reads it. Never returns."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the zygote gone: so is this
    _name(b"arena-waiter")
    for folder in spawn.cgroups:
        Path(folder, "cgroup.procs").write_text(str(os.getpid()))
    own = {name: os.readlink(f"/proc/self/ns/{name}") for name, _ in NAMESPACES}
    joined = []
    for name, kind in NAMESPACES:  # every file opened before the mount namespace changes
        fd = os.open(f"/proc/{spawn.pid1}/ns/{name}", os.O_RDONLY | os.O_CLOEXEC)
        found = os.readlink(f"/proc/self/fd/{fd}")
        if name in spawn.namespaces and found != f"{name}:[{spawn.namespaces[name]}]":
            raise ProcessLookupError(f"pid {spawn.pid1} is no longer the sandbox's ({found})")
        joined.append((fd, kind, found != own[name]))
    for fd, kind, differs in joined:
        if differs and LIBC.setns(fd, kind) != 0:
            raise OSError(ctypes.get_errno(), f"setns({kind:#x})")
        os.close(fd)
    os.chdir(spawn.cwd)
    for name, (soft, hard) in spawn.limits.items():
        resource.setrlimit(LIMITS[name], (soft, hard))
    last = int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    for cap in range(last + 1):
        _prctl(PR_CAPBSET_DROP, cap)
    os.setgroups([])
    os.setresgid(spawn.uid, spawn.uid, spawn.uid)
    os.setresuid(spawn.uid, spawn.uid, spawn.uid)  # every capability goes with root
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # again: a change of uid clears it
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    pid = os.fork()
    if pid == 0:
        os.close(status_fd)
        _run(spawn, log_fd, env_fd)
    os.close(log_fd)
    os.close(env_fd)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    with contextlib.suppress(OSError):  # the holder is gone when the sandbox was stopped
        os.write(status_fd, f"{code if code >= 0 else 128 - code}\n".encode())
    os._exit(0)


def _run(spawn: Spawn, log_fd: int, env_fd: int) -> None:
    """In the grandchild, in the sandbox as its uid: the bot's file as ``__main__``, as
    ``python -B FILE ARGS`` would run it; then its exit, as the interpreter's."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    _prctl(PR_SET_DUMPABLE, 1)
    _name(b"python")  # its own /proc files are its own, as after an exec
    with os.fdopen(env_fd, "rb") as pipe:
        env = json.loads(pipe.read() or b"{}")
    null = os.open("/dev/null", os.O_RDONLY)
    for fd, into in ((null, 0), (log_fd, 1), (log_fd, 2)):
        os.dup2(fd, into)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    os.environ.clear()
    os.environ.update({"PWD": spawn.cwd} | env)  # PWD as bwrap sets it
    sys.argv = [spawn.file, *spawn.args]
    sys.path[0] = str(Path(spawn.file).parent)
    code: object = 0
    try:
        runpy.run_path(spawn.file, run_name="__main__")
    except SystemExit as e:
        code = e.code
    except BaseException as e:  # told as the interpreter tells it, from the bot's frames
        frames = e.__traceback__
        while frames is not None and frames.tb_frame.f_code.co_filename != spawn.file:
            frames = frames.tb_next
        traceback.print_exception(type(e), e, frames)
        code = 1
    code = _exit_code(code)
    with contextlib.suppress(BaseException):
        threading._shutdown()  # type: ignore[attr-defined]  # as the interpreter's exit
    with contextlib.suppress(BaseException):
        import atexit

        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    os._exit(code)


def _exit_code(code: object) -> int:
    """The status ``sys.exit(code)`` gives: None is 0, a number itself, else printed
    and 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _name(name: bytes) -> None:
    """The process's name, as ps and /proc/PID/comm show it."""
    LIBC.prctl(PR_SET_NAME, ctypes.c_char_p(name), 0, 0, 0)


def _prctl(option: int, value: int) -> None:
    if LIBC.prctl(option, ctypes.c_ulong(value), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option})")


if __name__ == "__main__":
    serve(socket.socket(fileno=int(sys.argv[1])))
