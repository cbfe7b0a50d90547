"""The JSON shapes the workspace reads, built from plain rows.

A video with hundreds of steps is loaded on every workspace visit, so steps are turned into dicts
straight from ``values()`` instead of going through a serializer per object; the serializers in
``serializers.py`` document the same shapes for the schema (a test keeps them equal).
"""

from __future__ import annotations

from django.db.models import QuerySet

from annotation.history import revision_changes
from annotation.models import MicroStep, StepRevision
from annotation.services import REQUIRED_LABELS
from studio.display import iso_time, moment

STEP_FIELDS = (
    "id",
    "uid",
    "position",
    "start_us",
    "cutoff_us",
    "outcome_us",
    "end_us",
    "local_intent",
    "procedural_intent",
    "next_step",
    "plausible_next_steps",
    "tags",
    "status",
    "version",
    "updated_at",
)


def _problems(row: dict) -> list[dict]:
    return [
        {"field": name, "message": "Required."}
        for name in REQUIRED_LABELS
        if not (row[name] or "").strip()
    ]


def _step_row(row: dict) -> dict:
    row["uid"] = str(row["uid"])
    row["updated_at"] = row["updated_at"].isoformat()
    row["problems"] = _problems(row) if row["status"] == MicroStep.Status.ACTIVE else []
    return row


def step_payload(step: MicroStep) -> dict:
    return _step_row({name: getattr(step, name) for name in STEP_FIELDS})


def steps_payload(steps: QuerySet[MicroStep]) -> list[dict]:
    return [_step_row(row) for row in steps.order_by("start_us", "id").values(*STEP_FIELDS)]


def video_payload(video) -> dict:
    return {
        "id": video.pk,
        "title": video.title,
        "scene": video.scene.name,
        "duration_us": video.duration_us,
        "frame_count": video.frame_count,
        "fps_num": video.fps_num,
        "fps_den": video.fps_den,
        "is_vfr": video.is_vfr,
        "width": video.width,
        "height": video.height,
        "rotation": video.rotation,
        "mime_type": video.mime_type,
        "origin_us": video.origin_us,
        "has_file": bool(video.file),
    }


def revision_payload(revision: StepRevision, times=None) -> dict:
    """``times``: the video's frame-time index, for the changes' texts (annotation.history)."""
    return {
        "version": revision.version,
        "action": revision.action,
        "action_name": revision.get_action_display(),
        "author": revision.author.get_username() if revision.author_id else None,
        "created_at": iso_time(revision.created_at),
        "created_at_text": moment(revision.created_at),
        "reason": revision.reason,
        "changes": revision_changes(revision, times),
    }
