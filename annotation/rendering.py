"""From micro-steps to render jobs: the annotation side of the media pipeline.

Media knows only times, so this is where a step's neighbours are found: the previous and the
following *active* step of the same video, as the Previous-step and Next-visible conditions need.
The workspace's Official preview of a step's saved times is asked for here too.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import MicroStep, ReleaseStep
from media.batches import RenderJob
from media.models import SourceVideo
from media.subjects import subject_namer
from media.windows import StepTimes

SUBJECT_PREFIX = "step "


def step_subject(step: MicroStep) -> str:
    """The render subject of a step: its uid, which never changes."""
    return f"{SUBJECT_PREFIX}{step.uid}"


@subject_namer
def step_subject_names(subjects: list[str]) -> dict[str, str]:
    """ "Step 3 of kitchen-tea.mp4" for every subject that is a step of this instance."""
    uids = {}
    for subject in subjects:
        if subject.startswith(SUBJECT_PREFIX):
            try:
                uids[uuid.UUID(subject[len(SUBJECT_PREFIX) :])] = subject
            except ValueError:
                continue
    steps = MicroStep.objects.filter(uid__in=uids).select_related("video")
    return {uids[step.uid]: step.display_name for step in steps}


def _times(step: MicroStep | ReleaseStep) -> StepTimes:
    return StepTimes(
        start_us=step.start_us,
        cutoff_us=step.cutoff_us,
        outcome_us=step.outcome_us,
        end_us=step.end_us,
    )


def render_jobs(steps: Iterable[MicroStep], *, seed: int = 0) -> list[RenderJob]:
    """One job per active step, with its neighbours, ordered by video and time.

    ``seed`` is combined with the step's uid, so shuffled frame orders differ between steps but
    are the same every time the same step is rendered.
    """
    wanted = {s.pk: s for s in steps if s.status == MicroStep.Status.ACTIVE}
    timelines: dict[int, list[MicroStep]] = {}
    video_ids = {s.video_id for s in wanted.values()}
    for step in MicroStep.objects.filter(
        video_id__in=video_ids, status=MicroStep.Status.ACTIVE
    ).order_by("video_id", "start_us", "id"):
        timelines.setdefault(step.video_id, []).append(step)
    jobs = []
    for video_id in sorted(timelines):
        line = timelines[video_id]
        for i, step in enumerate(line):
            if step.pk not in wanted:
                continue
            jobs.append(
                RenderJob(
                    subject=step_subject(step),
                    video_id=video_id,
                    step=_times(step),
                    previous=_times(line[i - 1]) if i > 0 else None,
                    following=_times(line[i + 1]) if i + 1 < len(line) else None,
                    seed=f"{seed}:{step.uid}",
                )
            )
    return jobs


def release_step_jobs(
    steps: Iterable[ReleaseStep], *, seed: int = 0
) -> tuple[dict[str, RenderJob], list[str]]:
    """Render jobs for frozen steps, with their neighbours *in the same release* (the times as
    frozen, never the live steps'): ({sample uid: job}, uids whose source video is not here).

    Used for model runs on a release or manifest; the seed rule is that of ``render_jobs``.
    """
    steps = list(steps)
    release_ids = {s.release_id for s in steps}
    shas = {s.video_sha256 for s in steps}
    videos = dict(SourceVideo.objects.filter(sha256__in=shas).values_list("sha256", "id"))
    lines: dict[tuple[int, str], list[ReleaseStep]] = {}
    for step in ReleaseStep.objects.filter(
        release_id__in=release_ids, video_sha256__in=shas
    ).order_by("release_id", "video_sha256", "start_us", "id"):
        lines.setdefault((step.release_id, step.video_sha256), []).append(step)
    neighbours: dict[int, tuple[ReleaseStep | None, ReleaseStep | None]] = {}
    for line in lines.values():
        for i, step in enumerate(line):
            neighbours[step.pk] = (
                line[i - 1] if i > 0 else None,
                line[i + 1] if i + 1 < len(line) else None,
            )
    jobs, missing = {}, []
    for step in steps:
        uid = str(step.sample_id)
        if step.video_sha256 not in videos:
            missing.append(uid)
            continue
        previous, following = neighbours.get(step.pk, (None, None))
        jobs[uid] = RenderJob(
            subject=f"step {uid}",
            video_id=videos[step.video_sha256],
            step=_times(step),
            previous=_times(previous) if previous else None,
            following=_times(following) if following else None,
            seed=f"{seed}:{uid}",
        )
    return jobs, missing


def job_as_json(job: RenderJob) -> dict:
    """The JSON form ``manage.py render_media --jobs`` reads."""

    def times(t: StepTimes | None):
        return None if t is None else [t.start_us, t.cutoff_us, t.outcome_us, t.end_us]

    return {
        "subject": job.subject,
        "video": job.video_id,
        "step": times(job.step),
        "previous": times(job.previous),
        "next": times(job.following),
        "seed": job.seed,
    }


@transaction.atomic
def step_official_preview(*, step: MicroStep, user) -> dict:
    """The Official clip of a step's *saved* times exactly as a model or rater receives it:
    the media pipeline's ``official`` condition under its default clip profile.

    Asking is idempotent (the medium is keyed by what determines its bytes, so the same times give
    the same row and one render, queued after commit); once the clip is ready the user gets an
    opaque, expiring URL for it.
    """
    from media.grants import grant_create
    from media.models import RenderedMedia
    from media.renders import media_request
    from media.windows import StepTimes

    if step.status != MicroStep.Status.ACTIVE:
        raise ValidationError({"status": "A retracted step has no preview."})
    times = StepTimes(
        start_us=step.start_us,
        cutoff_us=step.cutoff_us,
        outcome_us=step.outcome_us,
        end_us=step.end_us,
    )
    media = media_request(video=step.video, condition="official", step=times, profile="clip")
    frames = media.spec.get("frames", [])
    ready = media.status == RenderedMedia.Status.READY
    return {
        "status": media.status,
        "url": grant_create(user=user, media=media) if ready else None,
        "version": step.version,
        "start_us": step.start_us,
        "cutoff_us": step.cutoff_us,
        "first_frame": frames[0] if frames else None,
        "last_frame": frames[-1] if frames else None,
        "frame_count": len(frames),
        "boundary_fallback": bool(media.spec.get("boundary_fallback")),
        "error": media.error if media.status == RenderedMedia.Status.FAILED else "",
    }
