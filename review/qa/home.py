"""Home card of the QA groups for admins: the group-set versions and the edits waiting for a
decision (a reviewer's QA campaigns come with the campaigns' own cards)."""

from __future__ import annotations

from django.urls import reverse

from studio.home import HomeCard, home_card
from studio.roles import ADMIN, roles_of


@home_card
def qa_cards(user):
    if ADMIN not in roles_of(user):
        return
    from review.qa.models import QaEdit, QaGroupSet

    sets = QaGroupSet.objects.filter(frozen_at__isnull=False).count()
    if not sets:
        return
    waiting = QaEdit.objects.filter(state=QaEdit.State.PROPOSED).count()
    yield HomeCard(
        role=ADMIN,
        title="QA groups",
        text="Versions of the QA group set with both hashes; reviewers' proposed edits beside "
        "the originals, to accept into a new version or decline.",
        url=reverse("qa:sets"),
        link_text="Open the QA groups",
        count=waiting,
        count_label=("edit waiting", "edits waiting"),
        order=61,
    )
