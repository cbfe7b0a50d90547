"""Celery tasks of the ``models`` queue (routed by the ``scoring.models.*`` names). Thin."""

from __future__ import annotations

from celery import shared_task

import studio.celery  # noqa: F401  (the app these tasks bind to; studio/__init__.py)


# A driver works off a run's items; the items carry the leases, so a driver killed with its
# worker loses only its calls in flight (the sweeper queues them again).
@shared_task(
    name="scoring.models.drive_run", idempotent=True, acks_late=True, reject_on_worker_lost=True
)
def drive_run(run_id: int) -> int:
    from scoring.runs import run_drive

    return run_drive(run_id=run_id)


# A study moves on when its runs finish (judges start once a condition's predictions are done);
# this task looks again every few seconds while any of its runs is still working, then stops.
@shared_task(name="scoring.studies.advance")
def advance_study(study_id: int) -> bool:
    from scoring.models import Study
    from scoring.runs import RunError
    from scoring.studies.services import study_advance_settled, study_follow

    study = Study.objects.filter(pk=study_id).first()
    if study is None:
        return False
    try:
        # Settled: a run finishing during the advance gets its judge now, not never.
        started = study_advance_settled(study=study)
    except RunError:  # shown on the study's page and by study_run; nothing more to do here
        return False
    if started["running"]:
        study_follow(study)
        return True
    return False
