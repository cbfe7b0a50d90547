from celery import shared_task


@shared_task(name="studio.ping")
def ping(token: str) -> str:
    """Round trip through broker, worker and result backend (used by the smoke test)."""
    return f"pong:{token}"
