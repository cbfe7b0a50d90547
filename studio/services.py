"""Project-wide services: the clock, worker liveness."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from studio.models import WorkerHeartbeat


def now():
    """The one clock of the project; tests move time by patching this function."""
    return timezone.now()


def worker_heartbeat(*, hostname: str, queues: str = "") -> None:
    WorkerHeartbeat.objects.update_or_create(
        hostname=hostname, defaults={"last_seen": now(), "queues": queues[:255]}
    )


def live_workers() -> list[WorkerHeartbeat]:
    horizon = now() - timedelta(seconds=3 * settings.WORKER_HEARTBEAT_SECONDS)
    return list(WorkerHeartbeat.objects.filter(last_seen__gte=horizon).order_by("hostname"))
