"""What a baseline rater is shown, and nothing else: the dedicated serializer of the rater page.

Built field by field from an explicit list, never from a model's fields, so it cannot emit a
scene or event name, a video file name or SHA-256, a step, sample or item id, a reference
label, a narration, a model output or another rater's answer. The one medium is the Official
clip ``[start, cutoff)`` — exactly what a model receives — as an opaque per-user grant; no
timeline or duration of the source video. Every answer that shows content appends an exposure
record (part, grants, fields), which also dates the first showing (the time spent).
"""

from __future__ import annotations

from django.db import transaction

from review.audit.blind import clip_grant, item_media
from review.baseline.kind import PART
from review.baseline.responses import CONFIDENCE, DIMENSION_NAMES, DIMENSIONS, MAX_ANSWERS
from review.campaigns.models import Assignment, Exposure
from review.campaigns.services import current_submission, parts_done, record_exposure
from studio.services import now

FIELDS = ("official_clip",)

QUESTIONS = {
    "local": "What is the person trying to do right now, in this clip?",
    "procedural": "What is that for: which sub-goal of the task does it serve?",
    "next": "What will the person do next? Up to three answers, the most likely first.",
}


def _own(submission) -> dict | None:
    if submission is None:
        return None
    payload = dict(submission.payload)
    payload.pop("seconds", None)
    return payload


@transaction.atomic
def rater_state(*, assignment: Assignment, user) -> dict:
    campaign = assignment.campaign
    release_step = assignment.item.sample.release_step
    done = PART in parts_done(assignment)
    at = now()
    held = assignment.state == Assignment.State.LEASED and bool(
        assignment.lease_expires_at and assignment.lease_expires_at >= at
    )
    grants: list[str] = []
    official, _ = item_media(release_step, phase=1)
    state = {
        "submitted": done,
        "campaign_open": campaign.is_open,
        "lease_held": held,
        "instructions": campaign.instructions,
        "dimensions": [
            {
                "id": name,
                "name": DIMENSION_NAMES[name],
                "question": QUESTIONS[name],
                "max_answers": MAX_ANSWERS[name],
            }
            for name in DIMENSIONS
        ],
        "confidence": list(CONFIDENCE),
        "draft": (assignment.draft or {}).get(PART),
        "answer": _own(current_submission(assignment=assignment, part=PART)),
        "clip": clip_grant(official, user, grants),
    }
    seen = Exposure.objects.filter(assignment=assignment, part=PART).exists()
    if grants or not seen:
        record_exposure(assignment=assignment, part=PART, grants=grants, fields=FIELDS)
    return state
