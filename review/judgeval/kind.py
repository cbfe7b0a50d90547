"""The ``judge_validation`` campaign kind: a rater scores the two triplets of a step, one per part.

An item is a step of the manifest; its two parts are its two triplets, in an order fixed per
rater by hash (``slot_order``), so a rater cannot tell which one came from the closed model. A
part's payload is ``{"local": 0-100, "procedural": 0-100, "next": 0-100, "reason": CODE|""}``
(integers, or texts of ASCII digits as a form sends them; the reason code is optional). A draft
may be partial; a submission may not.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping

from django.core.exceptions import ValidationError

from annotation.models.steps import DIMENSIONS_VOCABULARY
from review.campaigns.payloads import whole_number
from studio.vocabulary import vocabulary

KIND = "judge_validation"
PARTS = ("first", "second")
SLOTS = ("closed", "open")
DIMENSIONS = ("local", "procedural", "next")
DIMENSION_NAMES = {d: DIMENSIONS_VOCABULARY.label(d) for d in DIMENSIONS}
# Optional reason codes for a low score (our own short list).
REASONS = (
    ("wrong_action", "Wrong action"),
    ("wrong_object", "Wrong object"),
    ("too_vague", "Too vague"),
    ("wrong_goal", "Wrong higher-level goal"),
    ("levels_mixed", "Local and procedural mixed up"),
    ("not_immediate", "Next step not immediate"),
    ("plausible_alternative", "A plausible but different next step"),
    ("other", "Other"),
)
REASON_CODES = tuple(code for code, _ in REASONS)
vocabulary("judgeval_reason", REASONS, title="Reason")


def slot_order(person_id: int, sample_id, seed: int) -> tuple[str, str]:
    """The slots in the order the person rates them: ascending SHA-256 of
    ``"{person_id}:{sample_id}:{seed}:{slot}"``."""
    sample = uuid.UUID(str(sample_id))

    def key(slot: str) -> str:
        text = f"{int(person_id)}:{sample}:{int(seed)}:{slot}"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    return tuple(sorted(SLOTS, key=key))  # type: ignore[return-value]


def slot_of_part(assignment, part: str) -> str:
    order = slot_order(
        assignment.person_id, assignment.item.sample.sample_id, assignment.campaign.seed
    )
    return order[PARTS.index(part)]


def clean_scores(payload, *, complete: bool) -> dict:
    """The cleaned scores; ValidationError naming every problem."""
    if not isinstance(payload, Mapping):
        raise ValidationError({"payload": "Send an object of scores."})
    errors: dict[str, list[str]] = {}
    unknown = sorted(set(payload) - {*DIMENSIONS, "reason"})
    for key in unknown:
        errors.setdefault(str(key), []).append("Not a field of a rating.")
    cleaned: dict = {}
    for dim in DIMENSIONS:
        value = payload.get(dim)
        if value is None or value == "":
            if complete:
                errors.setdefault(dim, []).append("Give a whole number from 0 to 100.")
            continue
        score = whole_number(value, low=0, high=100)
        if score is None:
            errors.setdefault(dim, []).append("Give a whole number from 0 to 100.")
            continue
        cleaned[dim] = score
    reason = payload.get("reason") or ""
    if reason not in ("", *REASON_CODES):
        errors.setdefault("reason", []).append(f"Unknown reason code {reason!r}.")
    cleaned["reason"] = reason if isinstance(reason, str) else ""
    if errors:
        raise ValidationError(errors)
    return cleaned


def validate(*, assignment, part, payload) -> dict:
    return clean_scores(payload, complete=True)


def validate_draft(*, assignment, part, payload) -> dict:
    return clean_scores(payload, complete=False)


def register() -> None:
    from django.urls import reverse

    from review.campaigns.kinds import CampaignKind, annotated_or_revised, campaign_kind_register
    from studio.roles import RATER

    campaign_kind_register(
        CampaignKind(
            name=KIND,
            label="Judge validation",
            per_item=3,
            parts=PARTS,
            validate=validate,
            validate_draft=validate_draft,
            exclusions=annotated_or_revised,
            page_url=lambda assignment: reverse("judgeval:item", args=[assignment.token]),
            roles=(RATER,),
            manifest_kinds=(KIND,),
            shows_references=True,
        )
    )
