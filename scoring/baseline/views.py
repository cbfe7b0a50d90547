"""The admin's human-baseline report pages: the list of baseline campaigns and one report (HTML,
``?format=json`` or ``?format=csv``: the same document as ``manage.py baseline_report``).
Scenes and rater names are shown here, to admins only; every other user gets a 404."""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from scoring.models import RunKind
from scoring.reports.baseline import report_csv
from scoring.reports.baseline_inputs import BaselineError, baseline_report
from scoring.reports.offers import baseline_offers, judge_from_offer
from scoring.similarity import CHOICES, MINILM, SimilarityUnavailable, similarity
from studio.downloads import as_download
from studio.roles import is_admin


def _campaigns(user):
    from review.baseline.kind import KIND
    from review.campaigns.models import Campaign

    if not is_admin(user):
        raise Http404("No such page.")
    return Campaign.objects.filter(kind=KIND).select_related("manifest")


@login_required
@require_safe
def baseline_list(request):
    from review.campaigns.progress import progress

    rows = [(c, progress(campaign=c)) for c in _campaigns(request.user)]
    return render(request, "scoring/baseline_list.html", {"rows": rows})


@login_required
@require_safe
def baseline_report_page(request, campaign_id: int):
    campaign = _campaigns(request.user).filter(pk=campaign_id).first()
    if campaign is None:
        raise Http404("No such campaign.")
    chosen = request.GET.get("similarity", MINILM)
    if chosen not in CHOICES:
        chosen = MINILM
    try:
        report = baseline_report(campaign, similarity=similarity(chosen))
        error = ""
    except (BaselineError, SimilarityUnavailable) as exc:
        report, error = None, str(exc)
    wanted = request.GET.get("format")
    if report is not None and wanted == "json":
        text = json.dumps(report, ensure_ascii=False, indent=1, sort_keys=True)
        response = HttpResponse(text, content_type="application/json; charset=utf-8")
        as_download(response, f"{campaign.name}-baseline.json")
        return response
    if report is not None and wanted == "csv":
        response = HttpResponse(report_csv(report), content_type="text/csv; charset=utf-8")
        as_download(response, f"{campaign.name}-baseline.csv")
        return response
    context = {
        "campaign": campaign,
        "report": report,
        "error": error,
        "similarity": chosen,
        "offers": baseline_offers(campaign, report),
    }
    return render(request, "scoring/baseline_report.html", context)


@login_required
@require_POST
def baseline_judge(request, campaign_id: int):
    """Start (or resume) a reference judge run over the campaign's answers."""
    campaign = _campaigns(request.user).filter(pk=campaign_id).first()
    if campaign is None:
        raise Http404("No such campaign.")
    return judge_from_offer(
        request,
        kind=RunKind.REFERENCE,
        back=reverse("scoring:baseline-report", args=[campaign.pk]),
        campaign=campaign,
    )
