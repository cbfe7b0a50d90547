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


def seconds_on_item(assignment: Assignment, at) -> float | None:
    """Seconds from the first time the item was shown to its person (their first exposure)
    until ``at``, by the server's clock; None when it was never shown (an import)."""
    from review.campaigns.models import Exposure

    first = (
        Exposure.objects.filter(assignment=assignment)
        .order_by("created_at")
        .values_list("created_at", flat=True)
        .first()
    )
    if first is None:
        return None
    return round(max((at - first).total_seconds(), 0.0), 3)


def item_progress(assignment: Assignment) -> dict:
    """Where the person stands on their item page: ``position`` of ``of`` ("item 3 of 8": the
    items they have done, this one, and those that may still come to them) and ``seconds`` spent
    on this item (``seconds_on_item``, until they finished it)."""
    from review.campaigns.services import claimable_later
    from studio.services import now

    done = Assignment.objects.filter(
        campaign_id=assignment.campaign_id,
        person_id=assignment.person_id,
        state=Assignment.State.DONE,
    )
    finished = assignment.state == Assignment.State.DONE
    if finished:
        until = assignment.done_at or assignment.updated_at
        position = done.filter(done_at__lte=until).count() or 1
    else:
        until = now()
        position = done.count() + 1
    total = done.count() + claimable_later(campaign=assignment.campaign, person=assignment.person)
    return {
        "position": position,
        "of": max(total, position),
        "seconds": int(seconds_on_item(assignment, until) or 0),
        "done": finished,
    }
