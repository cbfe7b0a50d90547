"""The rater's blind item page and its small JSON API (state, draft, submit, renew), reached
only by the assignment's opaque token; the campaign's own page (review.campaigns) claims items.
Every view goes through ``assignment_for_or_404``: another user's token is a 404. Flagging a
broken item is a submission of ``{"broken": true}`` through the same submit."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from review.audit.views import _body, _errors, _json
from review.baseline.blind import rater_state
from review.baseline.kind import KIND, PART
from review.campaigns.selectors import assignment_for_or_404
from review.campaigns.services import CampaignClosed, LeaseLost, renew, save_draft, submit


def _mine(request, token):
    assignment = assignment_for_or_404(request.user, token)
    if assignment.campaign.kind != KIND:
        from django.http import Http404

        raise Http404("No such assignment.")
    return assignment


@login_required
@require_safe
@never_cache
def baseline_item(request, token: str):
    assignment = _mine(request, token)
    return render(
        request,
        "baseline/item.html",
        {
            "urls": {
                "state": reverse("baseline:item-state", args=[token]),
                "draft": reverse("baseline:item-draft", args=[token]),
                "submit": reverse("baseline:item-submit", args=[token]),
                "renew": reverse("baseline:item-renew", args=[token]),
                "next": reverse("campaigns:next", args=[assignment.campaign_id]),
            },
        },
    )


@login_required
@require_safe
def baseline_item_state(request, token: str):
    assignment = _mine(request, token)
    return _json(rater_state(assignment=assignment, user=request.user))


@login_required
@require_http_methods(["PUT", "POST"])
def baseline_item_draft(request, token: str):
    assignment = _mine(request, token)
    try:
        data = _body(request)
        result = save_draft(
            assignment=assignment, person=request.user, part=PART, payload=data.get("payload")
        )
    except ValidationError as exc:
        return _json(_errors(exc), status=400)
    except CampaignClosed as exc:
        return _json({"detail": str(exc)}, status=409)
    return _json({"saved_at": result["saved_at"].isoformat(), "lease_held": result["lease_held"]})


@login_required
@require_POST
def baseline_item_submit(request, token: str):
    assignment = _mine(request, token)
    try:
        data = _body(request)
        submit(assignment=assignment, person=request.user, part=PART, payload=data.get("payload"))
    except ValidationError as exc:
        return _json(_errors(exc), status=400)
    except (LeaseLost, CampaignClosed) as exc:
        return _json({"detail": str(exc)}, status=409)
    assignment.refresh_from_db()
    return _json(rater_state(assignment=assignment, user=request.user), status=201)


@login_required
@require_POST
def baseline_item_renew(request, token: str):
    assignment = _mine(request, token)
    return _json({"lease_held": renew(assignment=assignment, person=request.user)})
