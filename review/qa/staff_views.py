"""Admin pages of the QA groups: the versions of the group set, and one version with its
proposed edits (original beside proposal), the decisions on them, and its diff to the parent.
Admins only (404 for anyone else: the pages name groups and reviewers)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_safe

from review.campaigns.staff_views import messages_of
from review.qa.models import QaEdit, QaGroupSet
from review.qa.selectors import edits_of_set, group_sets
from review.qa.services import qa_edit_decline, qa_version_create, version_diff
from studio.roles import admin_or_404


@login_required
@require_safe
def set_list(request):
    admin_or_404(request)
    return render(request, "qa/sets.html", {"sets": group_sets().select_related("parent")})


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def set_page(request, set_id: int):
    admin_or_404(request)
    group_set = get_object_or_404(QaGroupSet, pk=set_id, frozen_at__isnull=False)
    errors: list[str] = []
    if request.method == "POST":
        action = request.POST.get("action")
        chosen = [int(x) for x in request.POST.getlist("edit") if x.isdigit()]
        edits = list(QaEdit.objects.filter(pk__in=chosen, group__group_set=group_set))
        try:
            if action == "decline":
                for edit in edits:
                    qa_edit_decline(edit=edit, admin=request.user)
                messages.success(request, f"Declined {len(edits)} edit(s).")
                return redirect("qa:set", set_id=group_set.pk)
            if action == "accept":
                child = qa_version_create(
                    parent=group_set,
                    name=request.POST.get("name", "").strip(),
                    edits=edits,
                    admin=request.user,
                    note=request.POST.get("note", ""),
                )
                messages.success(request, f"Froze {child.name} with {len(edits)} edit(s).")
                return redirect("qa:set", set_id=child.pk)
            errors.append("Choose decline or accept.")
        except ValidationError as exc:
            errors.extend(messages_of(exc))
    return render(
        request,
        "qa/set.html",
        {
            "group_set": group_set,
            "edits": edits_of_set(group_set),
            "diff": version_diff(group_set),
            "errors": errors,
            "status": 400 if errors else 200,
        },
        status=400 if errors else 200,
    )
