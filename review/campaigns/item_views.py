"""The one reviewer item page of every campaign kind: the blind page and its small JSON answers
(state, draft, submit, renew), reached only by the assignment's opaque token.

A kind describes its page with an ``ItemPages`` (its name, URL namespace, template, state
function, how the part is chosen) and mounts ``pages.urlpatterns()`` in its own ``urls.py``; a
kind's extra views stay in the kind. Every view goes through ``assignment_for_or_404`` with the
kind: another user's token, or a token of another kind's campaign, is a 404. Bodies are read by
``payloads.request_body`` and payloads checked by the services (``payloads.check_payload``), as
the API's are. Errors are JSON: invalid input 400 (nothing written), a closed campaign or a lost
lease 409, and an item the exposure rule keeps from its person now 409 (nothing shown)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import JsonResponse
from django.shortcuts import render
from django.urls import re_path, reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from review.campaigns import exposure, services
from review.campaigns.payloads import request_body
from review.campaigns.selectors import assignment_for_or_404, item_progress

NO_STORE = {"Cache-Control": "private, no-store"}
ASSIGNMENT_RE = r"(?P<token>[A-Za-z0-9_-]{20,64})"


def json_response(data, status: int = 200) -> JsonResponse:
    return JsonResponse(
        data, status=status, headers=NO_STORE, json_dumps_params={"ensure_ascii": False}
    )


def errors_of(exc: ValidationError) -> dict:
    """A ValidationError as ``{field: [messages]}`` (``{"detail": [...]}`` without fields); the
    item page names each field as it labels it (campaign-item.js, ``problemsOf``)."""
    if hasattr(exc, "error_dict"):
        return {k: [str(m) for e in v for m in e.messages] for k, v in exc.error_dict.items()}
    return {"detail": exc.messages}


@dataclass(frozen=True)
class ItemPages:
    """What differs between the kinds' item pages.

    - ``kind``: the campaign kind's name (a token of another kind is a 404).
    - ``namespace``: the URL namespace the kind's ``urls.py`` declares (``audit``).
    - ``template``: the page; it gets ``urls`` (state, draft, submit, renew, next).
    - ``state(assignment=, user=) -> dict``: the blind state the page renders (the answers add
      ``progress``, the same for every kind).
    - ``part``: the part every draft and submission is for; None takes ``"part"`` from the body
      (kinds with several parts: the audit's phases, judge validation's triplets).

    Drafts and submissions go through the campaign services, as the API's do (a kind's own
    records of a submission come from its ``on_submit`` hook, not from a page of its own).
    """

    kind: str
    namespace: str
    template: str
    state: Callable[..., dict]
    part: str | None = None

    def assignment(self, request, token):
        return assignment_for_or_404(request.user, token, kind=self.kind)

    def page_state(self, assignment, user) -> dict:
        """The kind's blind state and, the same on every kind's page, the person's progress
        ("item n of N", the time spent on the item)."""
        return {
            **self.state(assignment=assignment, user=user),
            "progress": item_progress(assignment),
        }

    def part_of(self, data: dict):
        return data.get("part", "") if self.part is None else self.part

    def urls(self, assignment) -> dict:
        token = assignment.token
        urls = {
            name: reverse(f"{self.namespace}:item-{name}", args=[token])
            for name in ("state", "draft", "submit", "renew")
        }
        # The campaign's page claims the next item and opens it (review.campaigns).
        urls["next"] = reverse("campaigns:next", args=[assignment.campaign_id])
        return urls

    def urlpatterns(self) -> list:
        """The item URLs (``item``, ``item-state`` … ``item-renew``) under the kind's prefix."""
        kwargs = {"pages": self}
        return [
            re_path(rf"^i/{ASSIGNMENT_RE}/$", item_page, kwargs, name="item"),
            re_path(rf"^i/{ASSIGNMENT_RE}/state$", item_state, kwargs, name="item-state"),
            re_path(rf"^i/{ASSIGNMENT_RE}/draft$", item_draft, kwargs, name="item-draft"),
            re_path(rf"^i/{ASSIGNMENT_RE}/submit$", item_submit, kwargs, name="item-submit"),
            re_path(rf"^i/{ASSIGNMENT_RE}/renew$", item_renew, kwargs, name="item-renew"),
        ]


@login_required
@require_safe
@never_cache
def item_page(request, token: str, *, pages: ItemPages):
    assignment = pages.assignment(request, token)
    return render(request, pages.template, {"urls": pages.urls(assignment)})


@login_required
@require_safe
def item_state(request, token: str, *, pages: ItemPages):
    assignment = pages.assignment(request, token)
    refused = exposure.refusal(assignment)  # the exposure rule, whenever the item was claimed
    if refused:
        return json_response({"detail": refused}, status=409)
    return json_response(pages.page_state(assignment, request.user))


@login_required
@require_http_methods(["PUT", "POST"])
def item_draft(request, token: str, *, pages: ItemPages):
    assignment = pages.assignment(request, token)
    try:
        data = request_body(request)
        result = services.save_draft(
            assignment=assignment,
            person=request.user,
            part=pages.part_of(data),
            payload=data.get("payload"),
        )
    except ValidationError as exc:
        return json_response(errors_of(exc), status=400)
    except services.CampaignClosed as exc:
        return json_response({"detail": str(exc)}, status=409)
    return json_response(
        {"saved_at": result["saved_at"].isoformat(), "lease_held": result["lease_held"]}
    )


@login_required
@require_POST
def item_submit(request, token: str, *, pages: ItemPages):
    assignment = pages.assignment(request, token)
    try:
        data = request_body(request)
        services.submit(
            assignment=assignment,
            person=request.user,
            part=pages.part_of(data),
            payload=data.get("payload"),
        )
    except ValidationError as exc:
        return json_response(errors_of(exc), status=400)
    except (services.LeaseLost, services.CampaignClosed) as exc:
        return json_response({"detail": str(exc)}, status=409)
    assignment.refresh_from_db()
    return json_response(pages.page_state(assignment, request.user), status=201)


@login_required
@require_POST
def item_renew(request, token: str, *, pages: ItemPages):
    assignment = pages.assignment(request, token)
    return json_response({"lease_held": services.renew(assignment=assignment, person=request.user)})
