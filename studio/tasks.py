from celery import shared_task

import studio.celery  # noqa: F401  (the app these tasks bind to; studio/__init__.py)


# Neither is acknowledged late: a lost ping is sent again by whoever waits for it, and a lost
# sweep is replaced by the next one of the beat schedule.
@shared_task(name="studio.ping")
def ping(token: str) -> str:
    """Round trip through broker, worker and result backend (used by the smoke test)."""
    return f"pong:{token}"


@shared_task(name="studio.sweep_leases")
def sweep_leases() -> dict[str, dict[str, int]]:
    """Re-enqueue work whose lease expired (Celery beat runs this every LEASE_SWEEP_SECONDS)."""
    from studio.leases import leases_sweep

    return leases_sweep()
