"""Pages for adjudicators (the queue, one item's windows side by side) and admins (reports).
Reviewers are named A, B, C only; every text is escaped by the templates."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_safe

from review.audit.blind import clip_grant
from review.audit.decisions import adjudication_queue, campaign_records, reviewer_letters
from review.audit.selectors import may_adjudicate
from review.audit.services import adjudicate
from review.audit.staff_views import _messages_of
from review.boundary.kind import SCHEME
from review.boundary.media import window_media
from review.boundary.report import report_csv
from review.boundary.reporting import campaign_report
from review.boundary.selectors import (
    adjudication_campaigns_for,
    adjudication_item_or_404,
    report_campaign_or_404,
    report_campaigns_for,
)
from review.boundary.windows import WINDOWS
from review.campaigns.models import Campaign
from studio.roles import is_admin


@login_required
@require_safe
def adjudication_queue_page(request):
    if not may_adjudicate(request.user):
        raise Http404
    rows = []
    for campaign in adjudication_campaigns_for(request.user).filter(state=Campaign.State.OPEN):
        for position, (item_id, waiting) in enumerate(adjudication_queue(campaign, SCHEME), 1):
            rows.append(
                {"campaign": campaign, "item_id": item_id, "position": position, "waiting": waiting}
            )
    return render(request, "boundary/queue.html", {"rows": rows})


def _window_rows(record, per_item: int, clips):
    letters = reviewer_letters(record)
    rows = []
    for rule in WINDOWS:
        decisions = sorted(
            (
                {"reviewer": letters[d.person_id], "label": d.label, "comment": d.comment}
                for d in record.decisions.get(rule.name, ())
            ),
            key=lambda d: d["reviewer"],
        )
        resolution = record.resolution(rule.name, per_item)
        rows.append(
            {
                "window": rule,
                "clip": clips[rule.name],
                "decisions": decisions,
                "resolution": resolution,
                "adjudicated": record.adjudications.get(rule.name),
                "waiting": resolution.state == "needs_adjudication",
            }
        )
    return rows, sorted(letters.values())


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def adjudication_page(request, campaign_id: int, item_id: int):
    campaign, item = adjudication_item_or_404(request.user, campaign_id, item_id)
    errors: list[str] = []
    if request.method == "POST":
        labels = {
            w.name: request.POST[f"label-{w.name}"]
            for w in WINDOWS
            if request.POST.get(f"label-{w.name}")
        }
        try:
            adjudicate(
                campaign=campaign,
                item=item,
                adjudicator=request.user,
                labels=labels,
                comment=request.POST.get("comment", ""),
                scheme=SCHEME,
            )
        except ValidationError as exc:
            errors = _messages_of(exc)
        else:
            messages.success(request, "Adjudication saved.")
            queue = adjudication_queue(campaign, SCHEME)
            if queue:
                return redirect("boundary:adjudicate", campaign.pk, queue[0][0])
            return redirect("boundary:queue")
    record = campaign_records(campaign, item_ids=[item.pk], scheme=SCHEME)[item.pk]
    release_step = item.sample.release_step
    with transaction.atomic():
        grants: list[str] = []
        media = window_media(release_step)
        clips = {name: clip_grant(m, request.user, grants) for name, m in media.items()}
    rows, letters = _window_rows(record, campaign.per_item, clips)
    return render(
        request,
        "boundary/adjudicate.html",
        {
            "campaign": campaign,
            "step": release_step,
            "rows": rows,
            "letters": letters,
            "errors": errors,
        },
    )


@login_required
@require_safe
def report_list(request):
    if not is_admin(request.user):
        raise Http404
    return render(
        request, "boundary/reports.html", {"campaigns": report_campaigns_for(request.user)}
    )


@login_required
@require_safe
def report_page(request, campaign_id: int):
    campaign = report_campaign_or_404(request.user, campaign_id)
    report = campaign_report(campaign)
    wanted = request.GET.get("format")
    if wanted == "json":
        response = JsonResponse(report, json_dumps_params={"indent": 2, "ensure_ascii": False})
        response["Content-Disposition"] = f'attachment; filename="{campaign.name}-boundary.json"'
        return response
    if wanted == "csv":
        response = HttpResponse(report_csv(report), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{campaign.name}-boundary.csv"'
        return response
    return render(request, "boundary/report.html", {"campaign": campaign, "report": report})
