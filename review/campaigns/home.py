"""Home-page cards of campaigns: each participant's open campaigns (under the role the kind
asks for), and the admin's open campaigns with their progress."""

from __future__ import annotations

from collections.abc import Iterator

from django.core.exceptions import ValidationError
from django.urls import reverse

from review.campaigns.kinds import campaign_kind
from review.campaigns.models import Campaign
from review.campaigns.selectors import my_campaigns
from review.campaigns.services import claimable_later
from studio.display import count
from studio.home import HomeCard, home_card
from studio.roles import ADMIN, roles_of


@home_card
def campaign_cards(user) -> Iterator[HomeCard]:
    held = roles_of(user)
    if not held:
        return
    for campaign in my_campaigns(user).order_by("name"):
        try:
            kind = campaign_kind(campaign.kind)
        except ValidationError:  # a kind no longer registered: nothing to open
            continue
        roles = [r for r in kind.roles if r in held] if kind.roles else sorted(held - {ADMIN})
        if not roles:
            continue
        waiting = claimable_later(campaign=campaign, person=user)
        yield HomeCard(
            role=roles[0],
            title=campaign.name,
            text=f"{kind.label}: {count(waiting, 'item', 'items')} may still come to you."
            if waiting
            else f"{kind.label}: you have done every item that was yours.",
            url=reverse("campaigns:next", args=[campaign.pk]),
            link_text="Open the campaign",
            count=waiting,
            count_label=("item waiting", "items waiting"),
            order=30,
        )
    if ADMIN in held:
        open_campaigns = Campaign.objects.filter(state=Campaign.State.OPEN).count()
        yield HomeCard(
            role=ADMIN,
            title="Campaigns",
            text="Open review campaigns over frozen manifests and follow their progress live.",
            url=reverse("admin:review_campaign_changelist"),
            link_text="Campaigns",
            count=open_campaigns,
            count_label=("open campaign", "open campaigns"),
            order=60,
        )
