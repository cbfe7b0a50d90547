"""Home-page card of the media side: the admin's renders in progress and failed."""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Count, Q
from django.urls import reverse

from media.models import RenderedMedia
from studio.home import HomeCard, home_card
from studio.roles import ADMIN, roles_of

Status = RenderedMedia.Status


@home_card
def admin_render_cards(user) -> Iterator[HomeCard]:
    if ADMIN not in roles_of(user):
        return
    counts = RenderedMedia.objects.aggregate(
        waiting=Count("id", filter=Q(status__in=[Status.PENDING, Status.RENDERING])),
        failed=Count("id", filter=Q(status=Status.FAILED)),
    )
    waiting, failed = counts["waiting"], counts["failed"]
    if failed:
        text = f"{failed} failed with a reason you can read in the batch; re-run them from there."
    elif waiting:
        text = "The media workers are cutting and verifying them; each batch shows its progress."
    else:
        text = "Nothing is rendering. Start a batch from Micro-steps (select, then the action)."
    yield HomeCard(
        role=ADMIN,
        title="Render batches",
        text=text,
        url=reverse("admin:media_renderbatch_changelist"),
        link_text="Render batches",
        count=waiting,
        count_label=("render waiting or running", "renders waiting or running"),
        order=40,
    )
