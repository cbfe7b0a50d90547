"""A participant's campaign page: what the campaign asks, how far they are, and a button that
claims their next item and opens it on the kind's page (reached by its opaque token only)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_http_methods

from review.campaigns.kinds import campaign_kind
from review.campaigns.models import Assignment
from review.campaigns.selectors import participating_campaign_or_404
from review.campaigns.services import CampaignClosed, claim_next, claimable_later


@login_required
@require_http_methods(["GET", "POST"])
def campaign_next(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = participating_campaign_or_404(request.user, campaign_id)
    kind = campaign_kind(campaign.kind)
    if request.method == "POST":
        try:
            assignment = claim_next(campaign=campaign, person=request.user)
        except CampaignClosed as exc:
            messages.error(request, str(exc))
            return redirect("campaigns:next", campaign.pk)
        if assignment is None:
            later = claimable_later(campaign=campaign, person=request.user)
            messages.info(
                request,
                "Nothing is free for you right now: others hold the items you have left. Try "
                "again in a few minutes."
                if later
                else "You have done every item of this campaign. Thank you.",
            )
            return redirect("campaigns:next", campaign.pk)
        url = kind.page_url(assignment)
        if url:
            return redirect(url)
        messages.info(request, "This kind of campaign has no page yet.")
        return redirect("campaigns:next", campaign.pk)
    mine = Assignment.objects.filter(campaign=campaign, person=request.user)
    context = {
        "title": f"{kind.label}: {campaign.name}",
        "campaign": campaign,
        "done": mine.filter(state=Assignment.State.DONE).count(),
        "holding": mine.filter(state=Assignment.State.LEASED).exists(),
        "later": claimable_later(campaign=campaign, person=request.user) if campaign.is_open else 0,
    }
    return TemplateResponse(request, "review/campaign_next.html", context)
