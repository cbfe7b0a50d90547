"""Prediction runs: start (or resume) a run over a frozen release or manifest, cancel it, and
the pieces every run shares (endpoint snapshot, provenance, the drivers that work it off).

A run is named; running the same command again with the same name resumes it: items already
``ok`` are never called again, ``api_error`` items (transient by nature) are tried again, and
``parse_failure`` / ``refusal`` items only with ``retry_failed``.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import Release, ReleaseStep
from annotation.models.releases import name_check
from annotation.rendering import release_step_jobs
from media.models import RenderedMedia
from media.renders import ProfileMismatch, frames_profile, media_for_window, media_rerun
from media.windows import (
    FRAME_BUDGET,
    FRAME_CONDITIONS,
    NO_MEDIA_CONDITIONS,
    Condition,
    WindowUnavailable,
    condition_window,
)
from review.models import Manifest
from scoring.models import (
    Endpoint,
    ItemState,
    Judgement,
    MediaInterface,
    Outcome,
    PromptPackage,
    Run,
    RunItem,
    RunKind,
    RunStatus,
)
from scoring.packages import PackageError, package_verified
from scoring.runs.lifecycle import MAX_DRIVERS, driver_count, drivers_enqueue, run_finish_if_done
from scoring.runs.precache import items_from_cache
from studio import services as studio_services

CONDITIONS = (*[c.value for c in Condition], *NO_MEDIA_CONDITIONS)


class RunError(ValueError):
    """A run that cannot start or resume as asked; nothing was written."""


def run_name_check(name: str) -> str:
    """``name`` if it follows the one name rule (``annotation.models.releases.NAME_VALIDATOR``),
    else RunError saying so: a run's name ends up in file names, URLs and download headers."""
    try:
        return name_check(name, what="run name")
    except ValidationError as exc:
        raise RunError(exc.messages[0]) from None


def endpoint_snapshot(endpoint: Endpoint) -> dict:
    """What provenance keeps of an endpoint (never the key, only the name of its variable)."""
    return {
        "name": endpoint.name,
        "base_url": endpoint.base_url,
        "model": endpoint.model,
        "media": endpoint.media,
        "frames": endpoint.frames,
        "json_schema": endpoint.json_schema,
        "open_weights": endpoint.open_weights,
        "api_key_env": endpoint.api_key_env,
    }


def set_snapshot(release: Release | None, manifest: Manifest | None) -> dict | None:
    sealed = manifest or release
    if sealed is None:
        return None
    return {
        "kind": "manifest" if manifest else "release",
        "name": sealed.name,
        "release": release.name if release else None,
        "sample_count": sealed.sample_count,
        "sample_list_sha256": sealed.sample_list_sha256,
        "manifest_sha256": sealed.manifest_sha256,
    }


def provenance(*, endpoint: Endpoint, package: PromptPackage, release, manifest) -> dict:
    checked = package_verified(package)
    return {
        "endpoint": endpoint_snapshot(endpoint),
        "package": {
            "name": package.name,
            "version": package.version,
            "purpose": package.purpose,
            "sha256": package.sha256,
        },
        "sampling": checked.sampling,
        "set": set_snapshot(release, manifest),
    }


def _target_query(release: Release, manifest: Manifest | None):
    if manifest is not None:
        ids = manifest.samples.values("release_step_id")
        return ReleaseStep.objects.filter(pk__in=ids).order_by("sample_id")
    return release.steps.order_by("sample_id")


def target_steps(*, release: Release, manifest: Manifest | None) -> list[ReleaseStep]:
    """The frozen steps of a run, in sample-uid order."""
    return list(_target_query(release, manifest))


def target_step_values(*, release: Release, manifest: Manifest | None, fields) -> list[tuple]:
    """``target_steps`` as tuples of ``fields`` (no model instances: a report of thousands of
    steps reads only the columns it needs)."""
    return list(_target_query(release, manifest).values_list(*fields))


def scene_name(slug: str) -> str:
    """The normalised scene name the scene-only condition shows: 'indoor/art_studio' -> 'art
    studio'."""
    return slug.rsplit("/", 1)[-1].replace("_", " ").replace("-", " ").strip()


def media_profile(condition: str, *, media: str, frames: int) -> str | None:
    """The render profile a condition needs for an endpoint's media interface (None: no media).

    Frame-set conditions are always their frame set (16 frames, or the one boundary frame); a
    clip condition is a clip, or N uniformly sampled frames for a frames endpoint."""
    if condition in NO_MEDIA_CONDITIONS:
        return None
    if condition in FRAME_CONDITIONS:
        return frames_profile(FRAME_BUDGET)
    if media == MediaInterface.FRAMES:
        return frames_profile(frames)
    return "clip"


def same(run: Run, **wanted) -> list[str]:
    differences = []
    for field, value in wanted.items():
        if getattr(run, field) != value:
            differences.append(f"{field} is {getattr(run, field)}, not {value}")
    return differences


def check_package(package: PromptPackage, purpose: str) -> None:
    if package.purpose != purpose:
        raise RunError(f"package {package.name} is for {package.purpose}, not {purpose}")
    try:
        package_verified(package)
    except PackageError as exc:
        raise RunError(str(exc)) from None


