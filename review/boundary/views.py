"""The boundary reviewer's blind item page and its small JSON answers (state, draft, submit,
renew), reached only by the assignment's opaque token (another user's token is a 404). The
request handling is the audit's (``review.audit.views``); only the state differs."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from review.audit.views import _body, _errors, _json
from review.boundary.blind import blind_state
from review.boundary.kind import KIND, PART
from review.campaigns.selectors import assignment_for_or_404
from review.campaigns.services import CampaignClosed, LeaseLost, renew, save_draft, submit


def _own(request, token):
    assignment = assignment_for_or_404(request.user, token)
    if assignment.campaign.kind != KIND:
        raise Http404("No such assignment.")
    return assignment


@login_required
@require_safe
@never_cache
def boundary_item(request, token: str):
    assignment = _own(request, token)
    return render(
        request,
        "boundary/item.html",
        {
            "urls": {
                "state": reverse("boundary:item-state", args=[token]),
                "draft": reverse("boundary:item-draft", args=[token]),
                "submit": reverse("boundary:item-submit", args=[token]),
                "renew": reverse("boundary:item-renew", args=[token]),
                "next": reverse("campaigns:next", args=[assignment.campaign_id]),
            },
        },
    )


@login_required
@require_safe
def boundary_item_state(request, token: str):
    assignment = _own(request, token)
    return _json(blind_state(assignment=assignment, user=request.user))


@login_required
@require_http_methods(["PUT", "POST"])
def boundary_item_draft(request, token: str):
    assignment = _own(request, token)
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
def boundary_item_submit(request, token: str):
    assignment = _own(request, token)
    try:
        data = _body(request)
        submit(assignment=assignment, person=request.user, part=PART, payload=data.get("payload"))
    except ValidationError as exc:
        return _json(_errors(exc), status=400)
    except (LeaseLost, CampaignClosed) as exc:
        return _json({"detail": str(exc)}, status=409)
    assignment.refresh_from_db()
    return _json(blind_state(assignment=assignment, user=request.user), status=201)


@login_required
@require_POST
def boundary_item_renew(request, token: str):
    assignment = _own(request, token)
    return _json({"lease_held": renew(assignment=assignment, person=request.user)})
