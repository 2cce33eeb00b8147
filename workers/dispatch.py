"""Handing work to the workers from the Arena API: a tournament run to plan, matches to
play, by id (workers/tasks.py takes them from there). Matches go on the arena's queue,
everything else on its control queue (workers/app.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.embedded import broker_url
from arena.settings import Settings


class Dispatcher:
    """Sends the workers' tasks to the settings' broker and queue. A Celery client of its
    own, so any number of settings can be used in one process; Celery is imported and the
    broker reached when the first task is sent, not before."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._client: Any = None

    def _send(self, task: str, *args: object, control: bool = True, queue: str = "") -> None:
        if self._client is None:
            from celery import Celery

            broker = broker_url(self.settings)
            self._client = Celery("arena-client", broker=broker, set_as_current=False)
        queue = queue or (self.settings.control_queue if control else self.settings.queue)
        self._client.send_task(task, args=list(args), queue=queue)

    def start_run(self, run_id: int) -> None:
        self._send("arena.start_run", run_id)

    def finish_run(self, run_id: int) -> None:
        self._send("arena.finish_run", run_id)

    def check(self, version: str) -> None:
        self._send("arena.check_version", version)

    def sprt(self, test_id: int) -> None:
        self._send("arena.sprt", test_id)

    def ladder(self, pool: str) -> None:
        self._send("arena.ladder", pool)

    def play(self, match_ids: Sequence[str]) -> None:
        for match_id in match_ids:
            self._send("arena.play_match", match_id, control=False)

    def analyse(self, match_id: str, samples: int) -> None:
        self._send("arena.analyse", match_id, samples, queue=self.settings.analysis_queue)
