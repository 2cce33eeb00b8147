"""The Celery app. Its broker comes from the settings (``ARENA_BROKER_URL``, else the
embedded Redis), set when a worker or the scheduler starts (:func:`configure`), so
importing this module starts nothing. Match status lives in PostgreSQL: there is no
result backend."""

from __future__ import annotations

from collections.abc import Callable

from celery import Celery
from celery.schedules import crontab

from arena.settings import Settings
from workers import broker

broker.install()
app = Celery("arena", include=["workers.tasks"])
app.conf.update(
    task_acks_late=True,  # a task is acknowledged when done: a killed worker's comes back
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,  # a worker takes one task per free slot, no more
    task_ignore_result=True,
    timezone="UTC",
    broker_connection_retry_on_startup=True,
    worker_hijack_root_logger=False,
    beat_schedule={"dispatch-due": {"task": "arena.dispatch_due", "schedule": crontab()}},
)


def configure(settings: Settings) -> Celery:
    """Point the app at the settings' broker (starting the embedded Redis if needed)."""
    app.conf.update(
        broker_url=settings.broker(),
        task_default_queue=settings.queue,
        broker_transport_options={
            "visibility_timeout": settings.visibility_timeout_s,
            # Redis: look for the tasks of dead workers often enough to match the timeout
            "unacked_restore_interval": max(1, min(10, settings.visibility_timeout_s // 4)),
            "unacked_restore_throttle": 1,
        },
        beat_schedule_filename=str(settings.home / "beat-schedule"),
    )
    return app


def run_starter(settings: Settings) -> Callable[[int], None]:
    """A function that hands a run (by id) to the workers, for the Arena API and the CLI:
    a client of its own, so any number of settings can be used in one process."""
    client = Celery("arena-client", broker=settings.broker(), set_as_current=False)

    def start(run_id: int) -> None:
        client.send_task("arena.start_run", args=[run_id], queue=settings.queue)

    return start
