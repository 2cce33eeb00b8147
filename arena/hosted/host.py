"""A worker's side of hosted bots: the processes of a match's hosted seats, started
before the referee plays it and gone when it ends.

For each version seated, a fresh sandbox (:mod:`arena.hosted.sandbox`) runs its code,
unpacked once per machine from the store, with nothing in its environment but the way
out (the relay's socket, :mod:`arena.hosted.relay`, which carries that token's Play and
nothing else) and a token good for its one seat of this one match
(:mod:`arena.hosted.tokens`). When the match ends, every process of it is
killed and what it printed is kept in the store, for its owner.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import secrets
import shutil
import tempfile
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.hosted.archive import unpack
from arena.hosted.relay import Relay
from arena.hosted.sandbox import SOCKET, Limits, Sandbox
from arena.hosted.tokens import is_version, match_token, token_key
from arena.settings import Settings, private_folder
from arena.store.rows import BotVersionRow
from arena.store.store import Store

log = logging.getLogger(__name__)

EXIT_GRACE_S = 2.0  # after its match, a process's time to end by itself before it is killed
POOL = 2  # ready processes kept per version in use


@dataclass
class Process:
    """One hosted process in its sandbox, with the relay it reaches the referee by and
    its log's folder; ``key`` is what its match token names (its match's id, or the
    ticket of a warm process, bound to a match when one is given to it)."""

    version: BotVersionRow
    key: str
    box: Sandbox
    relay: Relay
    folder: tempfile.TemporaryDirectory[str]

    def alive(self) -> bool:
        return self.box.wait(timeout=0) is None

    def end(self, store: Store, match_id: str) -> None:
        """Once its match is over: a moment to end on its own (a bot is told its match
        ended, and the SDK returns), then every process of it killed; its log kept."""
        status = self.box.wait(timeout=EXIT_GRACE_S)
        if status is None:
            status = self.box.stop()
        text = self.box.log_text().replace("\x00", "\\0")  # PostgreSQL's text holds no NUL
        self.discard()
        store.keep_log(match_id, self.version.id, text, status)

    def discard(self) -> None:
        self.box.stop()
        self.relay.close()
        self.folder.cleanup()


class Host:
    """Hosted processes for the matches a worker plays, on its store and settings: a
    version's first match here starts its process cold; from then on ``pool`` processes
    of it are kept ready (started, connected, holding a ticket that no match has yet),
    and a match takes one, so a process's start costs no match any time. Ready processes
    are started by a thread of the host's own, which lives as long as the worker does
    (a sandbox dies with the thread that started it)."""

    def __init__(
        self, store: Store, settings: Settings, limits: Limits | None = None, pool: int = POOL
    ) -> None:
        self.store = store
        self.settings = settings
        self.limits = limits or Limits()
        self.pool = pool
        self._key: bytes | None = None
        self._unpacking = threading.Lock()
        self._ready: dict[str, list[Process]] = {}  # by version name
        self._lock = threading.Lock()
        self._filled = threading.Condition(self._lock)  # a ready process was added
        self._wanted: queue.SimpleQueue[str] = queue.SimpleQueue()
        if pool:
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
                process = self._take(name) or self._start(name, self.store.version(name), match_id)
                playing.append(process)
                if self.pool:
                    self._wanted.put(name)
            yield {name: p.key for name, p in zip(names, playing, strict=True)}
        finally:
            for process in playing:
                process.end(self.store, match_id)

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
        ready processes until it has ``pool`` of them, starting at most that many."""
        while True:
            name = self._wanted.get()
            try:
                version = self.store.version(name)
                if version.status == "rejected":
                    continue
                for _ in range(self.pool):  # a version whose processes die at once: no more
                    with self._lock:
                        ready = self._ready.setdefault(name, [])
                        dead = [p for p in ready if not p.alive()]
                        ready[:] = [p for p in ready if p not in dead]
                        enough = len(ready) >= self.pool
                    for p in dead:
                        p.discard()
                    if enough:
                        break
                    ticket = f"ticket-{secrets.token_hex(8)}"
                    process = self._start(name, version, ticket)
                    with self._filled:
                        self._ready.setdefault(name, []).append(process)
                        self._filled.notify_all()
            except Exception:  # the next match starts its process cold
                log.exception("could not start a ready process of %s", name)

    def _start(self, name: str, version: BotVersionRow, key: str) -> Process:
        s = self.settings
        token = match_token(self.key, key, name)
        relay = Relay(s.organizer_referee(), token=token, ca_file=s.ca_file, tls=s.tls)
        folder = tempfile.TemporaryDirectory(prefix="truco-hosted-")
        env = {"ARENA_ADDRESS": f"unix:{SOCKET}", "ARENA_TOKEN": token}
        box = Sandbox(
            self.code(version), version.runtime, version.entry, env=env, socket=relay.path,
            log=Path(folder.name) / "log", limits=self.limits,
        )  # fmt: skip
        process = Process(version, key, box, relay, folder)
        try:
            box.start()
        except BaseException:
            process.discard()
            raise
        return process

    def code(self, version: BotVersionRow) -> Path:
        """The version's folder on this machine, unpacked from the store the first time
        (into a fresh folder, then renamed: a folder that exists is complete)."""
        root = private_folder(self.settings.home / "hosted")
        folder = root / version.hash
        with self._unpacking:
            if not folder.exists():
                data = self.store.version_archive(version.id)
                fresh = Path(tempfile.mkdtemp(dir=root, prefix=".unpacking-"))
                try:
                    unpack(data, fresh / "bot")
                    (fresh / "bot").rename(folder)
                finally:
                    shutil.rmtree(fresh, ignore_errors=True)
        return folder
