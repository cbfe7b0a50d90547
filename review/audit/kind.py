"""The ``audit`` campaign kind: two parts (phase 1, phase 2), what a part's payload holds, and its
registration with the campaign machinery (``review.campaigns.kinds``).

A part's payload is ``{"criteria": {"C1": {"label": "valid"|"invalid"|"uncertain",
"comment": "…", "error_types": ["…"]}, …}}`` with exactly the criteria of that phase. Error
types belong to an Invalid only and come from the campaign's taxonomy (the defaults plus
``options["error_types"]``). A draft may be partial; a submission may not.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.core.exceptions import ValidationError

from review.audit.criteria import (
    CRITERION_IDS,
    INVALID,
    LABELS,
    PHASE_CONTEXT,
    PHASE_OBSERVATION,
    ErrorType,
    criteria_of_phase,
    error_taxonomy,
    error_types_of,
)

KIND = "audit"
PARTS = {"phase1": PHASE_OBSERVATION, "phase2": PHASE_CONTEXT}
PART_OF_PHASE = {phase: part for part, phase in PARTS.items()}
MAX_COMMENT = 4000


def campaign_error_types(campaign) -> tuple[ErrorType, ...]:
    options = getattr(campaign, "options", None) or {}
    return error_taxonomy(options.get("error_types"))


def campaign_error_codes(campaign) -> tuple[str, ...]:
    return tuple(e.code for e in campaign_error_types(campaign))


def criterion_error_codes(campaign) -> dict[str, tuple[str, ...]]:
    """Per criterion, the codes an Invalid of it may carry (its own types and the general ones)."""
    types = campaign_error_types(campaign)
    return {cid: tuple(t.code for t in error_types_of(types, cid)) for cid in CRITERION_IDS}


def part_criteria(part: str) -> tuple[str, ...]:
    try:
        return tuple(c.id for c in criteria_of_phase(PARTS[part]))
    except KeyError:
        raise ValidationError(
            {"part": f"Unknown part {part!r}; expected phase1 or phase2."}
        ) from None


def clean_answers(*, part: str, payload, codes: dict[str, tuple[str, ...]], complete: bool) -> dict:
    """The cleaned payload of ``part``; ValidationError naming every problem. ``codes``: per
    criterion, the error codes an Invalid of it may carry (``criterion_error_codes``)."""
    wanted = part_criteria(part)
    if not isinstance(payload, Mapping) or not isinstance(payload.get("criteria"), Mapping):
        raise ValidationError({"criteria": 'Send an object of criteria, e.g. {"C1": {...}}.'})
    given = payload["criteria"]
    errors: dict[str, list[str]] = {}
    cleaned = {}
    for cid in given:
        if cid not in wanted:
            errors.setdefault(str(cid), []).append(f"Not a criterion of {part}.")
    for cid in wanted:
        answer = given.get(cid)
        if answer is None:
            if complete:
                errors.setdefault(cid, []).append("Choose Valid, Invalid or Uncertain.")
            continue
        if not isinstance(answer, Mapping):
            errors.setdefault(cid, []).append("Must be an object.")
            continue
        label = answer.get("label") or ""
        comment = answer.get("comment") or ""
        types = answer.get("error_types") or []
        if label not in LABELS and (complete or label):
            errors.setdefault(cid, []).append("Choose Valid, Invalid or Uncertain.")
        if not isinstance(comment, str) or len(comment) > MAX_COMMENT:
            errors.setdefault(cid, []).append(
                f"A comment is text of at most {MAX_COMMENT} characters."
            )
            comment = ""
        if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
            errors.setdefault(cid, []).append("Error types are a list of codes.")
            types = []
        known = {c for fitting in codes.values() for c in fitting}
        unknown = [t for t in types if t not in known]
        if unknown:
            errors.setdefault(cid, []).append(f"Unknown error type(s): {', '.join(unknown)}.")
        misfit = [t for t in types if t in known and t not in codes.get(cid, ())]
        if misfit:
            errors.setdefault(cid, []).append(f"Not an error type of {cid}: {', '.join(misfit)}.")
        if types and label != INVALID and complete:
            errors.setdefault(cid, []).append("Error types go with Invalid only.")
        cleaned[cid] = {
            "label": label,
            "comment": comment.strip() if complete else comment,
            "error_types": sorted(set(types)) if label == INVALID or not complete else [],
        }
    if errors:
        raise ValidationError(errors)
    return {"criteria": cleaned}


def validate(*, assignment, part, payload) -> dict:
    if part == "phase1" and assignment.submissions.filter(part="phase1").exists():
        # Phase 1 is judged before the context is seen: once submitted (and phase 2 open) it
        # stays as it is; only phase 2 may be changed later.
        raise ValidationError({"part": "Phase 1 is locked once phase 2 has opened."})
    codes = criterion_error_codes(assignment.campaign)
    return clean_answers(part=part, payload=payload, codes=codes, complete=True)


def validate_draft(*, assignment, part, payload) -> dict:
    codes = criterion_error_codes(assignment.campaign)
    return clean_answers(part=part, payload=payload, codes=codes, complete=False)


def register() -> None:
    from django.urls import reverse

    from review.campaigns.kinds import CampaignKind, annotated_or_revised, campaign_kind_register
    from studio.roles import AUDITOR

    campaign_kind_register(
        CampaignKind(
            name=KIND,
            label="Annotation audit",
            per_item=3,
            parts=tuple(PARTS),
            validate=validate,
            validate_draft=validate_draft,
            exclusions=annotated_or_revised,
            page_url=lambda assignment: reverse("audit:item", args=[assignment.token]),
            roles=(AUDITOR,),
            manifest_kinds=(KIND,),
        )
    )
