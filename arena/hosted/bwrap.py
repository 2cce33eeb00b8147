"""What a sandbox is made of (:class:`Layout`), and the command line that makes it:
prlimit sets the limits, bwrap builds the namespaces and the file system, and, as root,
setpriv drops to the sandbox's own uid before the bot's runtime starts. docs/sandbox.md
says what each part guarantees; :mod:`arena.hosted.sandbox` runs the command and
watches it."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import arena
from arena.engine import quoted
from arena.errors import Invalid
from arena.hosted import confine
from arena.hosted.confine import MiB

RUNTIMES = ("python", "node", "exec")
BWRAP = "/usr/bin/bwrap"  # the Debian package bubblewrap
PRLIMIT = "/usr/bin/prlimit"  # util-linux: sets the limits, then runs bwrap
SETPRIV = "/usr/bin/setpriv"  # util-linux: drops root to the sandbox's uid inside
NODE = "/usr/bin/node"
# What bwrap runs for a bot the zygote brings in: on its standard input, a socket, it says
# it runs (the sandbox is built), then exits with the status the zygote's child writes
# there once the bot has ended (or, should that child die first, 127).
HOLDER = ("/bin/sh", "-c", 'echo >&0; read -r status; exit "${status:-127}"')
CODE = PurePosixPath("/bot")
SOCKET = PurePosixPath("/run/arena/referee.sock")
# V8 reserves about 800 MiB of address space it does not use (its code range and heap
# cage), which RLIMIT_AS counts: node's limit is the memory plus this, its heap is capped
# by --max-old-space-size.
NODE_RESERVE_BYTES = 1 << 30


@dataclass(frozen=True, slots=True)
class Layout:
    """A bot's sandbox as it will be built: its folder ``code`` (at ``/bot``), its
    runtime, the entry's ``file`` inside the sandbox and its ``args``, the referee's
    unix ``socket`` (at ``/run/arena/referee.sock``) and the limits."""

    code: Path
    runtime: str
    file: PurePosixPath
    args: tuple[str, ...]
    socket: Path | None
    limits: confine.Limits

    @classmethod
    def of(
        cls, code: Path, runtime: str, entry: str, socket: Path | None, limits: confine.Limits
    ) -> Layout:
        """The layout of a bot whose ``entry`` is split like a shell command line: its
        first word names a file of the bot's folder, relative to it, the rest are
        arguments. Invalid when the runtime or the entry is not one a sandbox runs."""
        if runtime not in RUNTIMES:
            raise Invalid(f"no runtime {quoted(runtime)}: one of {', '.join(RUNTIMES)}")
        file, args = _entry(code, entry)
        return cls(code, runtime, file, args, socket, limits)

    def rlimits(self, uid: int | None, forked: bool = False) -> dict[str, tuple[int, int]]:
        """The limits of the bot's processes (soft, hard), by prlimit's names. Not as
        root, RLIMIT_NPROC counts every task of the user: it is set to their count now
        plus the limit; ``forked``, it counts the zygote's child too, which waits for the
        bot as the sandbox's uid (arena/hosted/zygote.py)."""
        limits = self.limits
        memory = limits.memory_bytes + (NODE_RESERVE_BYTES if self.runtime == "node" else 0)
        tasks = limits.processes + (confine.tasks(os.getuid()) if uid is None else forked)
        named = {"as": memory, "nproc": tasks, "core": 0, "fsize": limits.file_bytes}
        named["nofile"] = limits.open_files
        return {k: (v, v) for k, v in named.items()} | {"cpu": (limits.cpu_s, limits.cpu_s + 1)}

    def argv(
        self, bwrap: str, uid: int | None, info_fd: int, block_fd: int, holder: bool = False
    ) -> list[str]:
        """prlimit, bwrap, (as root) setpriv, the bot. With ``holder`` (as root), bwrap
        and the holder only, with no capability left: the zygote's child brings the bot
        in, with its limits and its uid (arena/hosted/zygote.py)."""
        sandbox = [bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
        sandbox += ["--unshare-cgroup-try", "--hostname", "bot", "--die-with-parent"]
        sandbox += ["--info-fd", str(info_fd), "--block-fd", str(block_fd), *self.mounts()]
        if holder:
            return [*sandbox, "--cap-drop", "ALL", "--", *HOLDER]
        prlimit = [PRLIMIT, *(f"--{k}={s}:{h}" for k, (s, h) in self.rlimits(uid).items()), "--"]
        if uid is None:
            sandbox += ["--unshare-user", "--disable-userns", "--"]
            return [*prlimit, *sandbox, *self.command()]
        sandbox += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--", SETPRIV]
        drop = [f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all"]
        return [*prlimit, *sandbox, *drop, "--bounding-set=-all", "--", *self.command()]

    def mounts(self) -> list[str]:
        """bwrap's arguments that build the sandbox's file system, on an empty root that
        ends read-only."""
        args = ["--ro-bind", "/usr", "/usr"]
        for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
            if os.path.islink(top):  # merged /usr: the link into it
                args += ["--symlink", os.readlink(top), top]
            elif os.path.isdir(top):
                args += ["--ro-bind", top, top]
        args += ["--perms", "0755", "--dir", "/etc"]  # the dynamic linker's cache only
        args += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
        args += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev"]
        args += ["--perms", "1777", "--size", str(self.limits.tmp_bytes), "--tmpfs", "/tmp"]
        bound = [PurePosixPath("/usr")]
        for path in _python_paths() if self.runtime == "python" else ():
            if not any(path.is_relative_to(b) for b in bound):
                args += [*_folders(path.parent, bound), "--ro-bind", str(path), str(path)]
                bound.append(path)
        args += ["--ro-bind", str(self.code), str(CODE)]
        if self.socket is not None:
            args += [*_folders(SOCKET.parent, bound), "--ro-bind", str(self.socket), str(SOCKET)]
        return [*args, "--remount-ro", "/", "--chdir", str(CODE)]

    def command(self) -> list[str]:
        file = str(self.file)
        if self.runtime == "python":
            return [sys.executable, "-B", file, *self.args]
        if self.runtime == "node":
            heap = f"--max-old-space-size={self.limits.memory_bytes // MiB}"
            return [NODE, heap, file, *self.args]
        return [file, *self.args]

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """What the caller passed, over a few neutral variables: a PATH of the runtime's,
        HOME in the private /tmp, a UTF-8 locale, for python where arena is found, and
        MALLOC_ARENA_MAX: glibc reserves 64 MiB of address space for each thread's arena,
        which RLIMIT_AS counts (a gRPC bot in Python would reserve 700 MiB to use 40).
        Nothing of the arena's own environment."""
        path = ["/usr/bin", "/bin"]
        neutral = {"HOME": "/tmp", "LANG": "C.UTF-8", "MALLOC_ARENA_MAX": "2"}
        if self.runtime == "python":
            path.insert(0, str(Path(sys.executable).parent))
            neutral["PYTHONPATH"] = str(_arena_folder().parent)
        neutral["PATH"] = ":".join(dict.fromkeys(path))
        return neutral | dict(env)


def _entry(code: Path, entry: str) -> tuple[PurePosixPath, tuple[str, ...]]:
    """The bot's file inside the sandbox and its arguments, from ``entry``."""
    try:
        words = shlex.split(entry)
    except ValueError as e:
        raise Invalid(f"the entry {quoted(entry)} is not a command line: {e}") from None
    if not words:
        raise Invalid("the entry is empty: it names the bot's file, such as bot.py")
    name = PurePosixPath(words[0])
    if name.is_absolute() or ".." in name.parts:
        raise Invalid(f"the entry's file {quoted(words[0])} must be in the bot's folder")
    if not (code / name).is_file():
        raise Invalid(f"the bot has no file {quoted(words[0])}")
    return CODE / name, tuple(words[1:])


def _arena_folder() -> Path:
    """The folder of the running ``arena`` package (an editable install's source tree)."""
    return Path(arena.__file__).resolve().parent


def _python_paths() -> list[PurePosixPath]:
    """What the python runtime binds: the interpreter's virtual environment, the base
    installation it links to, and the arena package, at their own paths."""
    paths = {sys.prefix, sys.base_prefix, str(_arena_folder())}
    return sorted(PurePosixPath(p) for p in paths)


def _folders(path: PurePosixPath, bound: list[PurePosixPath]) -> list[str]:
    """bwrap's arguments that make ``path`` and its parents open to all (bwrap would make
    them 0700), except those under what is bound already."""
    args: list[str] = []
    for folder in [*reversed(path.parents), path][1:]:
        if not any(folder.is_relative_to(b) for b in bound):
            args += ["--perms", "0755", "--dir", str(folder)]
    return args