@transaction.atomic
def run_predict(
    *,
    name: str,
    endpoint: Endpoint,
    package: PromptPackage,
    condition: str,
    release: Release | None = None,
    manifest: Manifest | None = None,
    user=None,
    retry_failed: bool = False,
    resume: bool = True,
) -> Run:
    """Start prediction run ``name``, or resume it when it exists with the same parameters
    (without ``resume``, an existing run is returned as it is: no item reopened, no call)."""
    run_name_check(name)
    if manifest is not None:
        release = manifest.release
    if release is None or not release.is_frozen:
        raise RunError("a prediction run needs a frozen release or manifest")
    if condition not in CONDITIONS:
        raise RunError(f"unknown condition {condition!r}; one of: {', '.join(CONDITIONS)}")
    check_package(package, "prediction")
    existing = Run.objects.filter(name=name).first()
    if existing is not None:
        differences = same(
            existing,
            kind=RunKind.PREDICTION,
            endpoint=endpoint,
            package=package,
            condition=condition,
            release=release,
            manifest=manifest,
        )
        if differences:
            raise RunError(f"run {name} exists with other parameters: {'; '.join(differences)}")
        return run_resume(run=existing, retry_failed=retry_failed) if resume else existing
    steps = target_steps(release=release, manifest=manifest)
    try:
        profile = media_profile(condition, media=endpoint.media, frames=endpoint.frames)
    except ProfileMismatch as exc:
        raise RunError(str(exc)) from None
    jobs, missing = release_step_jobs(steps, seed=manifest.seed if manifest else 0)
    if profile is not None and missing:
        raise RunError(
            f"{len(missing)} step(s) have no source video on this instance "
            f"(for example {missing[0]}); import the videos first"
        )
    run = Run.objects.create(
        name=name,
        kind=RunKind.PREDICTION,
        release=release,
        manifest=manifest,
        condition=condition,
        endpoint=endpoint,
        package=package,
        options={"media_profile": profile},
        provenance=provenance(
            endpoint=endpoint, package=package, release=release, manifest=manifest
        ),
        created_by=user if user is not None and user.is_authenticated else None,
    )
    videos: dict[int, object] = {}
    items, skipped = [], []
    for step in steps:
        uid = str(step.sample_id)
        item = RunItem(run=run, position=len(items), key=uid, sample_id=step.sample_id)
        if profile is None:
            if condition == "scene_only":
                item.input = {
                    "evidence": {"kind": "scene name", "scene": scene_name(step.scene_slug)}
                }
            else:
                item.input = {"evidence": {"kind": "none"}}
        else:
            job = jobs[uid]
            if job.video_id not in videos:
                from media.models import SourceVideo

                videos[job.video_id] = SourceVideo.objects.get(pk=job.video_id)
            try:
                window = condition_window(
                    condition, step=job.step, previous=job.previous, following=job.following
                )
                item.media = media_for_window(
                    video=videos[job.video_id], window=window, profile=profile, seed=job.seed
                )
            except (WindowUnavailable, ProfileMismatch) as exc:
                skipped.append({"sample": uid, "reason": str(exc)})
                continue
        items.append(item)
    items_from_cache(run, items)
    RunItem.objects.bulk_create(items, batch_size=1000)
    run_finish_if_done(run.pk)
    if skipped:
        run.provenance["skipped"] = skipped
        run.save(update_fields=["provenance"])
    pending = sum(1 for i in items if i.state == ItemState.PENDING)
    drivers_enqueue(run, count=min(pending, driver_count(endpoint), MAX_DRIVERS))
    run.refresh_from_db()
    return run


REOPENED = {
    False: [Outcome.API_ERROR],
    True: [Outcome.API_ERROR, Outcome.PARSE_FAILURE, Outcome.REFUSAL],
}


@transaction.atomic
def run_resume(*, run: Run, retry_failed: bool = False) -> Run:
    """Open the run again: api_error items (and with ``retry_failed`` parse failures and
    refusals) go back to pending; ok items stay as they are. Queues its drivers."""
    if run.kind == RunKind.PREDICTION:
        check_package(run.package, "prediction")
    else:
        check_package(run.package, run.package.purpose)
    reopened = run.items.filter(state=ItemState.DONE, outcome__in=REOPENED[retry_failed])
    ids = list(reopened.values_list("pk", flat=True))
    # A dialogue's turns after a reopened one wait for it again (QA runs).
    RunItem.objects.filter(
        run=run,
        state=ItemState.NOT_ASKED,
        sample_id__in=reopened.exclude(sample_id=None).values("sample_id"),
    ).update(state=ItemState.WAITING, error="")
    RunItem.objects.filter(pk__in=ids).update(
        state=ItemState.PENDING,
        outcome="",
        prediction=None,
        detail="",
        attempts=0,
        finished_at=None,
        error="",
    )
    Judgement.objects.filter(item_id__in=ids).update(outcome="", **JUDGEMENT_BLANK)
    failed_media = (
        run.items.filter(state=ItemState.PENDING, media__status=RenderedMedia.Status.FAILED)
        .values_list("media_id", flat=True)
        .distinct()
    )
    media_rerun(media_ids=list(failed_media))
    Run.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING, finished_at=None, error="")
    run_finish_if_done(run.pk)  # nothing reopened: finished again at once, no driver needed
    run.refresh_from_db()
    if run.status == RunStatus.RUNNING:
        drivers_enqueue(run)
    return run


JUDGEMENT_BLANK = {
    "local": None,
    "procedural": None,
    "next": None,
    "match_type": "",
    "band_consistent": None,
    "reasons": None,
    "gf": None,
    "hic": None,
    "tpc": None,
    "npf": None,
    "correct": None,
    "score": None,
    "review": False,
    "justification": "",
}


def run_cancel(*, run: Run) -> bool:
    """Stop a running run: no new call starts; calls in flight finish and are kept."""
    return bool(
        Run.objects.filter(pk=run.pk, status=RunStatus.RUNNING).update(
            status=RunStatus.CANCELLED, finished_at=studio_services.now()
        )
    )
