"""The ``human_baseline`` campaign kind (paper appendix D): blind raters answer what the models
answer. One part per assignment (the response, ``responses.py``); everything else — claims,
leases, the per-rater order SHA-256(rater id, sample id, seed), drafts, immutable submissions,
supersession, exposure, progress — is the campaign machinery's (``review.campaigns``)."""

from __future__ import annotations

from review.baseline.responses import clean_response

KIND = "human_baseline"
PART = "response"
PER_ITEM = 3


def seconds_spent(assignment, at) -> float | None:
    """Seconds from the first time the item was shown to this rater until ``at`` (the campaign
    machinery's measure, ``review.campaigns.selectors.seconds_on_item``)."""
    from review.campaigns.selectors import seconds_on_item

    return seconds_on_item(assignment, at)


def validate(*, assignment, part, payload) -> dict:
    from studio.services import now

    cleaned = clean_response(payload, complete=True)
    cleaned["seconds"] = seconds_spent(assignment, now())
    return cleaned


def validate_draft(*, assignment, part, payload) -> dict:
    return clean_response(payload, complete=False)


def register() -> None:
    from django.urls import reverse

    from review.campaigns.kinds import CampaignKind, annotated_or_revised, campaign_kind_register
    from studio.roles import RATER

    campaign_kind_register(
        CampaignKind(
            name=KIND,
            label="Human baseline",
            per_item=PER_ITEM,
            parts=(PART,),
            validate=validate,
            validate_draft=validate_draft,
            exclusions=annotated_or_revised,
            page_url=lambda assignment: reverse("baseline:item", args=[assignment.token]),
            roles=(RATER,),
            manifest_kinds=(KIND,),
        )
    )
