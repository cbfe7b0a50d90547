"""Reads of the audit scoped to a user: the one access path for each audit page.

- reviewers (auditors in the campaign) reach their items only by assignment token
  (``review.campaigns.selectors.assignment_for_or_404``);
- adjudicators and admins reach every audit campaign's adjudication queue and its corrections
  (adjudicators record corrections: their role reads all annotation and edits it through them);
- admins alone reach reports (they name scenes) and freeze the corrected release.
Anything outside a user's scope is a 404."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from review.audit.kind import KIND
from review.campaigns.models import Campaign, CampaignItem
from studio.roles import ADJUDICATOR, ADMIN, is_admin, roles_of


def may_adjudicate(user) -> bool:
    return bool(roles_of(user) & {ADJUDICATOR, ADMIN})


# Who resolves the disagreements also records the corrections they call for.
may_correct = may_adjudicate


def adjudication_campaigns_for(user) -> QuerySet[Campaign]:
    campaigns = Campaign.objects.filter(kind=KIND).select_related("manifest")
    return campaigns if may_adjudicate(user) else campaigns.none()


def adjudication_count(user) -> int:
    from review.audit.decisions import adjudication_queue

    return sum(
        len(waiting)
        for c in adjudication_campaigns_for(user).filter(state=Campaign.State.OPEN)
        for _, waiting in adjudication_queue(c)
    )


def get_or_404(queryset, pk, what):
    try:
        return queryset.get(pk=pk)
    except (queryset.model.DoesNotExist, ValueError, TypeError):
        raise Http404(f"No such {what}.") from None


def adjudication_item_or_404(user, campaign_id, item_id) -> tuple[Campaign, CampaignItem]:
    campaign = get_or_404(adjudication_campaigns_for(user), campaign_id, "campaign")
    items = CampaignItem.objects.filter(campaign=campaign).select_related("sample__release_step")
    return campaign, get_or_404(items, item_id, "item")


def report_campaign_or_404(user, campaign_id) -> Campaign:
    campaigns = Campaign.objects.filter(kind=KIND).select_related("manifest__release")
    return get_or_404(campaigns if is_admin(user) else campaigns.none(), campaign_id, "campaign")


def correction_campaigns_for(user) -> QuerySet[Campaign]:
    campaigns = Campaign.objects.filter(kind=KIND).select_related("manifest__release")
    return campaigns if may_correct(user) else campaigns.none()


def correction_campaign_or_404(user, campaign_id) -> Campaign:
    return get_or_404(correction_campaigns_for(user), campaign_id, "campaign")
