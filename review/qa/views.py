"""The QA reviewer's item page and its small JSON API (state, draft, submit, renew), reached only
by the assignment's opaque token (``assignment_for_or_404``: another user's token is a 404)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from review.audit.views import _body, _errors, _json
from review.campaigns.selectors import assignment_for_or_404
from review.campaigns.services import CampaignClosed, LeaseLost, renew, save_draft
from review.qa.blind import review_state
from review.qa.services import qa_review_submit


@login_required
@require_safe
@never_cache
def qa_item(request, token: str):
    assignment = assignment_for_or_404(request.user, token)
    return render(
        request,
        "qa/item.html",
        {
            "urls": {
                "state": reverse("qa:item-state", args=[token]),
                "draft": reverse("qa:item-draft", args=[token]),
                "submit": reverse("qa:item-submit", args=[token]),
                "renew": reverse("qa:item-renew", args=[token]),
                "next": reverse("campaigns:next", args=[assignment.campaign_id]),
            },
        },
    )


@login_required
@require_safe
def qa_item_state(request, token: str):
    assignment = assignment_for_or_404(request.user, token)
    return _json(review_state(assignment=assignment, user=request.user))


@login_required
@require_http_methods(["PUT", "POST"])
def qa_item_draft(request, token: str):
    assignment = assignment_for_or_404(request.user, token)
    try:
        data = _body(request)
        result = save_draft(
            assignment=assignment, person=request.user, part="", payload=data.get("payload")
        )
    except ValidationError as exc:
        return _json(_errors(exc), status=400)
    except CampaignClosed as exc:
        return _json({"detail": str(exc)}, status=409)
    return _json({"saved_at": result["saved_at"].isoformat(), "lease_held": result["lease_held"]})


@login_required
@require_POST
def qa_item_submit(request, token: str):
    assignment = assignment_for_or_404(request.user, token)
    try:
        data = _body(request)
        qa_review_submit(assignment=assignment, person=request.user, payload=data.get("payload"))
    except ValidationError as exc:
        return _json(_errors(exc), status=400)
    except (LeaseLost, CampaignClosed) as exc:
        return _json({"detail": str(exc)}, status=409)
    assignment.refresh_from_db()
    return _json(review_state(assignment=assignment, user=request.user), status=201)


@login_required
@require_POST
def qa_item_renew(request, token: str):
    assignment = assignment_for_or_404(request.user, token)
    return _json({"lease_held": renew(assignment=assignment, person=request.user)})
