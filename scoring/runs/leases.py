"""Run items as leased work: the sweeper queues the items of a worker that died again."""

from __future__ import annotations

from functools import partial

from django.db import transaction
from django.db.models import Q

from studio.enqueue import task_named
from studio.leases import WorkKind


def _requeue(item_ids: list[int]) -> None:
    from scoring.models import RunItem

    drive_run = task_named("scoring.models.drive_run")

    for run_id in set(RunItem.objects.filter(pk__in=item_ids).values_list("run_id", flat=True)):
        transaction.on_commit(partial(drive_run.delay, run_id))


def run_item_work() -> WorkKind:
    from scoring.models import RunItem

    return WorkKind(
        name="scoring.run_item",
        model=RunItem,
        running=Q(state="running"),
        requeue=_requeue,
        reset={"state": "pending"},
        # The call may have reached the provider: an api_error, tried again on a rerun.
        fail={"state": "done", "outcome": "api_error", "detail": "the worker stopped repeatedly"},
    )
