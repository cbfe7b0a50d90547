"""Render batches: many steps by conditions by profiles queued as one unit, with progress.

A batch names its items; each item points at a rendered medium of ``media.renders`` (one spec,
one medium, shared by every batch that asks for it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Q

from media.models import RenderBatch, RenderBatchItem, RenderedMedia, SourceVideo
from media.renders import (
    ProfileMismatch,
    media_enqueue,
    media_for_window,
    media_rerun,
    profile_named,
)
from media.windows import StepTimes, WindowUnavailable, condition_window


@dataclass(frozen=True)
class RenderJob:
    """One step to render: the caller's reference, the video and plain times."""

    subject: str
    video_id: int
    step: StepTimes
    previous: StepTimes | None = None
    following: StepTimes | None = None
    seed: int | str = 0


def _step_times(value, what: str, index: int) -> StepTimes | None:
    if value is None:
        return None
    try:
        return StepTimes(*[int(v) for v in value])
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"job {index}: {what} must be [start, cutoff, outcome, end]: {exc}"
        ) from None


def jobs_from_json(raw) -> list[RenderJob]:
    """Render jobs from their JSON form (a list of objects; see ``manage.py render_media``)."""
    if not isinstance(raw, list):
        raise ValueError("jobs must be a JSON list")
    jobs = []
    for i, job in enumerate(raw):
        if not isinstance(job, dict) or "video" not in job or "step" not in job:
            raise ValueError(f"job {i}: needs at least 'video' and 'step'")
        try:
            video_id = int(job["video"])
        except (TypeError, ValueError):
            raise ValueError(f"job {i}: 'video' must be a video id") from None
        jobs.append(
            RenderJob(
                subject=str(job.get("subject", f"job {i}")),
                video_id=video_id,
                step=_step_times(job["step"], "step", i),
                previous=_step_times(job.get("previous"), "previous", i),
                following=_step_times(job.get("next"), "next", i),
                seed=job.get("seed", 0),
            )
        )
    return jobs


def batch_create(
    *,
    jobs: Iterable[RenderJob],
    conditions: Iterable[str],
    profiles: Iterable[str],
    user=None,
    label: str = "",
) -> RenderBatch:
    """Create a batch of jobs x conditions x profiles and queue what is not ready yet.

    A combination that cannot be built (no following step, a clip profile for a frame-set
    condition, an unknown video) becomes an item with its reason instead of stopping the batch.
    """
    conditions, profiles = list(conditions), list(profiles)
    for name in profiles:
        profile_named(name)
    # Media of one step and condition share their frames: each such set renders from one decode.
    groups: dict[tuple[int, str], list[int]] = {}
    queued: set[int] = set()
    with transaction.atomic():
        batch = RenderBatch.objects.create(
            label=label[:200], created_by=user if user and user.is_authenticated else None
        )
        videos: dict[int, SourceVideo | None] = {}
        items = []
        for number, job in enumerate(jobs):
            if job.video_id not in videos:
                videos[job.video_id] = SourceVideo.objects.filter(pk=job.video_id).first()
            video = videos[job.video_id]
            for condition in conditions:
                for profile in profiles:
                    item = RenderBatchItem(
                        batch=batch, subject=job.subject[:200], condition=condition,
                        profile=profile,
                    )  # fmt: skip
                    try:
                        if video is None:
                            raise WindowUnavailable(f"video {job.video_id} does not exist")
                        window = condition_window(
                            condition, step=job.step, previous=job.previous,
                            following=job.following,
                        )  # fmt: skip
                        media = media_for_window(
                            video=video, window=window, profile=profile, seed=job.seed,
                            enqueue=False,
                        )  # fmt: skip
                    except (WindowUnavailable, ProfileMismatch, ValueError) as exc:
                        item.error = str(exc)
                    else:
                        item.media = media
                        item.note = window.note[:200]
                        waiting = (RenderedMedia.Status.PENDING, RenderedMedia.Status.FAILED)
                        if media.status in waiting and media.pk not in queued:
                            queued.add(media.pk)
                            groups.setdefault((number, condition), []).append(media.pk)
                    items.append(item)
        RenderBatchItem.objects.bulk_create(items)
        media_enqueue(
            media_ids=[g[0] for g in groups.values() if len(g) == 1],
            groups=[g for g in groups.values() if len(g) > 1],
        )
    return batch


def batch_progress(batch: RenderBatch) -> dict:
    """Counts by state and every failure with its reason (item errors and render errors)."""
    items = batch.items.select_related("media")
    counts = items.aggregate(
        total=Count("id"),
        ready=Count("id", filter=Q(media__status=RenderedMedia.Status.READY)),
        failed=Count("id", filter=Q(media__status=RenderedMedia.Status.FAILED) | ~Q(error="")),
    )
    failures = [
        {
            "subject": item.subject,
            "condition": item.condition,
            "profile": item.profile,
            "reason": item.error or item.media.error,
        }
        for item in items.filter(Q(media__status=RenderedMedia.Status.FAILED) | ~Q(error=""))
    ]
    done = counts["ready"] + counts["failed"]
    return {
        **counts,
        "done": done,
        "finished": done == counts["total"],
        "failures": failures,
    }


def batch_rerun(*, batch: RenderBatch) -> int:
    ids = batch.items.exclude(media=None).values_list("media_id", flat=True)
    return media_rerun(media_ids=set(ids))
