"""Judge runs: the four judges over other runs' candidates (or a QA answers file), with the same
drivers, retries, cache, provenance and outcomes as predictions."""

from __future__ import annotations

from pathlib import Path

from django.db import transaction

from annotation.models import ReleaseStep
from annotation.rendering import release_step_jobs
from media.renders import ProfileMismatch, media_for_window
from media.windows import WindowUnavailable, condition_window
from scoring.judges.subjects import (
    SubjectError,
    subjects_from_campaign,
    subjects_from_qa_file,
    subjects_from_qa_runs,
    subjects_from_runs,
)
from scoring.judges.units import candidate_units, qa_units, rater_units
from scoring.models import Endpoint, Judgement, PromptPackage, Run, RunItem, RunKind
from scoring.runs.lifecycle import drivers_enqueue
from scoring.runs.services import (
    RunError,
    check_package,
    endpoint_snapshot,
    media_profile,
    provenance,
    run_name_check,
    run_resume,
    same,
)

PURPOSE = {
    RunKind.REFERENCE: "reference_judge",
    RunKind.VIDEO: "video_judge",
    RunKind.RATER: "blind_rater",
    RunKind.QA: "qa_judge",
}
UNITS = ("candidate", "step")


def _video_media(units, *, runs: list[Run], endpoint: Endpoint, condition: str) -> dict:
    """The observation medium of every judged step, in the judge endpoint's interface."""
    profile = media_profile(condition, media=endpoint.media, frames=endpoint.frames)
    if profile is None:
        raise RunError("the video judge needs a condition with media (official by default)")
    samples = {u.sample_id for u in units}
    steps = ReleaseStep.objects.filter(
        release_id__in={r.release_id for r in runs}, sample_id__in=samples
    )
    jobs, missing = release_step_jobs(steps, seed=0)
    if missing:
        raise RunError(f"{len(missing)} judged step(s) have no source video on this instance")
    from media.models import SourceVideo

    media = {}
    for uid, job in jobs.items():
        try:
            window = condition_window(
                condition, step=job.step, previous=job.previous, following=job.following
            )
            media[uid] = media_for_window(
                video=SourceVideo.objects.get(pk=job.video_id),
                window=window,
                profile=profile,
                seed=job.seed,
            )
        except (WindowUnavailable, ProfileMismatch) as exc:
            raise RunError(f"step {uid}: {exc}") from None
    return media


