"""QA-review report pages (admins only; anyone else gets a 404): the list of QA-review campaigns
and one campaign's report, with JSON and CSV downloads of the same numbers."""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe

from review.campaigns.models import Campaign
from scoring.models import Run
from scoring.models.runs import RunKind
from scoring.reports.qa_review import qa_review_report, report_csv
from studio.roles import is_admin

KIND = "qa_review"


def _campaign_or_404(request, campaign_id: int) -> Campaign:
    if not is_admin(request.user):
        raise Http404
    return get_object_or_404(Campaign, pk=campaign_id, kind=KIND)


def _pct(x):
    return "—" if x is None else f"{100 * x:.1f}%"


@login_required
@require_safe
def qa_report_list(request):
    if not is_admin(request.user):
        raise Http404
    campaigns = Campaign.objects.filter(kind=KIND).select_related("manifest").order_by("name")
    return render(request, "scoring/qa_reports.html", {"campaigns": campaigns})


@login_required
@require_safe
def qa_report_page(request, campaign_id: int):
    campaign = _campaign_or_404(request, campaign_id)
    names = request.GET.getlist("judge")
    runs = Run.objects.filter(kind=RunKind.QA, name__in=names) if names else None
    report = qa_review_report(campaign=campaign, judge_runs=runs)
    fmt = request.GET.get("format")
    if fmt == "json":
        response = HttpResponse(
            json.dumps(report, ensure_ascii=False, indent=2, sort_keys=True),
            content_type="application/json; charset=utf-8",
        )
    elif fmt == "csv":
        response = HttpResponse(report_csv(report), content_type="text/csv; charset=utf-8")
    elif fmt:
        raise Http404
    if fmt:
        response["Content-Disposition"] = f'attachment; filename="{campaign.name}-qa-report.{fmt}"'
        response["X-Content-Type-Options"] = "nosniff"
        return response
    decisions = [
        {
            **r,
            "rate_text": _pct(r["rate"]),
            "interval_text": f"[{_pct(r['low'])}, {_pct(r['high'])}]",
        }
        for r in report["decisions"]
    ]
    judge = [
        {**r, "accuracy_text": _pct(r["accuracy"]),
         "mean_text": "—" if r["mean_score"] is None else f"{r['mean_score']:.2f}"}
        for r in report["judge"]
    ]  # fmt: skip
    return render(
        request,
        "scoring/qa_report.html",
        {"campaign": campaign, "report": report, "decisions": decisions, "judge": judge},
    )
