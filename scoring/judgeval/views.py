"""The judge-validation report pages (admins only; everyone else gets a 404): the list of
judge-validation campaigns and one campaign's report, with its JSON and CSV."""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from review.campaigns.models import Campaign
from scoring.judgeval.reading import campaign_report
from scoring.judgeval.report import ALL, report_csv
from scoring.reports.offers import judge_from_offer, judgeval_offers
from studio.downloads import as_download
from studio.roles import is_admin

KIND = "judge_validation"


def _campaign_or_404(user, campaign_id: int) -> Campaign:
    if not is_admin(user):
        raise Http404
    campaign = Campaign.objects.filter(pk=campaign_id, kind=KIND).select_related("manifest").first()
    if campaign is None:
        raise Http404("No such judge-validation campaign.")
    return campaign


@login_required
@require_safe
def judgeval_list(request):
    if not is_admin(request.user):
        raise Http404
    campaigns = Campaign.objects.filter(kind=KIND).select_related("manifest").order_by("name")
    return render(request, "scoring/judgeval_list.html", {"campaigns": campaigns})


@login_required
@require_safe
def judgeval_report_page(request, campaign_id: int):
    campaign = _campaign_or_404(request.user, campaign_id)
    report = campaign_report(campaign=campaign)
    fmt = request.GET.get("format", "")
    if fmt == "json":
        body = json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False)
        return HttpResponse(body, content_type="application/json; charset=utf-8")
    if fmt == "csv":
        response = HttpResponse(report_csv(report), content_type="text/csv; charset=utf-8")
        as_download(response, f"{campaign.name}-report.csv")
        return response
    humans = [{"dimension": d, **report["humans"][d]} for d in ALL]
    judges = []
    for j in report["judges"]:
        judges.append(
            {
                **j,
                "rows": [{"dimension": d, **j["agreement"][d]} for d in ALL],
                "loo": next(
                    (x for x in report["leave_one_out"]["judges"] if x["judge"] == j["judge"]), {}
                ),
            }
        )
    loo_humans = [
        {"column": h["column"], "rows": [{"dimension": d, **h[d]} for d in ALL]}
        for h in report["leave_one_out"]["humans"]
    ]
    return render(
        request,
        "scoring/judgeval_report.html",
        {
            "campaign": campaign,
            "report": report,
            "humans": humans,
            "judges": judges,
            "loo_humans": loo_humans,
            "dimensions": ALL,
            "offers": judgeval_offers(campaign, report),
        },
    )


@login_required
@require_POST
def judgeval_judge(request, campaign_id: int):
    """Start (or resume) a reference judge or blind LLM rater over the campaign's predictions."""
    from review.judgeval.selectors import campaign_triplets
    from scoring.models import Run, RunKind

    campaign = _campaign_or_404(request.user, campaign_id)
    kind = request.POST.get("kind", "")
    if kind not in (RunKind.REFERENCE, RunKind.RATER):
        raise Http404("No such judge.")
    names = sorted({t["run"] for t in campaign_triplets(campaign=campaign)})
    return judge_from_offer(
        request,
        kind=kind,
        back=reverse("scoring:judgeval-report", args=[campaign.pk]),
        runs=list(Run.objects.filter(name__in=names).order_by("name")),
    )
