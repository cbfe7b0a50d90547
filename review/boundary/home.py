"""Home cards: the adjudicator's boundary windows to decide and the admin's boundary reports (a
reviewer's boundary items come with the campaigns' own cards, review.campaigns.home)."""

from __future__ import annotations

from django.urls import reverse

from studio.home import HomeCard, home_card
from studio.roles import ADJUDICATOR, ADMIN, roles_of


@home_card
def boundary_cards(user):
    roles = roles_of(user)
    if ADJUDICATOR in roles or ADMIN in roles:
        from review.boundary.selectors import adjudication_count

        queued = adjudication_count(user)
        if queued:
            yield HomeCard(
                role=ADJUDICATOR if ADJUDICATOR in roles else ADMIN,
                title="Boundary disagreements",
                text="Decide the condition windows the boundary reviewers left unresolved: "
                "each clip with their answers side by side.",
                url=reverse("boundary:queue"),
                link_text="Open the queue",
                count=queued,
                count_label=("window to adjudicate", "windows to adjudicate"),
                order=21,
            )
    if ADMIN in roles:
        from review.boundary.selectors import report_campaigns_for

        audits = report_campaigns_for(user).count()
        if audits:
            yield HomeCard(
                role=ADMIN,
                title="Boundary audit reports",
                text="Official and four-window validity, by step duration, and the sets the "
                "boundary study filters on.",
                url=reverse("boundary:reports"),
                link_text="Open the boundary audits",
                count=audits,
                count_label=("boundary campaign", "boundary campaigns"),
                order=61,
            )
