"""The health report behind /healthz: the database, the broker (through the Celery app) and a
live worker. Above ``studio.services`` and ``studio.celery``: the Celery app imports the
services (the worker heartbeat), never the reverse."""

from __future__ import annotations

from django.db import connection

from studio.services import live_workers


def health_report() -> dict:
    """Database, broker and worker status; ``ok`` only when all three are fine."""
    report: dict = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        report["database"] = {"ok": True, "vendor": connection.vendor}
    except Exception as exc:  # any failure is the answer, not an error page
        report["database"] = {"ok": False, "error": str(exc)}

    from studio.celery import app  # Celery is loaded by the health check, not by every page

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
