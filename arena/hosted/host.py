"""A worker's side of hosted bots: the processes of a match's hosted seats, started
before the referee plays it and gone when it ends.

For each version seated, a fresh sandbox (:mod:`arena.hosted.sandbox`) runs its code,
unpacked once per machine from the store, with nothing in its environment but the way
out (the relay's socket, :mod:`arena.hosted.relay`) and a token good for its one seat of
this one match (:mod:`arena.hosted.tokens`). When the match ends, every process of it is
killed and what it printed is kept in the store, for its owner.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import tempfile
import threading
from collections.abc import Iterator, Sequence
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


class Host:
    """Hosted processes for the matches a worker plays, on its store and settings."""

    def __init__(self, store: Store, settings: Settings, limits: Limits | None = None) -> None:
        self.store = store
        self.settings = settings
        self.limits = limits or Limits()
        self._key: bytes | None = None
        self._unpacking = threading.Lock()

    @property
    def key(self) -> bytes:
        if self._key is None:
            self._key = token_key(self.store.deal_key())
        return self._key

    @contextlib.contextmanager
    def seated(self, match_id: str, seats: Sequence[str]) -> Iterator[None]:
        """While the match plays: a process for each version among ``seats``.
        Unavailable (before anything starts) where no sandbox can be made."""
        versions = [self.store.version(s) for s in dict.fromkeys(seats) if is_version(s)]
        if not versions:
            yield
            return
        s = self.settings
        with (
            Relay(s.organizer_referee(), ca_file=s.ca_file, tls=s.tls) as relay,
            tempfile.TemporaryDirectory(prefix="truco-logs-") as logs,
            contextlib.ExitStack() as running,
        ):
            boxes = []
            for name, version in zip(
                [s for s in dict.fromkeys(seats) if is_version(s)], versions, strict=True
            ):
                env = {
                    "ARENA_ADDRESS": f"unix:{SOCKET}",
                    "ARENA_TOKEN": match_token(self.key, match_id, name),
                }
                box = Sandbox(
                    self.code(version), version.runtime, version.entry, env=env,
                    socket=relay.path, log=Path(logs) / f"{version.id}.log", limits=self.limits,
                )  # fmt: skip
                running.callback(self._ended, match_id, version, box)
                box.start()
                boxes.append(box)
            yield

    def _ended(self, match_id: str, version: BotVersionRow, box: Sandbox) -> None:
        """Once its match is over: a moment to end on its own (a bot is told its match
        ended, and the SDK returns), then every process of it killed; its log kept."""
        status = box.wait(timeout=EXIT_GRACE_S)
        if status is None:
            status = box.stop()
        text = box.log_text().replace("\x00", "\\0")  # PostgreSQL's text holds no NUL
        self.store.keep_log(match_id, version.id, text, status)

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
