"""Campaign reads scoped to a user. A person reaches an assignment only through its token and
only their own; anything else is missing (404), so tokens and ids cannot be probed."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from review.campaigns.models import Assignment, Campaign
from studio.roles import is_admin


def campaigns_for(user) -> QuerySet[Campaign]:
    """Every campaign, for admins (the campaign pages and progress)."""
    campaigns = Campaign.objects.select_related("manifest")
    return campaigns if is_admin(user) else campaigns.none()


def my_campaigns(user) -> QuerySet[Campaign]:
    """Open campaigns the user takes part in."""
    if not user.is_authenticated:
        return Campaign.objects.none()
    return Campaign.objects.filter(people=user, state=Campaign.State.OPEN)


def campaign_for_or_404(user, pk) -> Campaign:
    try:
        return campaigns_for(user).get(pk=pk)
    except (Campaign.DoesNotExist, ValueError, TypeError):
        raise Http404("No such campaign.") from None


def participating_campaign_or_404(user, pk) -> Campaign:
    """A campaign the user takes part in (open or closed)."""
    if not user.is_authenticated:
        raise Http404("No such campaign.")
    try:
        return Campaign.objects.filter(people=user).get(pk=pk)
    except (Campaign.DoesNotExist, ValueError, TypeError):
        raise Http404("No such campaign.") from None


def assignment_for_or_404(user, token, *, kind: str | None = None) -> Assignment:
    """The user's own assignment with this token; with ``kind``, only of a campaign of that kind
    (a kind's pages never open another kind's assignment)."""
    if not user.is_authenticated or not isinstance(token, str) or len(token) > 64:
        raise Http404("No such assignment.")
    assignments = Assignment.objects.select_related("campaign", "item")
    if kind is not None:
        assignments = assignments.filter(campaign__kind=kind)
    try:
        return assignments.get(token=token, person=user)
    except Assignment.DoesNotExist:
        raise Http404("No such assignment.") from None
