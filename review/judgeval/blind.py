"""What a rater is shown, and nothing else: the dedicated serializer of the rating page.

Built field by field from an explicit list: the step's reference labels and one prediction's
three texts. Never a model, run or provider name, a scene or event name, a video, a step,
sample, item or triplet id, an automatic score or another rater's scores. Which of the step's
two triplets comes first is fixed per rater by hash (``kind.slot_order``). Every answer appends
an exposure record (part and field names).
"""

from __future__ import annotations

from django.db import transaction

from review.campaigns.models import Assignment, Exposure
from review.campaigns.services import current_submission, parts_done, record_exposure
from review.judgeval.kind import DIMENSION_NAMES, DIMENSIONS, PARTS, REASONS, slot_of_part
from review.judgeval.models import JudgeTriplet
from studio.services import now

FIELDS = (
    "reference_local",
    "reference_procedural",
    "reference_next",
    "reference_plausible_next",
    "prediction_local",
    "prediction_procedural",
    "prediction_next",
)


@transaction.atomic
def blind_state(*, assignment: Assignment) -> dict:
    campaign = assignment.campaign
    step = assignment.item.sample.release_step
    done = parts_done(assignment)
    part = next((p for p in PARTS if p not in done), None)
    at = now()
    held = assignment.state == Assignment.State.LEASED and bool(
        assignment.lease_expires_at and assignment.lease_expires_at >= at
    )
    state = {
        "part": part or "done",
        "position": (PARTS.index(part) + 1) if part else len(PARTS),
        "of": len(PARTS),
        "submitted": done,
        "campaign_open": campaign.is_open,
        "lease_held": held,
        "instructions": campaign.instructions,
        "dimensions": [{"id": d, "name": DIMENSION_NAMES[d]} for d in DIMENSIONS],
        "reasons": [{"code": c, "name": n} for c, n in REASONS],
        "draft": {k: v for k, v in (assignment.draft or {}).items() if k in PARTS},
        "answers": {
            p: (s.payload if (s := current_submission(assignment=assignment, part=p)) else None)
            for p in done
        },
        "reference": {
            "local": step.local_intent,
            "procedural": step.procedural_intent,
            "next": step.next_step,
            "plausible_next": list(step.plausible_next_steps),
        },
        "prediction": None,
    }
    if part is None:
        return state
    triplet = JudgeTriplet.objects.filter(
        sample=assignment.item.sample, slot=slot_of_part(assignment, part)
    ).first()
    if triplet is not None:
        state["prediction"] = {
            "local": triplet.local,
            "procedural": triplet.procedural,
            "next": triplet.next,
        }
    fields = list(FIELDS)
    seen = Exposure.objects.filter(assignment=assignment, part=part, fields=fields).exists()
    if not seen:
        record_exposure(assignment=assignment, part=part, fields=fields)
    return state
