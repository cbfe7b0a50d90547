"""Create a study, and advance it: start the prediction runs that are missing (their media is
rendered by the runs themselves), then judge each condition once its predictions are finished.

Everything goes through the run and judge services, so every cached result is reused: a
prediction or judgement whose cache key matches an ``ok`` item of any run makes no call."""

from __future__ import annotations

import hashlib
from functools import partial

from django.core.exceptions import ValidationError
from django.db import transaction

from media.renders import ProfileMismatch
from scoring.judges import judge_start
from scoring.models import (
    Endpoint,
    PromptPackage,
    Run,
    RunKind,
    RunStatus,
    Study,
    StudyModel,
    StudyRun,
    StudyTemplate,
)
from scoring.runs import CONDITIONS, RunError, media_profile, run_predict, run_resume
from scoring.studies.templates import COMPOSITE, DIMENSIONS, TEMPLATES
from studio.enqueue import task_named


class StudyError(ValueError):
    """A study that cannot be created or advanced as asked; nothing was written."""


def _contrasts_checked(contrasts, conditions: list[str]) -> list[dict]:
    if not isinstance(contrasts, list):
        raise StudyError("contrasts must be a list of {name, a, b[, dimensions]}")
    names, out = set(), []
    allowed_dims = (*DIMENSIONS, COMPOSITE[0])
    for i, c in enumerate(contrasts, start=1):
        if not isinstance(c, dict) or set(c) - {"name", "a", "b", "dimensions"}:
            raise StudyError(f"contrast {i}: give name, a, b and optionally dimensions")
        name, a, b = c.get("name"), c.get("a"), c.get("b")
        if not isinstance(name, str) or not name.strip() or name in names:
            raise StudyError(f"contrast {i}: needs a name of its own")
        for cond in (a, b):
            if cond not in conditions:
                raise StudyError(f"contrast {name}: {cond!r} is not a condition of the study")
        if a == b:
            raise StudyError(f"contrast {name}: compares {a} with itself")
        entry = {"name": name, "a": a, "b": b}
        if c.get("dimensions") is not None:
            dims = c["dimensions"]
            if (
                not isinstance(dims, list)
                or len(dims) != 2
                or dims[0] == dims[1]
                or any(d not in allowed_dims for d in dims)
            ):
                raise StudyError(
                    f"contrast {name}: dimensions are two of {', '.join(allowed_dims)}"
                )
            entry["dimensions"] = list(dims)
        names.add(name)
        out.append(entry)
    return out


