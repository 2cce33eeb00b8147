"""A worker's side of hosted bots: the processes of a match's hosted seats, started
before the referee plays it and gone when it ends.

For each version seated, a fresh sandbox (:mod:`arena.hosted.sandbox`) runs its code,
unpacked once per machine from the store, with nothing in its environment but the way
out (the relay's socket, :mod:`arena.hosted.relay`, which carries that token's Play and
nothing else) and a token good for its one seat of this one match
(:mod:`arena.hosted.tokens`). When the match ends, every process of it is
killed and what it printed is kept in the store, for its owner.

The unpacked folders are removed once no process of theirs runs when their version is
neither active, a candidate nor being checked (a retired version named to play is
unpacked again),
and the least recently used go past :data:`KEPT_FOLDERS` (:mod:`arena.hosted.folders`
says why none goes from under a running sandbox).
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import secrets
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

from arena.domain.identity import is_version
from arena.errors import Unavailable
from arena.hosted.archive import unpack
from arena.hosted.bwrap import SOCKET
from arena.hosted.folders import Folders, Lease
from arena.hosted.relay import Relay
from arena.hosted.sandbox import Limits, Sandbox
from arena.hosted.tokens import match_token, token_key
from arena.hosted.zygote import Zygote
from arena.metrics import HOSTED_STARTS
from arena.settings import Settings, private_folder

log = logging.getLogger(__name__)

EXIT_GRACE_S = 2.0  # after its match, a process's time to end by itself before it is killed
DEMAND_S = 60.0  # a version's demand: the most of its matches at once over this long
WARM = 8  # ready processes a host keeps in all, whatever the number of versions
KEPT_FOLDERS = 32  # unpacked folders a machine keeps, the least recently used going first
LIVE = ("active", "candidate", "checking")  # statuses whose folders stay while nothing runs


class Version(Protocol):
    """A hosted version as the host needs it (the store's row is one)."""

    @property
    def id(self) -> int: ...
    @property
    def hash(self) -> str: ...
    @property
    def runtime(self) -> str: ...
    @property
    def entry(self) -> str: ...
    @property
    def status(self) -> str: ...


class Keeper(Protocol):
    """What the host needs of where versions are kept (the store is one): the arena's
    secret its match tokens are signed with, a version by name and its archive, the logs
    its processes leave, and which versions are still worth their unpacked folders."""

    def deal_key(self) -> bytes: ...
    def version(self, name: str) -> Version: ...
    def version_archive(self, version_id: int, into: IO[bytes]) -> int: ...
    def keep_log(self, match_id: str, bot_id: int, log: str, status: int | None) -> None: ...
    def live_version_hashes(self, hashes: Sequence[str]) -> set[str]: ...


@dataclass
class Process:
    """One hosted process in its sandbox, with the relay it reaches the referee by and
    its log's folder; ``key`` is what its match token names (its match's id, or the
    ticket of a warm process, bound to a match when one is given to it)."""

    version: Version
    key: str
    box: Sandbox
    relay: Relay
    folder: tempfile.TemporaryDirectory[str]
    code: Lease  # its version's folder, held while it may run

    def alive(self) -> bool:
        return self.box.wait(timeout=0) is None

    def end(self, store: Keeper, match_id: str) -> None:
        """Once its match is over: a moment to end on its own (a bot is told its match
        ended, and the SDK returns), then every process of it killed; its log kept."""
        status = self.box.wait(timeout=EXIT_GRACE_S)
        if status is None:
            status = self.box.stop(f"still running {EXIT_GRACE_S:g} s after its match ended")
        text = self.box.log_text().replace("\x00", "\\0")  # PostgreSQL's text holds no NUL
        self.discard()
        store.keep_log(match_id, self.version.id, text, status)

    def discard(self) -> None:
        try:
            self.box.stop()
            self.relay.close()
            self.folder.cleanup()
        finally:
            self.code.release()


class Demand:
    """The most matches of a version a host has played at once over the last
    :data:`DEMAND_S`: a sliding window's maximum, kept as the counts that could still be
    it (each larger than every later one), so its size is bounded by the counts seen."""

    def __init__(self, window_s: float = DEMAND_S) -> None:
        self.window_s = window_s
        self._peaks: deque[tuple[float, int]] = deque()  # (when, matches at once)

    def saw(self, count: int, now: float) -> None:
        while self._peaks and self._peaks[-1][1] <= count:
            self._peaks.pop()
        self._peaks.append((now, count))

    def peak(self, now: float) -> int:
        while self._peaks and self._peaks[0][0] < now - self.window_s:
            self._peaks.popleft()
        return self._peaks[0][1] if self._peaks else 0


class Host:
    """Hosted processes for the matches a worker plays, on its store and settings: a
    version's first match here starts its process cold; from then on processes of it are
    kept ready (started, connected, holding a ticket that no match has yet), as many as
    the most of its matches the host played at once in the last :data:`DEMAND_S`
    (``pool``, when given, in place of that demand), and a match takes one, so a
    process's start costs no match any time. Ready processes
    are started by a thread of the host's own, which lives as long as the worker does
    (a sandbox dies with the thread that started it).

    The ready processes are ``warm`` at most in all (default ``ARENA_HOSTED_WARM``,
    :data:`WARM`), however many versions play: a version asked for when they are all
    taken gets one in place of a ready process of the version asked for least recently,
    so that what a host holds while nothing plays does not grow with the versions."""

    def __init__(
        self,
        store: Keeper,
        settings: Settings,
        limits: Limits | None = None,
        pool: int | None = None,
        warm: int | None = None,
        zygote: bool = True,
    ) -> None:
        self.store = store
        self.settings = settings
        self.limits = limits or Limits()
        self.pool = pool
        self.warm = settings.hosted_warm if warm is None else warm
        self._asked: dict[str, None] = {}  # the versions asked for, least recently first
        self._playing: dict[str, int] = {}  # matches playing now, by version
        self._demand: dict[str, Demand] = {}  # by version, while it has processes ready
        self._key: bytes | None = None
        self._unpacking = threading.Lock()
        self._ready: dict[str, list[Process]] = {}  # by version name
        self._lock = threading.Lock()
        self._filled = threading.Condition(self._lock)  # a ready process was added
        self._wanted: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._zygote: Zygote | None = None  # python's, started at its first process
        self._forks = zygote and os.geteuid() == 0  # as another user: no zygote
        self._zygote_lock = threading.Lock()
        if pool != 0:
            threading.Thread(target=self._fill, name="warm-pool", daemon=True).start()

    @property
    def key(self) -> bytes:
        if self._key is None:
            self._key = token_key(self.store.deal_key())
        return self._key

    @contextlib.contextmanager
    def seated(self, match_id: str, seats: Sequence[str]) -> Iterator[dict[str, str]]:
        """While the match plays: a process for each version among ``seats``, a ready
        one if there is one, else one started now. Yields the keys their tokens name, by
        seat (RunMatch's ``hosted_keys``). Unavailable where no sandbox can be made."""
        names = [s for s in dict.fromkeys(seats) if is_version(s)]
        if not names:
            yield {}
            return
        playing: list[Process] = []
        try:
            for name in names:
                process = self._take(name) or self._start(
                    name, self.store.version(name), match_id, "cold"
                )
                playing.append(process)
                with self._lock:
                    count = self._playing[name] = self._playing.get(name, 0) + 1
                    self._demand.setdefault(name, Demand()).saw(count, time.monotonic())
                    self._asked.pop(name, None)
                    self._asked[name] = None
                if self.pool != 0:
                    self._wanted.put(name)
            yield {name: p.key for name, p in zip(names, playing, strict=True)}
        finally:
            for process in playing:
                process.end(self.store, match_id)
            with self._lock:
                for name in names[: len(playing)]:
                    self._playing[name] -= 1
                    if not self._playing[name]:
                        del self._playing[name]
            self.prune()

    def wanted(self, name: str) -> int:
        """Under the lock: how many ready processes of the version to keep."""
        if self.pool is not None:
            return self.pool
        demand = self._demand.get(name)
        return max(1, demand.peak(time.monotonic())) if demand else 1

    def kept(self) -> dict[str, int]:
        """The ready processes, by version (those with none left out)."""
        with self._lock:
            return {name: len(ready) for name, ready in self._ready.items() if ready}

    def wait_ready(self, name: str, count: int, timeout_s: float) -> bool:
        """Whether ``count`` processes of the version are ready within ``timeout_s``."""
        with self._filled:
            return self._filled.wait_for(lambda: len(self._ready.get(name, [])) >= count, timeout_s)

    def close(self) -> None:
        """Stop the ready processes."""
        with self._lock:
            ready, self._ready = self._ready, {}
        for processes in ready.values():
            for p in processes:
                p.discard()
        with self._zygote_lock:
            if self._zygote is not None:
                self._zygote.close()
                self._zygote = None

    def zygote(self) -> Zygote | None:
        """The host's zygote for python bots (arena/hosted/zygote.py), started when first
        needed and again should it have died; None where it cannot start (logged): a
        python bot then starts its own interpreter, as a node or exec bot does."""
        with self._zygote_lock:
            if self._zygote is not None and not self._zygote.alive():
                log.warning("the hosted bots' zygote ended; starting another")
                self._zygote.close()
                self._zygote = None
            if self._zygote is None and self._forks:
                try:
                    self._zygote = Zygote()
                except Unavailable as e:
                    log.warning("python bots start their own interpreters: %s", e)
            return self._zygote

    def _take(self, name: str) -> Process | None:
        """A ready process of the version, if one is alive (one whose ticket waited too
        long has been refused by the referee, and has ended)."""
        while True:
            with self._lock:
                ready = self._ready.get(name)
                if not ready:
                    return None
                process = ready.pop(0)
            if process.alive():
                return process
            process.discard()

    def _fill(self) -> None:
        """The pool's thread: for each version asked for (once per match it plays), starts
        ready processes until it has as many as it wants (:meth:`wanted`), starting at
        most that many."""
        while True:
            name = self._wanted.get()
            try:
                version = self.store.version(name)
                if version.status not in LIVE:  # named to play: it starts cold
                    continue
                with self._lock:
                    wanted = self.wanted(name)
                for _ in range(wanted):  # a version whose processes die at once: no more
                    with self._lock:
                        ready = self._ready.setdefault(name, [])
                        dead = [p for p in ready if not p.alive()]
                        ready[:] = [p for p in ready if p not in dead]
                        enough = len(ready) >= wanted
                        room, evicted = (False, None) if enough else self._room(name)
                    for p in dead + ([evicted] if evicted else []):
                        p.discard()
                    if enough or not room:
                        break
                    ticket = f"ticket-{secrets.token_hex(8)}"
                    process = self._start(name, version, ticket, "warm")
                    with self._filled:
                        self._ready.setdefault(name, []).append(process)
                        self._filled.notify_all()
            except Exception:  # the next match starts its process cold
                log.exception("could not start a ready process of %s", name)

    def _room(self, name: str) -> tuple[bool, Process | None]:
        """Under the lock: whether one more ready process of ``name`` fits among the
        ``warm`` kept, and the ready process that must go to make room for it (one of the
        version asked for least recently, but ``name``), if one must; the versions with
        nothing ready are forgotten meanwhile."""
        self._asked.setdefault(name, None)
        for other in [n for n in self._asked if n != name and not self._ready.get(n)]:
            del self._asked[other]
            self._ready.pop(other, None)
            if other not in self._playing:
                self._demand.pop(other, None)
        if sum(len(r) for r in self._ready.values()) < self.warm:
            return True, None
        for other in self._asked:
            if other != name and self._ready.get(other):
                return True, self._ready[other].pop(0)
        return False, None

    def prune(self) -> list[str]:
        """Stop the ready processes of versions no longer live (LIVE: active, a candidate
        or being checked; and those that have ended), then remove the folders no process
        holds whose versions are not live, and the least recently used past
        KEPT_FOLDERS; the hashes of the folders removed. After every match with hosted
        seats, and every check: a failure is logged, never the match's."""
        try:
            with self._lock:
                waiting = {p.version.hash for ps in self._ready.values() for p in ps}
            live = self.store.live_version_hashes(sorted(waiting)) if waiting else set()
            with self._lock:
                stale = [
                    p for ps in self._ready.values() for p in ps
                    if p.version.hash not in live or not p.alive()
                ]  # fmt: skip
                gone = {id(p) for p in stale}
                for ps in self._ready.values():
                    ps[:] = [p for p in ps if id(p) not in gone]
            for p in stale:
                p.discard()
            return self.folders.prune(self.store.live_version_hashes, KEPT_FOLDERS)
        except Exception:
            log.exception("could not remove unpacked versions")
            return []

    @property
    def folders(self) -> Folders:
        return Folders(private_folder(self.settings.home / "hosted"))

    def _start(self, name: str, version: Version, key: str, kind: str) -> Process:
        """A process of the version started, its key ``key``, for a match (``kind``
        cold) or ready ahead of one (warm). Should any step fail, what the steps before
        made is undone, the sandbox stopped before its folder is let go."""
        s = self.settings
        token = match_token(self.key, key, name)
        env = {"ARENA_ADDRESS": f"unix:{SOCKET}", "ARENA_TOKEN": token}
        with contextlib.ExitStack() as undo:
            code = self.code(version)
            undo.callback(code.release)
            relay = Relay(s.organizer_referee(), token=token, ca_file=s.ca_file, tls=s.tls)
            undo.callback(relay.close)
            folder = tempfile.TemporaryDirectory(prefix="truco-hosted-")
            undo.callback(folder.cleanup)
            box = Sandbox(
                code.path, version.runtime, version.entry, env=env, socket=relay.path,
                log=Path(folder.name) / "log", limits=self.limits,
                zygote=self.zygote() if version.runtime == "python" else None,
            )  # fmt: skip
            undo.callback(box.stop)
            box.start()
            undo.pop_all()
        HOSTED_STARTS.labels(version.runtime, kind).inc()
        return Process(version, key, box, relay, folder, code)

    def code(self, version: Version) -> Lease:
        """The version's folder on this machine, held until the lease is released:
        unpacked from the store when it is not there (streamed into a file beside it,
        then unpacked; one unpacking at a time in this process)."""

        def fill(into: Path) -> None:
            with (into.parent / "archive").open("w+b") as archive:
                self.store.version_archive(version.id, archive)
                unpack(archive, into)

        with self._unpacking:
            return self.folders.lease(version.hash, fill)
