"""Home cards: the auditor's items waiting, the adjudicator's queue, the admin's audit reports."""

from __future__ import annotations

from django.urls import reverse

from studio.home import HomeCard, home_card
from studio.roles import ADJUDICATOR, ADMIN, AUDITOR, roles_of


@home_card
def audit_cards(user):
    roles = roles_of(user)
    if AUDITOR in roles:
        from review.audit.selectors import items_waiting_for

        waiting = items_waiting_for(user)
        if waiting:
            yield HomeCard(
                role=AUDITOR,
                title="Audit",
                text="Judge each step on seven criteria: first the clip a model sees with its "
                "intents, then the context around it with the next step. Keys: v / i / u.",
                url=reverse("audit:home"),
                link_text="Start auditing",
                count=waiting,
                count_label="audit items waiting",
            )
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
                count_label="criteria to adjudicate",
                order=20,
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
                count_label="audit campaigns",
                order=60,
            )
