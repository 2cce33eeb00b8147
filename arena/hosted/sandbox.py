"""The sandbox a hosted bot runs in, a fresh one for every match: bubblewrap (``bwrap``)
namespaces, resource limits, and a capped log. docs/sandbox.md says what it guarantees
and how.

```python
sandbox = Sandbox(code, "python", "bot.py", env={"ARENA_ADDRESS": ..., "ARENA_TOKEN": ...},
                  socket=referee_socket, log=folder / "bot.log")
with sandbox:                              # start(); stop() on the way out
    status = sandbox.wait(timeout=600.0)   # its exit status; None while it runs
text = sandbox.log_text()                  # what it printed, capped
```

The bot sees its folder ``code`` read-only at ``/bot``, a private ``/tmp``, the runtime
read-only and the referee's unix socket ``socket`` at ``/run/arena/referee.sock``; no
network, nothing else of the host. Its environment is ``env`` and a few neutral
variables. The entry is split like a shell command line: its first word names a file of
the bot's folder, relative to it, the rest are arguments (``python``: ``python -B
/bot/FILE ARGS`` with the arena's own interpreter, so that ``import arena.sdk`` works;
``node``: ``/usr/bin/node /bot/FILE ARGS``; ``exec``: ``/bot/FILE ARGS``).
:class:`arena.hosted.bwrap.Layout` holds that layout and the command line that builds it.

prlimit sets the :class:`Limits` before bwrap runs, so nothing inside can raise them. As
root, each sandbox runs under a uid of its own (:mod:`arena.hosted.confine`), since the
kernel counts RLIMIT_NPROC per uid and never for root: bwrap builds the sandbox
privileged, then setpriv drops to that uid. As another user, bwrap makes a user
namespace and the bot runs as that user. Where the cgroup v1 hierarchies are writable,
the whole sandbox also gets a cgroup (:func:`arena.hosted.confine.cgroups`).

Where no sandbox can be made, :func:`unavailable` says why and :meth:`Sandbox.start`
raises :class:`Unavailable`: a hosted bot never runs unsandboxed.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import logging
import os
import select
import signal
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from socket import socket as Socket
from socket import socketpair
from typing import BinaryIO

from arena.errors import ArenaError, Invalid, Unavailable
from arena.hosted import confine
from arena.hosted.bwrap import BWRAP, CODE, NODE, PRLIMIT, SETPRIV, Layout
from arena.hosted.confine import MiB
from arena.hosted.zygote import Spawn, Zygote

log = logging.getLogger(__name__)

Limits = confine.Limits  # what one sandbox may use (arena/hosted/confine.py holds them)
KILL_WAIT_S = 5.0  # how long stop() waits for killed processes to go (they go in ms)
TRIAL_WAIT_S = 30.0
ENV_BYTES = 32 * 1024  # a bot's environment, as JSON: it goes through a pipe unread


DEFAULT_LIMITS = Limits()


def unavailable() -> str | None:
    """Why no sandbox can be made on this machine (bwrap or util-linux missing, or a trial
    sandbox fails), or None; found once per process."""
    return _trial(BWRAP)


@functools.cache
def _trial(bwrap: str) -> str | None:
    """Run a trivial bot through the whole machinery with ``bwrap``: what fails there
    would fail every bot."""
    tools = {bwrap: "bubblewrap", PRLIMIT: "util-linux"}
    if _privileged():
        tools[SETPRIV] = "util-linux"
    for tool, package in tools.items():
        if not os.access(tool, os.X_OK):
            return f"{tool} is missing (install the {package} package)"
    with tempfile.TemporaryDirectory(prefix="truco-arena-trial-") as folder:
        code = Path(folder, "bot")
        code.mkdir()
        (code / "run").write_text("#!/bin/sh\nexit 0\n")
        for path in (code, code / "run"):
            path.chmod(0o755)
        sandbox = Sandbox(code, "exec", "run", env={}, socket=None, log=Path(folder, "log"))
        try:
            sandbox._launch(bwrap)
            status = sandbox.wait(TRIAL_WAIT_S)
        except (OSError, ArenaError) as e:
            return f"a trial sandbox did not start: {e}"
        finally:
            sandbox.stop()
        if status != 0:
            return f"a trial sandbox failed (status {status}): {sandbox.log_text().strip()}"
    return None


class Sandbox:
    """One run of a hosted bot: :meth:`start` it, then :meth:`wait` for its end or
    :meth:`stop` it. As a context manager it starts and stops."""

    def __init__(
        self,
        code: Path,
        runtime: str,
        entry: str,
        *,
        env: Mapping[str, str],
        socket: Path | None,
        log: Path,
        limits: Limits = DEFAULT_LIMITS,
        zygote: Zygote | None = None,
    ) -> None:
        self.layout = Layout.of(code, runtime, entry, socket, limits)
        self.code, self.runtime, self.socket, self.log = code, runtime, socket, log
        self.env, self.limits = dict(env), limits
        # as root, a python bot is forked from the zygote into the sandbox bwrap builds
        self.zygote = zygote if runtime == "python" and _privileged() else None
        self._holder: Socket | None = None  # the holder's socket (with a zygote)
        self._output = -1  # the log pipe's write end, until the zygote's child has it
        self._process: subprocess.Popen[bytes] | None = None
        self._uid: int | None = None  # as root: the sandbox's own
        self._uid_lock = -1  # holds the uid while the sandbox runs
        self._pid1, self._pid1_fd, self._pidns = 0, -1, ""  # bwrap's pid 1 inside
        self._made: dict[str, int] = {}  # the namespaces bwrap made, their inode by kind
        self._cgroups: list[Path] = []
        self._drainer: threading.Thread | None = None
        self._lock = threading.Lock()
        self._ended = False

    def __enter__(self) -> Sandbox:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Build the sandbox and start the bot in it; returns once the bot is starting.
        Unavailable when no sandbox can be made here (see :func:`unavailable`), Invalid
        when what it needs is not open to it."""
        bwrap = BWRAP
        reason = _trial(bwrap)
        if reason is not None:
            raise Unavailable(f"hosted bots cannot run here: {reason}")
        if self.runtime == "node" and not os.access(NODE, os.X_OK):
            raise Unavailable(f"node bots cannot run here: {NODE} is missing")
        self._launch(bwrap)

    def wait(self, timeout: float | None = None) -> int | None:
        """The exit status once the bot has ended (every process of it gone, its log
        complete), or None while it still runs after ``timeout`` seconds. The status is
        the bot's exit code, or 128 + the signal that ended it (137 for SIGKILL, which
        stop() sends; 152 for SIGXCPU, out of CPU time)."""
        if self._process is None:
            raise RuntimeError("the sandbox was not started")
        try:
            self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        return self.stop()

    def stop(self, why: str = "stopped by its host") -> int | None:
        """Kill every process of the bot that still runs, free what the sandbox held;
        its exit status (None if it never started). Idempotent and prompt: the kernel
        kills the whole pid namespace with its pid 1. A bot killed here, or ended by a
        signal, has its log end with a line saying why (``why``, when this killed it)."""
        with self._lock:
            if not self._ended:
                self._ended = True
                self._end(why)
        return None if self._process is None else self._process.returncode

    @property
    def uid(self) -> int | None:
        """The uid the sandbox runs under, its own (as root, once started), or None (not
        as root: the user's own, in a user namespace)."""
        return self._uid

    def pids(self) -> list[int]:
        """The host's pids of the bot's processes now (bwrap's own excluded): those of
        the sandbox's pids cgroup where it has one (no process of the bot can leave it),
        else those of all of the host's processes that are the bot's."""
        return [pid for pid in self._candidates() if self._owns(pid)]

    def _candidates(self) -> list[int]:
        for folder in self._cgroups:
            if folder.parent.parent.name == "pids":
                with contextlib.suppress(OSError, ValueError):
                    return [int(pid) for pid in (folder / "cgroup.procs").read_text().split()]
        return confine.pids()

    def log_text(self) -> str:
        """What the bot printed (stdout and stderr), capped at ``limits.log_bytes`` and
        saying how much was dropped past that."""
        try:
            return self.log.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def _launch(self, bwrap: str) -> None:
        if self._process is not None:
            raise RuntimeError("a sandbox starts once")
        self._check_access()
        info = go = -1
        try:
            if _privileged():
                self._uid, self._uid_lock = confine.take_uid()
            info, go = self._spawn(bwrap)
            with os.fdopen(info, "rb") as pipe:
                info, written = -1, pipe.read()
            if not written:  # bwrap gave up before it made the sandbox; it said why
                self.stop()
                raise Unavailable(f"the sandbox did not start: {self.log_text().strip()}")
            made = json.loads(written)
            self._pid1, self._pidns = made["child-pid"], f"pid:[{made['pid-namespace']}]"
            kinds = [k for k in made if k.endswith("-namespace")]
            self._made = {k.removesuffix("-namespace"): made[k] for k in kinds}
            self._pid1_fd = os.pidfd_open(self._pid1)
            assert self._process is not None
            outer = self._process.pid
            # named after the uid as root: one a crashed arena left behind is reused
            name = f"uid-{self._uid}" if self._uid is not None else f"pid-{outer}"
            self._cgroups = confine.cgroups(name, self.limits, outer, self._pid1)
            os.write(go, b"go")
            if self.zygote is not None:
                self._enter(self.zygote)
        except BaseException:
            self.stop()
            raise
        finally:
            for fd in (info, go, self._output):
                if fd >= 0:
                    os.close(fd)
            self._output = -1
            if self._holder is not None:
                self._holder.close()

    def _enter(self, zygote: Zygote) -> None:
        """Once the holder says the sandbox is built: the zygote's child brought in, the
        bot's environment on a pipe of its own (the zygote never reads it)."""
        assert self._holder is not None and self._uid is not None
        self._holder.settimeout(TRIAL_WAIT_S)
        try:
            said = self._holder.recv(1)
        except OSError:
            said = b""
        if said != b"\n":
            self.stop()
            raise Unavailable(f"the sandbox did not start: {self.log_text().strip()}")
        env = json.dumps(self.layout.environment(self.env)).encode()
        if len(env) > ENV_BYTES:
            raise Invalid(f"a bot's environment is at most {ENV_BYTES} bytes, not {len(env)}")
        env_r, env_w = os.pipe()
        try:
            os.write(env_w, env)
            os.close(env_w)
            env_w = -1
            spawn = Spawn(
                pid1=self._pid1, namespaces=self._made, uid=self._uid,
                limits=self.layout.rlimits(self._uid, forked=True),
                cgroups=[str(c) for c in self._cgroups], file=str(self.layout.file),
                args=list(self.layout.args),
            )  # fmt: skip
            zygote.spawn(spawn, log_fd=self._output, status_fd=self._holder.fileno(), env_fd=env_r)
        finally:
            for fd in (env_r, env_w):
                if fd >= 0:
                    os.close(fd)

    def _spawn(self, bwrap: str) -> tuple[int, int]:
        """Start bwrap, its output drained into the log; the pipes it describes the
        sandbox on, and waits on before it starts the bot (so that all the bot spawns
        lands in the sandbox's cgroups)."""
        output = open(self.log, "wb", buffering=0)  # noqa: SIM115 (_drain closes it)
        info_r, info_w = os.pipe()
        block_r, block_w = os.pipe()
        out_r, out_w = os.pipe()
        with contextlib.suppress(OSError):  # fewer wake-ups for a flood; 1 MiB is allowed
            fcntl.fcntl(out_r, fcntl.F_SETPIPE_SZ, MiB)
        holder = None
        if self.zygote is not None:
            self._holder, holder = socketpair()
        try:
            self._process = subprocess.Popen(
                self.layout.argv(bwrap, self._uid, info_w, block_r, holder=holder is not None),
                stdin=subprocess.DEVNULL if holder is None else holder.fileno(),
                stdout=out_w,
                stderr=out_w,
                pass_fds=(info_w, block_r),
                env=self.layout.environment(self.env),
                cwd="/",
                start_new_session=True,
            )
        except BaseException:
            for fd in (info_r, block_w, out_r):
                os.close(fd)
            output.close()
            raise
        finally:
            if holder is not None:
                holder.close()
                self._output = out_w  # the zygote's child writes the bot's output there
            for fd in (info_w, block_r) + ((out_w,) if holder is None else ()):
                os.close(fd)
        self._drainer = threading.Thread(
            target=_drain, args=(out_r, output, self.limits.log_bytes), daemon=True
        )
        self._drainer.start()
        return info_r, block_w

    def _check_access(self) -> None:
        """What the bot needs must be open to it: as root it runs under a uid of its own,
        so its folder must be readable by everyone and the socket writable by everyone
        (put it in a folder only the arena may enter)."""
        if self.socket is not None:
            try:
                mode = self.socket.stat().st_mode
            except OSError as e:
                raise Invalid(f"no referee socket at {self.socket}: {e.strerror}") from None
            if not stat.S_ISSOCK(mode):
                raise Invalid(f"{self.socket} is not a unix socket")
            if _privileged() and not mode & 0o002:
                raise Invalid(f"the bot cannot connect to {self.socket}: make it mode 0666")
        if _privileged():
            entry = self.code / self.layout.file.relative_to(CODE)
            needed = 0o005 if self.runtime == "exec" else 0o004
            for path, bits in ((self.code, 0o005), (entry, needed)):
                if path.stat().st_mode & bits != bits:
                    raise Invalid(f"the bot cannot read {path}: make it readable by everyone")

    def _owns(self, pid: int) -> bool:
        """Whether ``pid`` is a live process of the bot: one in the sandbox's pid
        namespace (bwrap's pid 1 aside) or, as root, one of the sandbox's uid (in
        whatever namespaces it made of its own)."""
        status = confine.status(pid)
        if status is None or status.get("State", "Z")[0] in "ZX" or pid == self._pid1:
            return False
        if self._uid is not None and str(self._uid) in status.get("Uid", "").split():
            return True
        try:
            return os.readlink(f"/proc/{pid}/ns/pid") == self._pidns
        except OSError:
            return False

    def _end(self, why: str) -> None:
        process = self._process
        killed = self._pid1_fd >= 0 and process is not None and process.poll() is None
        if process is not None:
            # pid 1 first: the kernel kills its pid namespace with it, and bwrap outside
            # reaps it and exits (killed first, bwrap would leave pid 1 to the host's
            # init to reap); before there is a pid 1, bwrap itself
            if self._pid1_fd >= 0:
                confine.kill(self._pid1_fd)
            else:
                process.kill()
            try:
                process.wait(KILL_WAIT_S)
            except subprocess.TimeoutExpired:
                process.kill()  # its pid 1 dies with it (--die-with-parent)
                process.wait()
        if self._output >= 0:  # the log pipe's last writer of ours: the drainer may end
            os.close(self._output)
            self._output = -1
        survivors = self._sweep()
        if survivors:
            log.error("processes %s of a stopped sandbox outlived SIGKILL", survivors)
        elif self._uid is not None:
            confine.give_back(self._uid)
        if self._drainer is not None:  # every writer of its pipe is gone: it ends now
            self._drainer.join(KILL_WAIT_S)
        if process is not None and self._drainer is not None:
            ending = f"killed: {why}" if killed else self._ending(process.returncode)
            if ending is not None:
                with self.log.open("a") as log_file:
                    log_file.write(f"\n[sandbox: {ending}]\n")
        for folder in self._cgroups:
            with contextlib.suppress(OSError):
                folder.rmdir()
        for fd in (self._pid1_fd, self._uid_lock):
            if fd >= 0:
                os.close(fd)

    def _ending(self, status: int) -> str | None:
        """Why a bot that ended by itself ended, when a signal ended it (bwrap's status
        is 128 + the signal): which limit, where that is known; None for an exit."""
        if status <= 128:
            return None
        try:
            sig = signal.Signals(status - 128)
        except ValueError:
            return f"ended by signal {status - 128}"
        limits = self.limits
        if sig == signal.SIGKILL and confine.oom_kills(self._cgroups):
            total = (limits.memory_bytes + limits.tmp_bytes) // MiB
            return f"killed by the kernel (SIGKILL): out of memory, past the sandbox's {total} MiB"
        known = {
            signal.SIGXCPU: f"its CPU time passed {limits.cpu_s} s",
            signal.SIGXFSZ: f"it wrote a file past {limits.file_bytes // MiB} MiB",
        }
        return f"ended by {sig.name}" + (f": {known[sig]}" if sig in known else "")

    def _sweep(self) -> list[int]:
        """Kill whatever process of the bot is left and wait until it is gone; the pids
        still there after KILL_WAIT_S (none, unless the kernel fails us)."""
        deadline = time.monotonic() + KILL_WAIT_S
        while (pids := self.pids()) and time.monotonic() < deadline:
            for pid in pids:
                try:
                    fd = os.pidfd_open(pid)
                except ProcessLookupError:
                    continue
                try:
                    if self._owns(pid):  # pinned now: not a newcomer on a pid freed since
                        confine.kill(fd)
                        select.select([fd], [], [], max(deadline - time.monotonic(), 0))
                finally:
                    os.close(fd)
        return pids


def _privileged() -> bool:
    return os.geteuid() == 0


def _drain(pipe: int, output: BinaryIO, cap: int) -> None:
    """Copy the bot's output into its log up to ``cap`` bytes, then read on and drop the
    rest, noting how much: the bot never blocks on a full pipe, the disk never fills."""
    kept = dropped = 0
    with os.fdopen(pipe, "rb", buffering=0) as source, output:
        while chunk := source.read(MiB):
            keep = chunk[: max(cap - kept, 0)]
            if keep:
                output.write(keep)
                kept += len(keep)
            dropped += len(chunk) - len(keep)
        if dropped:
            note = f"\n[sandbox: {dropped} more bytes dropped; the log keeps {cap} bytes]\n"
            output.write(note.encode())
