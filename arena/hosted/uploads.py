"""What uploads of hosted bots may take: how many a referee process takes at once
(:class:`Uploads`), and how much of a bot the store keeps (:class:`Caps`, applied in the
transaction that adds a version, so that two uploads cannot both pass the last place).

An upload in progress costs its referee a spooled file of up to the archive's limit, one
check's memory (a chunk and the members' metadata: arena/hosted/archive.py) and a thread
while it is checked and stored; the caps keep that a constant times :data:`UPLOADS`,
whatever is sent at once. Past a cap the upload is refused at once with
:class:`Exhausted` (RESOURCE_EXHAUSTED), never queued: a queued upload would hold its
client's stream, and its bytes, while it waits.
"""

from __future__ import annotations

import contextlib
import threading
from collections import Counter
from collections.abc import Iterator

from arena.engine import quoted
from arena.errors import Exhausted

UPLOADS = 2  # uploads a referee process takes at once, all bots together
UPLOADS_PER_BOT = 1  # of them, uploads of one bot
UPLOAD_S = 300.0  # how long an upload may take to arrive (32 MiB at about 110 KiB/s)


class Uploads:
    """The uploads a referee process is taking: at most ``per_bot`` of one bot and
    ``total`` in all. Shared by the servicer's calls (on its event loop, or threads)."""

    def __init__(self, per_bot: int = UPLOADS_PER_BOT, total: int = UPLOADS) -> None:
        self.per_bot = per_bot
        self.total = total
        self._lock = threading.Lock()
        self._taking: Counter[str] = Counter()  # uploads in progress, by bot

    @contextlib.contextmanager
    def admitted(self, bot: str) -> Iterator[None]:
        """While an upload of ``bot`` is taken; :class:`Exhausted` at once, saying which
        cap, when it cannot be."""
        with self._lock:
            if self._taking[bot] >= self.per_bot:
                if self.per_bot == 1:
                    said = f"another upload of bot {quoted(bot)} is in progress; try again"
                    raise Exhausted(f"{said} when it ends")
                said = f"{self.per_bot} uploads of bot {quoted(bot)} are in progress; try again"
                raise Exhausted(f"{said} when one ends")
            if self._taking.total() >= self.total:
                raise Exhausted(
                    f"the arena is taking {self.total} uploads already; try again in a moment"
                )
            self._taking[bot] += 1
        try:
            yield
        finally:
            with self._lock:
                self._taking[bot] -= 1
                if not self._taking[bot]:
                    del self._taking[bot]
