"""Reads of the boundary audit scoped to a user (as the audit's): reviewers reach their items
only by assignment token; adjudicators and admins every boundary campaign's adjudication queue;
admins alone the reports. Anything else is a 404."""

from __future__ import annotations

from django.db.models import QuerySet

from review.audit.selectors import get_or_404, may_adjudicate
from review.boundary.kind import KIND, SCHEME
from review.campaigns.models import Campaign, CampaignItem
from studio.roles import is_admin


def adjudication_campaigns_for(user) -> QuerySet[Campaign]:
    campaigns = Campaign.objects.filter(kind=KIND).select_related("manifest")
    return campaigns if may_adjudicate(user) else campaigns.none()


def adjudication_count(user) -> int:
    from review.audit.decisions import adjudication_queue

    return sum(
        len(waiting)
        for c in adjudication_campaigns_for(user).filter(state=Campaign.State.OPEN)
        for _, waiting in adjudication_queue(c, SCHEME)
    )


def adjudication_item_or_404(user, campaign_id, item_id) -> tuple[Campaign, CampaignItem]:
    campaign = get_or_404(adjudication_campaigns_for(user), campaign_id, "campaign")
    items = CampaignItem.objects.filter(campaign=campaign).select_related("sample__release_step")
    return campaign, get_or_404(items, item_id, "item")


def report_campaigns_for(user) -> QuerySet[Campaign]:
    campaigns = Campaign.objects.filter(kind=KIND).select_related("manifest__release")
    return campaigns if is_admin(user) else campaigns.none()


def report_campaign_or_404(user, campaign_id) -> Campaign:
    return get_or_404(report_campaigns_for(user), campaign_id, "campaign")
