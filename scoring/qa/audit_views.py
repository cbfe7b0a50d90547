"""The QA audit pages (admins only; anyone else gets a 404): the list of audits, one audit's flags
per group with the evidence of each (which models answered correctly under which condition), its
filter list download, and a button that opens a QA review campaign over the flagged groups."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST, require_safe

from review.qa.models import QaGroup, QaTurn
from scoring.models import QaAudit
from scoring.qa.audit_rules import CONDITIONS, FLAGS
from scoring.qa.audits import audit_campaign, filter_bytes, flagged_uids
from scoring.runs.forms import name_field
from studio.downloads import as_download
from studio.roles import admin_or_404
from studio.vocabulary import label

NEW_NAME = "Lower-case letters, digits, '_', '.' and '-'; a name not taken yet."


class AuditCampaignForm(forms.Form):
    campaign = name_field(help_text=NEW_NAME)
    manifest = name_field(help_text=NEW_NAME)
    people = forms.ModelMultipleChoiceField(
        get_user_model().objects.none(), help_text="Who reviews the flagged groups"
    )
    seed = forms.IntegerField(min_value=0, initial=0, help_text="Order of the items")

    def __init__(self, *args, audit: QaAudit, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["people"].queryset = (
            get_user_model().objects.filter(is_active=True).order_by("username")
        )
        self.fields["manifest"].initial = f"{audit.name}-flags"
        self.fields["campaign"].initial = f"{audit.name}-review"
        self.fields["campaign"].label = "Campaign name"
        self.fields["manifest"].label = "Manifest name"


@login_required
@require_safe
def qa_audit_list(request):
    admin_or_404(request)
    audits = QaAudit.objects.select_related("manifest").order_by("name")
    return render(request, "scoring/qa_audits.html", {"audits": audits})


def _rows(audit: QaAudit, shown: str) -> list[dict]:
    rows = [r for r in audit.result["groups"] if (r["flags"] if shown == "flagged" else True)]
    if shown in FLAGS:
        rows = [r for r in audit.result["groups"] if shown in r["flags"]]
    found = QaGroup.objects.filter(
        group_set=audit.manifest.qa_source.group_set, uid__in=[r["group"] for r in rows]
    )
    names = {str(g.uid): g.display_name for g in found.select_related("video")}
    questions = dict(
        QaTurn.objects.filter(group__in=found, position=0).values_list("group__uid", "question")
    )
    questions = {str(uid): q for uid, q in questions.items()}
    shown_rows = []
    for r in rows:
        votes = [
            {
                "flag": v["flag"],
                "flagged": v["flag"] in r["flags"],
                "conditions": ", ".join(label("qa_audit_condition", c) for c in v["conditions"]),
                "correct": v["correct"],
                "voters": len(v["voters"]),
            }
            for v in r["votes"]
        ]
        answers = [
            {
                "model": model,
                "conditions": [
                    (label("qa_audit_condition", c), label("qa_audit_verdict", v or "pending"),
                     v == "correct")
                    for c, v in sorted(by_c.items(), key=lambda cv: CONDITIONS.index(cv[0]))
                ],
            }
            for model, by_c in sorted(r["verdicts"].items())
        ]  # fmt: skip
        name = names.get(r["group"], "a group no longer in its set")
        question = questions.get(r["group"], "")
        shown_rows.append(
            {**r, "name": name, "question": question, "vote_list": votes, "answers": answers}
        )
    return shown_rows


@login_required
@require_safe
def qa_audit_page(request, audit_id: int, form=None):
    admin_or_404(request)
    audit = get_object_or_404(QaAudit.objects.select_related("manifest"), pk=audit_id)
    fmt = request.GET.get("format")
    if fmt == "jsonl":
        response = HttpResponse(
            filter_bytes(audit), content_type="application/jsonl; charset=utf-8"
        )
        return as_download(response, f"{audit.name}-flags.jsonl")
    if fmt:
        raise Http404
    shown = request.GET.get("show", "flagged")
    if shown not in ("flagged", "all", *FLAGS):
        shown = "flagged"
    counts = audit.result["counts"]
    return render(
        request,
        "scoring/qa_audit.html",
        {
            "audit": audit,
            "rows": _rows(audit, shown),
            "shown": shown,
            "flag_counts": [(f, counts[f]) for f in FLAGS],
            "flagged": counts["any"],
            "total": len(audit.result["groups"]),
            "inputs": sorted(
                audit.inputs, key=lambda i: (i["model"], CONDITIONS.index(i["condition"]))
            ),
            "form": form or AuditCampaignForm(audit=audit),
            "can_open": bool(flagged_uids(audit)),
        },
    )


@login_required
@require_POST
def qa_audit_campaign(request, audit_id: int):
    admin_or_404(request)
    audit = get_object_or_404(QaAudit, pk=audit_id)
    form = AuditCampaignForm(request.POST, audit=audit)
    if form.is_valid():
        data = form.cleaned_data
        try:
            campaign = audit_campaign(
                audit=audit,
                manifest_name=data["manifest"],
                campaign_name=data["campaign"],
                people=data["people"],
                seed=data["seed"],
                author=request.user,
            )
        except ValidationError as exc:
            form.add_error(None, "; ".join(exc.messages))
        else:
            messages.success(
                request,
                f"QA review campaign {campaign.name} opened over the "
                f"{campaign.manifest.sample_count} flagged groups.",
            )
            return redirect("scoring:qa-report", campaign.pk)
    request.method = "GET"
    response = qa_audit_page(request, audit_id, form=form)
    response.status_code = 400
    return response