@transaction.atomic
def judge_start(
    *,
    name: str,
    kind: str,
    endpoint: Endpoint,
    package: PromptPackage,
    runs: list[Run] = (),
    qa_file: Path | None = None,
    campaign=None,
    unit: str = "candidate",
    seed: int = 0,
    batch_size: int = 15,
    condition: str = "official",
    user=None,
    retry_failed: bool = False,
    resume: bool = True,
) -> Run:
    """Start judge run ``name`` (or resume it when it exists with the same parameters; without
    ``resume``, an existing run is returned as it is: no item reopened, no call).

    ``campaign``: a human-baseline campaign whose answers the reference judge scores instead of
    runs (``subjects_from_campaign``)."""
    run_name_check(name)
    if kind not in PURPOSE:
        raise RunError(f"unknown judge {kind!r}; one of: {', '.join(PURPOSE)}")
    if unit not in UNITS:
        raise RunError(f"the judging unit is one of: {', '.join(UNITS)}")
    check_package(package, PURPOSE[kind])
    runs = list(runs)
    existing = Run.objects.filter(name=name).first()
    if existing is not None:
        differences = same(existing, kind=kind, endpoint=endpoint, package=package)
        if sorted(existing.sources.values_list("pk", flat=True)) != sorted(r.pk for r in runs):
            differences.append("it judges other runs")
        if (existing.provenance or {}).get("campaign") != (campaign.name if campaign else None):
            differences.append("it judges another campaign")
        if differences:
            raise RunError(f"run {name} exists with other parameters: {'; '.join(differences)}")
        return run_resume(run=existing, retry_failed=retry_failed) if resume else existing
    try:
        if campaign is not None:
            if kind != RunKind.REFERENCE or runs or qa_file is not None:
                raise RunError("a campaign's answers are scored by the reference judge alone")
            subjects, not_judged = subjects_from_campaign(campaign)
        elif kind == RunKind.QA:
            if (qa_file is None) == (not runs):
                raise RunError(
                    "the QA judge takes its answers from QA runs (--run) or from --qa-file "
                    "(JSON Lines), one of the two"
                )
            if runs:
                subjects, not_judged = subjects_from_qa_runs(runs)
            else:
                subjects, not_judged = subjects_from_qa_file(qa_file), {}
        else:
            if not runs or qa_file is not None:
                raise RunError("this judge scores the predictions of one or more --run")
            subjects, not_judged = subjects_from_runs(runs)
        if kind in (RunKind.REFERENCE, RunKind.VIDEO):
            units = candidate_units(
                subjects,
                seed=seed,
                per_step=unit == "step",
                with_reference=kind == RunKind.REFERENCE,
            )
        elif kind == RunKind.RATER:
            units = rater_units(subjects, seed=seed, batch_size=batch_size)
        else:
            units = qa_units(subjects)
    except SubjectError as exc:
        raise RunError(str(exc)) from None
    if not units:
        raise RunError(
            "nothing to judge: the campaign has no answered response yet"
            if campaign is not None
            else "nothing to judge: the runs have no ok predictions"
        )
    media = (
        _video_media(units, runs=runs, endpoint=endpoint, condition=condition)
        if kind == RunKind.VIDEO
        else {}
    )
    releases = {r.release_id for r in runs}
    manifests = {r.manifest_id for r in runs}
    release = runs[0].release if len(releases) == 1 and runs else None
    # A QA run's manifest samples QA groups (no release): the judge run names it in provenance.
    manifest = runs[0].manifest if len(manifests) == 1 and runs and release else None
    if campaign is not None:
        release, manifest = campaign.manifest.release, campaign.manifest
    options = {"seed": seed, "not_judged": not_judged}
    if kind in (RunKind.REFERENCE, RunKind.VIDEO):
        options["unit"] = unit
    if kind == RunKind.RATER:
        options["batch_size"] = batch_size
    prov = provenance(endpoint=endpoint, package=package, release=release, manifest=manifest)
    prov["sources"] = [
        {
            "run": r.name,
            "endpoint": endpoint_snapshot(r.endpoint),
            "package_sha256": r.package.sha256,
            "condition": r.condition,
        }
        for r in runs
    ]
    if qa_file is not None:
        prov["qa_file"] = Path(qa_file).name
    if campaign is not None:
        prov["campaign"] = campaign.name
    run = Run.objects.create(
        name=name,
        kind=kind,
        release=release,
        manifest=manifest,
        condition=condition if kind == RunKind.VIDEO else "",
        endpoint=endpoint,
        package=package,
        options=options,
        provenance=prov,
        created_by=user if user is not None and user.is_authenticated else None,
    )
    run.sources.set(runs)
    items = RunItem.objects.bulk_create(
        [
            RunItem(
                run=run,
                position=i,
                key=u.key[:200],
                sample_id=u.sample_id,
                input=u.data,
                media=media.get(str(u.sample_id)) if media else None,
            )
            for i, u in enumerate(units)
        ],
        batch_size=1000,
    )
    Judgement.objects.bulk_create(
        [
            Judgement(
                run=run,
                item=item,
                subject_kind=m.subject.kind,
                subject_key=m.subject.key,
                prediction_id=m.subject.prediction_id,
                sample_id=m.subject.sample_id,
                candidate_id=m.candidate_id,
                position=m.position,
                candidate=m.subject.candidate,
                reference=m.subject.reference,
            )
            for item, u in zip(items, units, strict=True)
            for m in u.members
        ],
        batch_size=1000,
    )
    drivers_enqueue(run)
    return run
