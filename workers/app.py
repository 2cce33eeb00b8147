"""The Celery app. Its broker comes from the settings (``ARENA_BROKER_URL``, else the
embedded Redis), set when a worker or the scheduler starts (:func:`configure`), so
importing this module starts nothing. Match status lives in PostgreSQL: there is no
result backend.

Two queues: the matches to play (``ARENA_QUEUE``), and the control tasks that start,
finish, check and schedule (``ARENA_QUEUE.control``, :data:`CONTROL`), which every worker
consumes too and takes first: on Redis the control queue is asked first at every fetch
(``queue_order_strategy: priority``); on RabbitMQ both queues deliver to the worker's
free slots as they come, so a control task waits for one slot at most. Neither waits
behind a run's matches, which runs keep a window of (arena/usecases/runs.py).

A third queue, asked last, holds the analyses of matches (``ARENA_QUEUE.analyses``,
:data:`ANALYSES`): on Redis a worker takes one only when no match and no control task
waits; on RabbitMQ, where it may take one earlier, the task itself puts the analysis back
behind what waits (workers/tasks.py): an analysis never runs ahead of play (docs/web.md)."""

from __future__ import annotations

import logging
import os
import secrets
import threading
from typing import Any

from celery import Celery, beat, signals
from celery.schedules import crontab
from kombu.entity import Queue

from arena.domain.matchmaking import TICK_S
from arena.embedded import broker_url
from arena.metrics import TASKS_SENT
from arena.settings import Settings
from workers import broker

log = logging.getLogger(__name__)

broker.install()
app = Celery("arena", include=["workers.tasks"])
app.conf.update(
    task_acks_late=True,  # a task is acknowledged when done: a killed worker's comes back
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,  # a worker takes one task per free slot, no more
    task_ignore_result=True,
    timezone="UTC",
    broker_connection_retry_on_startup=True,
)


@signals.setup_logging.connect
def _process_logging(**kwargs: Any) -> None:
    """Celery leaves the logging alone: its lines (and the tasks') go to the root logger
    that the command line set up (arena/logs.py), in its format and at its level."""


CONTROL = (
    "arena.start_run",
    "arena.finish_run",
    "arena.dispatch_due",
    "arena.ladder",
    "arena.sprt",
    "arena.check_version",
)
"""The tasks that go on the control queue."""
ANALYSES = ("arena.analyse",)
"""The tasks that go on the analyses' queue, asked after every other."""


def node_name() -> str:
    """A worker's Celery node name when none is given: its pid and a random part on this
    host (``%h``), so that any number of workers coexist on one host and broker. Two with
    one name could not: on RabbitMQ a node's remote-control queue (``NAME.celery.pidbox``)
    is exclusive, and the second worker died of RESOURCE_LOCKED."""
    return f"arena-{os.getpid()}-{secrets.token_hex(3)}@%h"


class Standby(beat.Scheduler):  # type: ignore[misc]  # Celery has no type hints
    """The scheduler of a beat on standby (``arena beat --standby``, ``ARENA_STANDBY``):
    its entries fall due as usual, and each is logged and dropped, never sent."""

    def setup_schedule(self) -> None:
        super().setup_schedule()
        log.warning("on standby: this beat sends nothing (no cron firing, sweep or ladder)")

    def apply_entry(self, entry: beat.ScheduleEntry, producer: object = None) -> None:
        log.info("on standby: %s not sent", entry.name)


def drain_at_most(seconds: float) -> None:
    """Make a worker told to stop (SIGTERM: Celery's warm shutdown, which waits for every
    task in progress) wait ``seconds`` at most: then it exits with status 1 (as Celery's
    cold shutdown does), and the tasks it leaves, never acknowledged, are delivered again
    (a match in play is joined at the referee, one recorded is not played twice)."""

    def leave() -> None:
        log.warning("tasks still in progress %.0f s after the stop: leaving them", seconds)
        logging.shutdown()  # the log's last lines written
        os._exit(1)

    def stopping(**_: object) -> None:
        timer = threading.Timer(seconds, leave)
        timer.daemon = True
        timer.start()

    signals.worker_shutting_down.connect(stopping, weak=False, dispatch_uid="arena-drain")


def configure(settings: Settings) -> Celery:
    """Point the app at the settings' broker (starting the embedded Redis if needed)."""
    control = settings.control_queue
    dispatch = crontab() if settings.dispatch_s is None else settings.dispatch_s
    app.conf.update(
        beat_schedule={
            "dispatch-due": {"task": "arena.dispatch_due", "schedule": dispatch},
            # a look that waited longer than the next one is dropped, not piled up
            "ladder": {
                "task": "arena.ladder",
                "schedule": TICK_S,
                "options": {"expires": TICK_S},
            },
        },
        broker_url=broker_url(settings),
        task_default_queue=settings.queue,
        # in the order they are asked
        task_queues=[Queue(control), Queue(settings.queue), Queue(settings.analysis_queue)],
        task_routes={name: {"queue": control} for name in CONTROL}
        | {name: {"queue": settings.analysis_queue} for name in ANALYSES},
        broker_transport_options={
            "queue_order_strategy": "priority",
            "visibility_timeout": settings.visibility_timeout_s,
            # Redis: look for the tasks of dead workers often enough to match the timeout
            "unacked_restore_interval": max(1, min(10, settings.visibility_timeout_s // 4)),
            "unacked_restore_throttle": 1,
        },
        # the beat keeps its schedule in memory: its entries repeat every minute or less,
        # so there is nothing worth a file, and beats sharing an ARENA_HOME shared one
        beat_scheduler=f"{__name__}:Standby" if settings.standby else "celery.beat:Scheduler",
    )
    drain_at_most(settings.worker_drain_s)
    return app


@signals.after_task_publish.connect(weak=False, dispatch_uid="arena-tasks-sent")
def _sent(sender: Any = None, **kwargs: Any) -> None:
    """A task handed to the broker (by the beat, or by a worker), in this process's
    metrics (arena/metrics.py)."""
    TASKS_SENT.labels(sender).inc()
