from celery import shared_task


@shared_task(name="studio.ping")
def ping(token: str) -> str:
    """Round trip through broker, worker and result backend (used by the smoke test)."""
    return f"pong:{token}"


@shared_task(name="studio.sweep_leases")
def sweep_leases() -> dict[str, dict[str, int]]:
    """Re-enqueue work whose lease expired (Celery beat runs this every LEASE_SWEEP_SECONDS)."""
    from studio.leases import leases_sweep

    return leases_sweep()
