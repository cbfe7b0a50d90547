"""Celery tasks of the ``models`` queue (routed by the ``scoring.models.*`` names). Thin."""

from __future__ import annotations

from celery import shared_task


# A driver works off a run's items; the items carry the leases, so a driver killed with its
# worker loses only its calls in flight (the sweeper queues them again).
@shared_task(
    name="scoring.models.drive_run", idempotent=True, acks_late=True, reject_on_worker_lost=True
)
def drive_run(run_id: int) -> int:
    from scoring.runs import run_drive

    return run_drive(run_id=run_id)
