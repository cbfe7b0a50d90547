"""Project-wide services: worker liveness and the health report."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import connection
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


def health_report() -> dict:
    """Database, broker and worker status; ``ok`` only when all three are fine."""
    report: dict = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        report["database"] = {"ok": True, "vendor": connection.vendor}
    except Exception as exc:  # any failure is the answer, not an error page
        report["database"] = {"ok": False, "error": str(exc)}

    from studio.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
            transport = conn.transport_cls
        report["broker"] = {"ok": True, "transport": str(transport)}
    except Exception as exc:
        report["broker"] = {"ok": False, "error": str(exc)}

    if report["database"]["ok"]:
        workers = live_workers()
        report["workers"] = {
            "ok": bool(workers),
            "live": [{"hostname": w.hostname, "queues": w.queues} for w in workers],
        }
    else:
        report["workers"] = {"ok": False, "error": "database unavailable"}
    report["ok"] = all(part["ok"] for part in report.values())
    return report
