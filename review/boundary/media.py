"""The media of a boundary audit item: each condition window of a release step, from
``media.windows.condition_window`` with the step's neighbours in the same release, rendered
through the render pipeline (``media.renders.media_request``) like a model run's clip."""

from __future__ import annotations

from media.windows import StepTimes, WindowUnavailable, condition_window
from review.boundary.windows import WINDOW_NAMES


def _times(row) -> StepTimes:
    return StepTimes(
        start_us=row.start_us, cutoff_us=row.cutoff_us, outcome_us=row.outcome_us, end_us=row.end_us
    )


def neighbours(release_step):
    """The previous and following steps of the same video in the same release (or None)."""
    from annotation.models import ReleaseStep

    same = ReleaseStep.objects.filter(
        release_id=release_step.release_id, video_sha256=release_step.video_sha256
    )
    previous = same.filter(start_us__lt=release_step.start_us).order_by("-start_us").first()
    following = same.filter(start_us__gt=release_step.start_us).order_by("start_us").first()
    return previous, following


def step_windows(release_step) -> dict:
    """Window name -> ``media.windows.Window``, or the reason it does not exist (a text)."""
    previous, following = neighbours(release_step)
    out = {}
    for name in WINDOW_NAMES:
        try:
            out[name] = condition_window(
                name,
                step=_times(release_step),
                previous=_times(previous) if previous else None,
                following=_times(following) if following else None,
            )
        except WindowUnavailable:
            out[name] = "This step is the last of its video: there is no following step."
    return out


def available_windows(release_step) -> tuple[str, ...]:
    """The windows the step has, in the fixed order (Next visible needs a following step)."""
    return tuple(n for n, w in step_windows(release_step).items() if not isinstance(w, str))


def window_media(release_step) -> dict:
    """Window name -> its RenderedMedia (queued for rendering when new), or None when the window
    does not exist or the source video is not on this instance."""
    from media.models import SourceVideo
    from media.renders import media_for_window

    video = SourceVideo.objects.filter(sha256=release_step.video_sha256).first()
    out = {}
    for name, window in step_windows(release_step).items():
        if video is None or isinstance(window, str):
            out[name] = None
        else:
            out[name] = media_for_window(video=video, window=window, profile="clip")
    return out
