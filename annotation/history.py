"""A step's history as people read it, the same on the history page and in the workspace's
history panel (the API sends the texts): times as timecodes with the frame the workspace shows
for that mark, lists joined, the status by its label."""

from __future__ import annotations

import numpy as np

from annotation.models import TIME_FIELDS, MicroStep, StepRevision
from annotation.services import revision_diff
from media.display import mark_text
from studio.vocabulary import label


def value_text(field: str, value, times: np.ndarray | None) -> str:
    if value is None:
        return "—"
    if field in TIME_FIELDS:
        return mark_text(times, value, mark=field)
    if field == "status":
        return label("step_status", value)
    if isinstance(value, list):
        return " · ".join(value) if value else "none listed"
    return value or "(empty)"


def frame_times(step: MicroStep) -> np.ndarray | None:
    """The step's video's frame-time index (``None`` when the video has none)."""
    return step.video.frame_times_us() if step.video.frame_times else None


def revision_changes(revision: StepRevision, times: np.ndarray | None) -> list[dict]:
    """``revision_diff`` with each value's text: ``before_text``, ``after_text``."""
    return [
        {
            **change,
            "before_text": value_text(change["field"], change["before"], times),
            "after_text": value_text(change["field"], change["after"], times),
        }
        for change in revision_diff(revision)
    ]
