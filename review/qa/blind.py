"""What a QA reviewer is shown, and nothing else: the dedicated serializer of the review page.

Built field by field from an explicit list: the group's structure, category and required
modality; per turn the question, reference answer, options, dependencies, evidence intervals
(modality, description, where they fall on the clip) and a predictive turn's decision cutoff;
the clip of the group's span as an opaque per-user grant. Never the group's uid, its source
video (file name, SHA-256), its provenance or split, a model's answer, a judge's score, or
another reviewer's decision. Every answer that shows content appends an exposure record.
"""

from __future__ import annotations

import bisect

from django.db import transaction

from media.models import RenderedMedia
from media.renders import media_for_window
from media.windows import Window
from review.audit.blind import clip_grant
from review.campaigns.models import Assignment, Exposure
from review.campaigns.services import current_submission, record_exposure
from review.qa.kind import (
    CHECK_VALUES,
    CHECKS,
    DECISION_LABELS,
    DECISIONS,
    REASONS,
    check_labels,
)
from review.qa.models import EditField, Modality, Structure
from review.qa.selectors import group_of
from studio.services import now
from studio.vocabulary import label

FIELDS = ("structure", "category", "modality", "turns", "evidence", "clip")
CONDITION = "qa_group"


def group_clip(group) -> RenderedMedia:
    """The clip of the group's span (with sound when the source has it), queued when new."""
    window = Window(CONDITION, ((group.span_start_us, group.span_end_us),))
    profile = "clip_audio" if group.video.has_audio else "clip"
    return media_for_window(video=group.video, window=window, profile=profile)


def _clip_frames(group, media: RenderedMedia) -> list[int]:
    """Source times of the clip's frames, in order (from the render spec, known before the
    clip is ready)."""
    times = group.video.frame_times_us()
    return [int(times[i]) for i in media.spec.get("frames", [])]


def _label(choices, value: str) -> str:
    return dict(choices.choices).get(value, value)


@transaction.atomic
def review_state(*, assignment: Assignment, user) -> dict:
    campaign = assignment.campaign
    group = group_of(assignment)
    media = group_clip(group)
    frames = _clip_frames(group, media)
    origin = group.span_start_us
    grants: list[str] = []
    clip = clip_grant(media, user, grants)
    if clip["status"] == "ready":
        clip["frame_times_us"] = list(media.output_times_us or [])
        clip["duration_us"] = media.duration_us
    submission = current_submission(assignment=assignment, part="")
    at = now()
    held = assignment.state == Assignment.State.LEASED and bool(
        assignment.lease_expires_at and assignment.lease_expires_at >= at
    )
    number = 0
    turns = []
    for turn in sorted(group.turns.all(), key=lambda t: t.position):
        evidence = []
        for ev in sorted(turn.evidence.all(), key=lambda e: e.position):
            number += 1
            evidence.append(
                {
                    "number": number,
                    "position": ev.position,
                    "start_us": ev.start_us - origin,
                    "end_us": ev.end_us - origin,
                    # Clip frames [first_frame, end_frame) are the interval's.
                    "first_frame": bisect.bisect_left(frames, ev.start_us),
                    "end_frame": bisect.bisect_left(frames, ev.end_us),
                    "modality": ev.modality,
                    "description": ev.description,
                }
            )
        turns.append(
            {
                "position": turn.position,
                "question": turn.question,
                "answer": turn.answer,
                "options": list(turn.options) if turn.options is not None else None,
                "depends_on": list(turn.depends_on),
                "evidence": evidence,
                # A predictive turn's decision cutoff, on the clip's timeline (None: none).
                "cutoff_us": turn.cutoff_us - origin if turn.cutoff_us is not None else None,
            }
        )
    state = {
        "campaign_open": campaign.is_open,
        "lease_held": held,
        "done": submission is not None,
        "instructions": campaign.instructions,
        "structure": group.structure,
        "structure_label": _label(Structure, group.structure),
        "category": group.category,
        "category_label": label("qa_category", group.category),
        "modality": group.modality,
        "modality_label": _label(Modality, group.modality),
        "span_us": group.span_end_us - group.span_start_us,
        "has_audio": group.video.has_audio,
        "turns": turns,
        "clip": clip,
        "decisions": [{"code": d, "label": DECISION_LABELS[d]} for d in DECISIONS],
        "reasons": [{"code": c, "label": label} for c, label in REASONS],
        "checks": [{"code": c, "label": check_labels(group.structure)[c]} for c in CHECKS],
        "check_values": list(CHECK_VALUES),
        "check_value_labels": {v: label("qa_check_value", v) for v in CHECK_VALUES},
        "modality_labels": {m: label("qa_modality", m) for m in (*Modality.values,)},
        "edit_fields": [{"code": c, "label": label} for c, label in EditField.choices],
        "draft": (assignment.draft or {}).get("", None),
        "answer": submission.payload if submission is not None else None,
    }
    seen = Exposure.objects.filter(assignment=assignment, fields=list(FIELDS)).exists()
    if grants or not seen:
        record_exposure(assignment=assignment, part="", grants=grants, fields=FIELDS)
    return state
