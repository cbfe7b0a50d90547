"""The Celery application. Queues: ``default`` (small jobs), ``media`` (CPU-bound ffmpeg work,
concurrency = cores) and ``models`` (network-bound model and judge calls, high concurrency)."""

from __future__ import annotations

import os

from celery import Celery, Task, bootsteps

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")


class StudioTask(Task):
    """Every task of the project. ``idempotent`` says whether running it twice is harmless (keyed
    by content hash or natural key, results written under a lease). Only such a task may be
    acknowledged late: ``shared_task(idempotent=True, acks_late=True,
    reject_on_worker_lost=True)``, so a worker lost in the middle hands its message back. The
    rule is tested (tests/studio/test_celery.py) for every registered task."""

    idempotent = False


app = Celery("studio", task_cls=StudioTask)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


class Heartbeat(bootsteps.StartStopStep):
    """Writes this worker's heartbeat row so /healthz can tell a live worker from a dead one.

    A row in the database works with every broker, including the filesystem transport, which has
    no broadcast channel for ``celery inspect ping``.
    """

    requires = {"celery.worker.components:Timer"}

    def __init__(self, worker, **kwargs):
        super().__init__(worker, **kwargs)
        self.tref = None

    def start(self, worker):
        from django.conf import settings

        from studio.services import worker_heartbeat

        def beat():
            worker_heartbeat(hostname=worker.hostname, queues=_queue_names(worker))

        beat()
        self.tref = worker.timer.call_repeatedly(settings.WORKER_HEARTBEAT_SECONDS, beat)

    def stop(self, worker):
        if self.tref is not None:
            self.tref.cancel()


def _queue_names(worker) -> str:
    try:
        return ",".join(sorted(q.name for q in worker.app.amqp.queues.consume_from.values()))
    except AttributeError:
        return ""


app.steps["worker"].add(Heartbeat)
