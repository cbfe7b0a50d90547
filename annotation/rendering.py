"""From micro-steps to render jobs: the annotation side of the media pipeline.

Media knows only times, so this is where a step's neighbours are found: the previous and the
following *active* step of the same video, as the Previous-step and Next-visible conditions need.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from annotation.models import MicroStep
from media.renders import RenderJob
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


def _times(step: MicroStep) -> StepTimes:
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
