"""The ``boundary`` campaign kind: one part, in which the reviewer rules each of the item's
condition windows valid, invalid or uncertain against the window's definition
(``review.boundary.windows``), and its registration with the campaign machinery.

A payload is ``{"windows": {"early": {"label": "valid"|"invalid"|"uncertain", "comment": "…"},
…}}`` with exactly the windows the step has (Next visible needs a following step in the
release; without one the step has three). A draft may be partial; a submission may not.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.core.exceptions import ValidationError

from review.audit.decisions import Scheme
from review.audit.kind import MAX_COMMENT
from review.boundary.windows import LABELS, WINDOW_NAMES

KIND = "boundary"
PART = ""
MANIFEST_KINDS = ("diagnostic", "boundary_audit")

SCHEME = Scheme(
    keys=WINDOW_NAMES,
    answers="windows",
    key_field="window",
    parts=(PART,),
    part_of=lambda window: PART,
    error_types=False,
)


def clean_answers(*, payload, windows, complete: bool) -> dict:
    """The cleaned payload for an item with ``windows``; ValidationError naming every problem."""
    if not isinstance(payload, Mapping) or not isinstance(payload.get("windows"), Mapping):
        raise ValidationError({"windows": 'Send an object of windows, e.g. {"early": {...}}.'})
    given = payload["windows"]
    errors: dict[str, list[str]] = {}
    cleaned = {}
    for name in given:
        if name not in windows:
            errors.setdefault(str(name), []).append("Not a window of this item.")
    for name in windows:
        answer = given.get(name)
        if answer is None:
            if complete:
                errors.setdefault(name, []).append("Choose Valid, Invalid or Uncertain.")
            continue
        if not isinstance(answer, Mapping):
            errors.setdefault(name, []).append("Must be an object.")
            continue
        extra = sorted(set(answer) - {"label", "comment"})
        if extra:
            errors.setdefault(name, []).append(f"Unknown field(s): {', '.join(extra)}.")
        label = answer.get("label") or ""
        comment = answer.get("comment") or ""
        if label not in LABELS and (complete or label):
            errors.setdefault(name, []).append("Choose Valid, Invalid or Uncertain.")
        if not isinstance(comment, str) or len(comment) > MAX_COMMENT:
            errors.setdefault(name, []).append(
                f"A comment is text of at most {MAX_COMMENT} characters."
            )
            comment = ""
        cleaned[name] = {"label": label, "comment": comment.strip() if complete else comment}
    if errors:
        raise ValidationError(errors)
    return {"windows": cleaned}


def _windows_of(assignment) -> tuple[str, ...]:
    from review.boundary.media import available_windows

    return available_windows(assignment.item.sample.release_step)


def validate(*, assignment, part, payload) -> dict:
    return clean_answers(payload=payload, windows=_windows_of(assignment), complete=True)


def validate_draft(*, assignment, part, payload) -> dict:
    return clean_answers(payload=payload, windows=_windows_of(assignment), complete=False)


def register() -> None:
    from django.urls import reverse

    from review.campaigns.kinds import CampaignKind, annotated_or_revised, campaign_kind_register
    from studio.roles import AUDITOR

    campaign_kind_register(
        CampaignKind(
            name=KIND,
            label="Boundary audit",
            per_item=3,
            parts=(PART,),
            validate=validate,
            validate_draft=validate_draft,
            exclusions=annotated_or_revised,
            page_url=lambda assignment: reverse("boundary:item", args=[assignment.token]),
            roles=(AUDITOR,),
            manifest_kinds=MANIFEST_KINDS,
            shows_references=True,
        )
    )