@transaction.atomic
def study_create(
    *,
    name: str,
    template: str,
    endpoints: list[Endpoint],
    package: PromptPackage,
    judge_endpoint: Endpoint,
    judge_package: PromptPackage,
    release=None,
    manifest=None,
    conditions: list[str] | None = None,
    contrasts: list[dict] | None = None,
    common_set: str | None = None,
    judge_unit: str = "candidate",
    judge_seed: int = 0,
    replicates: int = 2000,
    bootstrap_seed: int = 0,
    user=None,
) -> Study:
    """A new study; a template fills in conditions, contrasts and the common set."""
    if template not in StudyTemplate.values:
        raise StudyError(f"unknown template {template!r}; one of: {', '.join(StudyTemplate)}")
    base = TEMPLATES.get(template, {})
    conditions = list(conditions if conditions is not None else base.get("conditions", []))
    contrasts = contrasts if contrasts is not None else base.get("contrasts", [])
    common_set = common_set or base.get("common_set", "pair")
    if manifest is not None:
        release = manifest.release
        if not manifest.is_frozen:
            raise StudyError(f"manifest {manifest.name} is not frozen")
    if release is None or not release.is_frozen:
        raise StudyError("a study needs a frozen release or manifest")
    if not conditions or len(set(conditions)) != len(conditions):
        raise StudyError("a study needs one or more distinct conditions")
    unknown = [c for c in conditions if c not in CONDITIONS]
    if unknown:
        raise StudyError(
            f"unknown condition(s) {', '.join(unknown)}; one of: {', '.join(CONDITIONS)}"
        )
    contrasts = _contrasts_checked(contrasts, conditions)
    endpoints = list(endpoints)
    if not endpoints or len({e.pk for e in endpoints}) != len(endpoints):
        raise StudyError("a study needs one or more distinct endpoints (models)")
    if package.purpose != "prediction":
        raise StudyError(f"package {package.name} is for {package.purpose}, not prediction")
    if judge_package.purpose != "reference_judge":
        raise StudyError(f"the judge package {judge_package.name} is not a reference judge")
    for endpoint in endpoints:
        for condition in conditions:
            try:
                media_profile(condition, media=endpoint.media, frames=endpoint.frames)
            except ProfileMismatch as exc:
                raise StudyError(f"{endpoint.name} under {condition}: {exc}") from None
    if Study.objects.filter(name=name).exists():
        raise StudyError(f"study {name} exists")
    study = Study(
        name=name,
        template=template,
        release=release,
        manifest=manifest,
        conditions=conditions,
        package=package,
        judge_endpoint=judge_endpoint,
        judge_package=judge_package,
        judge_unit=judge_unit,
        judge_seed=judge_seed,
        contrasts=contrasts,
        common_set=common_set,
        replicates=replicates,
        bootstrap_seed=bootstrap_seed,
        created_by=user if user is not None and user.is_authenticated else None,
    )
    try:
        study.full_clean()
    except ValidationError as exc:
        messages = (f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
        raise StudyError("; ".join(messages)) from None
    study.save()
    StudyModel.objects.bulk_create(
        [StudyModel(study=study, endpoint=e, position=i) for i, e in enumerate(endpoints)]
    )
    return study


def run_name(study: Study, condition: str, endpoint: Endpoint | None) -> str:
    """``<study>.<condition>.<endpoint>`` (``judge`` for the judge run); a digest of the endpoint
    name stands in for it when the whole would pass the 80 characters of a run name."""
    tail = "judge" if endpoint is None else endpoint.name
    name = f"{study.name}.{condition}.{tail}"
    if len(name) > 80:
        name = f"{study.name}.{condition}.{hashlib.sha256(tail.encode()).hexdigest()[:12]}"
    return name


def _links(study: Study) -> dict[tuple[str, int | None], StudyRun]:
    return {(sr.condition, sr.endpoint_id): sr for sr in study.study_runs.select_related("run")}


@transaction.atomic
def study_advance(*, study: Study, user=None, retry: bool = False) -> dict:
    """Start what is missing: the prediction run of every (condition, model), and the judge run
    of every condition whose prediction runs are all finished. With ``retry``, runs that exist
    are resumed (their ``api_error`` items are tried again). Returns what was started.

    One advance at a time per study (a row lock; the page, the command and the follow-up task
    may all try at once): the next one sees what the first created. A run that cannot start
    undoes the whole advance."""
    Study.objects.select_for_update().filter(pk=study.pk).first()
    started = {"predictions": [], "judges": [], "nothing_to_judge": []}
    links = _links(study)
    endpoints = study.models_in_order()
    for condition in study.conditions:
        runs = []
        for endpoint in endpoints:
            link = links.get((condition, endpoint.pk))
            if link is None:
                run = run_predict(
                    name=run_name(study, condition, endpoint),
                    endpoint=endpoint,
                    package=study.package,
                    condition=condition,
                    release=study.release,
                    manifest=study.manifest,
                    user=user,
                )
                StudyRun.objects.create(
                    study=study, condition=condition, endpoint=endpoint, run=run
                )
                started["predictions"].append(run.name)
            else:
                run = link.run
                if retry:
                    run = run_resume(run=run)
            runs.append(run)
        judge = links.get((condition, None))
        if judge is not None:
            if retry:
                run_resume(run=judge.run)
            continue
        for run in runs:
            run.refresh_from_db(fields=["status"])
        if not all(r.status == RunStatus.FINISHED for r in runs):
            continue
        if not any(r.items.filter(outcome="ok").exists() for r in runs):
            started["nothing_to_judge"].append(condition)
            continue
        judge_run = judge_start(
            name=run_name(study, condition, None),
            kind=RunKind.REFERENCE,
            endpoint=study.judge_endpoint,
            package=study.judge_package,
            runs=runs,
            unit=study.judge_unit,
            seed=study.judge_seed,
            user=user,
        )
        StudyRun.objects.create(study=study, condition=condition, endpoint=None, run=judge_run)
        started["judges"].append(judge_run.name)
    return started


def study_runs_open(study: Study) -> bool:
    ids = study.study_runs.values_list("run_id", flat=True)
    return Run.objects.filter(pk__in=ids, status=RunStatus.RUNNING).exists()


def study_start(*, study: Study, user=None, retry: bool = False) -> dict:
    """Advance the study now and keep a follow-up task advancing it while its runs work."""
    try:
        started = study_advance(study=study, user=user, retry=retry)
    except RunError as exc:
        raise StudyError(str(exc)) from None
    study_follow(study)
    return started


def study_follow(study: Study) -> None:
    """Queue the task that advances the study again in a few seconds (after commit)."""
    advance_study = task_named("scoring.studies.advance")

    transaction.on_commit(partial(advance_study.apply_async, (study.pk,), countdown=3))
