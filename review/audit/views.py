"""The reviewer's blind item page and its small JSON API (state, draft, submit, renew), reached
only by the assignment's opaque token; the campaign's own page (review.campaigns) claims items.
Every view goes through ``assignment_for_or_404``: another user's token is a 404."""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from review.audit.blind import blind_state
from review.audit.kind import KIND
from review.campaigns.selectors import assignment_for_or_404 as _assignment_for_or_404
from review.campaigns.services import CampaignClosed, LeaseLost, renew, save_draft, submit

NO_STORE = {"Cache-Control": "private, no-store"}


def _json(data, status=200):
    return JsonResponse(
        data, status=status, headers=NO_STORE, json_dumps_params={"ensure_ascii": False}
    )


def _errors(exc: ValidationError) -> dict:
    if hasattr(exc, "error_dict"):
        return {k: [str(m) for e in v for m in e.messages] for k, v in exc.error_dict.items()}
    return {"detail": exc.messages}


def _body(request) -> dict:
    try:
        data = json.loads(request.body or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ValidationError({"detail": "The body is not JSON."}) from None
    if not isinstance(data, dict):
        raise ValidationError({"detail": "Send a JSON object."})
    return data


# --- the reviewer's item (reached by token only) ---------------------------------------------


def assignment_for_or_404(user, token):
    """The user's own assignment of an audit campaign (another kind's token is a 404 here)."""
    assignment = _assignment_for_or_404(user, token)
    if assignment.campaign.kind != KIND:
        raise Http404("No such assignment.")
    return assignment


@login_required
@require_safe
@never_cache
def audit_item(request, token: str):
    assignment = assignment_for_or_404(request.user, token)
    return render(
        request,
        "audit/item.html",
        {
            "urls": {
                "state": reverse("audit:item-state", args=[token]),
                "draft": reverse("audit:item-draft", args=[token]),
                "submit": reverse("audit:item-submit", args=[token]),
                "renew": reverse("audit:item-renew", args=[token]),
                # The campaign's page claims the next item and opens it (review.campaigns).
                "next": reverse("campaigns:next", args=[assignment.campaign_id]),
            },
        },
    )


@login_required
@require_safe
def audit_item_state(request, token: str):
    assignment = assignment_for_or_404(request.user, token)
    return _json(blind_state(assignment=assignment, user=request.user))


@login_required
@require_http_methods(["PUT", "POST"])
def audit_item_draft(request, token: str):
    assignment = assignment_for_or_404(request.user, token)
    try:
        data = _body(request)
        result = save_draft(
            assignment=assignment,
            person=request.user,
            part=data.get("part", ""),
            payload=data.get("payload"),
        )
    except ValidationError as exc:
        return _json(_errors(exc), status=400)
    except CampaignClosed as exc:
        return _json({"detail": str(exc)}, status=409)
    return _json({"saved_at": result["saved_at"].isoformat(), "lease_held": result["lease_held"]})


@login_required
@require_POST
def audit_item_submit(request, token: str):
    assignment = assignment_for_or_404(request.user, token)
    try:
        data = _body(request)
        part = data.get("part", "")
        submit(assignment=assignment, person=request.user, part=part, payload=data.get("payload"))
    except ValidationError as exc:
        return _json(_errors(exc), status=400)
    except (LeaseLost, CampaignClosed) as exc:
        return _json({"detail": str(exc)}, status=409)
    assignment.refresh_from_db()
    return _json(blind_state(assignment=assignment, user=request.user), status=201)


@login_required
@require_POST
def audit_item_renew(request, token: str):
    assignment = assignment_for_or_404(request.user, token)
    return _json({"lease_held": renew(assignment=assignment, person=request.user)})
