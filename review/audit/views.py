"""The audit's pages. Reviewers: their campaigns, and the blind item page with its small JSON API
(state, draft, submit, renew) reached only by the assignment's opaque token. Adjudicators: the
queue and the side-by-side page. Admins: the report and the corrections. Every view goes through
one access helper (``review.audit.selectors`` / ``assignment_for_or_404``); outside its scope a
user gets a 404."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from review.audit.blind import blind_state
from review.audit.selectors import (
    audit_campaigns_for_reviewer,
    waiting_in,
)
from review.campaigns.selectors import assignment_for_or_404
from review.campaigns.services import (
    CampaignClosed,
    LeaseLost,
    claim_next,
    renew,
    save_draft,
    submit,
)
from studio.roles import AUDITOR, has_role

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


# --- reviewers ----------------------------------------------------------------------------------


@login_required
@require_safe
def audit_home(request):
    if not has_role(request.user, AUDITOR):
        raise Http404
    campaigns = [
        {"id": c.pk, "instructions": c.instructions, "waiting": waiting_in(c, request.user)}
        for c in audit_campaigns_for_reviewer(request.user).order_by("created_at", "pk")
    ]
    return render(request, "audit/home.html", {"campaigns": campaigns})


@login_required
@require_POST
def audit_next(request, campaign_id: int):
    campaign = audit_campaigns_for_reviewer(request.user).filter(pk=campaign_id).first()
    if campaign is None:
        raise Http404
    try:
        assignment = claim_next(campaign=campaign, person=request.user)
    except (CampaignClosed, PermissionError):
        raise Http404 from None
    wants_json = "application/json" in request.headers.get("Accept", "")
    if assignment is None:
        if wants_json:
            return _json({"url": None, "message": "Nothing is waiting for you in this audit."})
        messages.info(request, "Nothing is waiting for you in this audit right now.")
        return redirect("audit:home")
    url = reverse("audit:item", args=[assignment.token])
    return _json({"url": url}) if wants_json else redirect(url)


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
                "next": reverse("audit:next", args=[assignment.campaign_id]),
                "home": reverse("audit:home"),
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
