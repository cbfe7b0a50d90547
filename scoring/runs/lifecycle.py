"""A run's life: the drivers queued to work off its pending items, the endpoint settings they
call with, and the moment a run is finished. Both the services that start runs and the drivers
that execute items use it; it imports neither."""

from __future__ import annotations

from functools import partial

from django.db import transaction
from django.db.models import Q

from scoring.models import Endpoint, ItemState, Run, RunItem, RunStatus
from scoring.providers import EndpointConfig
from studio import services as studio_services
from studio.enqueue import task_named

MAX_DRIVERS = 64


def endpoint_config(endpoint: Endpoint) -> EndpointConfig:
    return EndpointConfig(
        key=f"endpoint-{endpoint.pk}",
        name=endpoint.name,
        base_url=endpoint.base_url,
        model=endpoint.model,
        api_key_env=endpoint.api_key_env,
        max_concurrency=endpoint.max_concurrency,
        rpm=endpoint.rpm or 0,
        tpm=endpoint.tpm or 0,
        attempts=endpoint.attempts_allowed,
        timeout_seconds=endpoint.timeout_seconds,
    )


def driver_count(endpoint: Endpoint) -> int:
    """Drivers per run: the endpoint's concurrency and a quarter more (at least two more), so a
    slot freed by one call is taken while its driver stores the result."""
    return endpoint.max_concurrency + max(2, endpoint.max_concurrency // 4)


def drivers_enqueue(run: Run, *, count: int | None = None) -> None:
    """Queue the drivers that work off a run's pending items, after the transaction commits."""
    drive_run = task_named("scoring.models.drive_run")

    if count is None:
        pending = run.items.filter(state=ItemState.PENDING).count()
        count = min(pending, driver_count(run.endpoint), MAX_DRIVERS)
    for _ in range(count):
        transaction.on_commit(partial(drive_run.delay, run.pk))


def run_finish_if_done(run_id: int) -> bool:
    """Mark a running run finished once nothing is pending or running."""
    open_items = RunItem.objects.filter(run_id=run_id).filter(
        Q(state=ItemState.PENDING) | Q(state=ItemState.RUNNING)
    )
    if open_items.exists():
        return False
    return bool(
        Run.objects.filter(pk=run_id, status=RunStatus.RUNNING).update(
            status=RunStatus.FINISHED, finished_at=studio_services.now()
        )
    )
