"""Home cards: the adjudicator's queue and corrections, the admin's audit reports (a reviewer's
audits come with the campaigns' own cards, review.campaigns.home)."""

from __future__ import annotations

from django.urls import reverse

from studio.home import HomeCard, home_card
from studio.roles import ADJUDICATOR, ADMIN, roles_of


@home_card
def audit_cards(user):
    roles = roles_of(user)
    if ADJUDICATOR in roles or ADMIN in roles:
        from review.audit.selectors import adjudication_count

        queued = adjudication_count(user)
        if queued:
            yield HomeCard(
                role=ADJUDICATOR if ADJUDICATOR in roles else ADMIN,
                title="Disagreements",
                text="Decide the criteria the audit's reviewers left unresolved: their three "
                "answers side by side, named A, B and C.",
                url=reverse("audit:queue"),
                link_text="Open the queue",
                count=queued,
                count_label=("criterion to adjudicate", "criteria to adjudicate"),
                order=20,
            )
    if ADJUDICATOR in roles:
        from review.audit.selectors import correction_campaigns_for

        audits = correction_campaigns_for(user).count()
        if audits:
            yield HomeCard(
                role=ADJUDICATOR,
                title="Corrections",
                text="Correct the steps the audit resolved invalid: move a cutoff on the video, "
                "split a step, revise a text. Each correction is a new revision.",
                url=reverse("audit:corrections-list"),
                link_text="Open the corrections",
                count=audits,
                count_label="audit campaigns",
                order=25,
            )
    if ADMIN in roles:
        from review.campaigns.models import Campaign

        audits = Campaign.objects.filter(kind="audit").count()
        if audits:
            yield HomeCard(
                role=ADMIN,
                title="Audit reports",
                text="Validity per criterion with Wilson intervals, agreement, errors, "
                "corrections and coverage; apply corrections and freeze the corrected release.",
                url=reverse("audit:reports"),
                link_text="Open the audits",
                count=audits,
                count_label=("audit campaign", "audit campaigns"),
                order=60,
            )
