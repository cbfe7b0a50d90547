"""Pages for adjudicators (the queue, one item's windows side by side) and admins (reports).
Reviewers are named A, B, C only; every text is escaped by the templates. The adjudication is
the audit's, keyed by the boundary ``SCHEME``; the page handling is review.campaigns'."""

from __future__ import annotations

from functools import partial

from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_http_methods, require_safe

from review.audit.blind import clip_grant
from review.audit.decisions import adjudication_queue, campaign_records, reviewer_letters
from review.audit.selectors import may_adjudicate
from review.audit.services import adjudicate
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
from review.boundary.windows import WINDOW_NAMES, WINDOWS
from review.campaigns.staff_views import (
    adjudication_post,
    admin_or_404,
    decision_rows,
    queue_rows,
    references_logged,
    references_refused,
    report_response,
)

queue = partial(adjudication_queue, scheme=SCHEME)


@login_required
@require_safe
def adjudication_queue_page(request):
    if not may_adjudicate(request.user):
        raise Http404
    rows = queue_rows(adjudication_campaigns_for(request.user), queue)
    return render(request, "boundary/queue.html", {"rows": rows})


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def adjudication_page(request, campaign_id: int, item_id: int):
    campaign, item = adjudication_item_or_404(request.user, campaign_id, item_id)
    refused = references_refused(request, item)
    if refused is not None:
        return refused
    errors: list[str] = []
    if request.method == "POST":
        done, errors = adjudication_post(
            request, campaign=campaign, item=item, keys=WINDOW_NAMES,
            adjudicate=partial(adjudicate, scheme=SCHEME), queue=queue, namespace="boundary",
        )  # fmt: skip
        if done:
            return done
    record = campaign_records(campaign, item_ids=[item.pk], scheme=SCHEME)[item.pk]
    release_step = item.sample.release_step
    with transaction.atomic():
        grants: list[str] = []
        media = window_media(release_step)
        clips = {name: clip_grant(m, request.user, grants) for name, m in media.items()}
    letters = reviewer_letters(record)
    rows = decision_rows(
        record, WINDOW_NAMES, per_item=campaign.per_item, letters=letters,
        fields=("label", "comment"),
    )  # fmt: skip
    for rule, row in zip(WINDOWS, rows, strict=True):
        row.update(window=rule, clip=clips[rule.name])
    references_logged(request, item)
    return render(
        request,
        "boundary/adjudicate.html",
        {
            "campaign": campaign,
            "step": release_step,
            "rows": rows,
            "letters": sorted(letters.values()),
            "errors": errors,
        },
    )


@login_required
@require_safe
def report_list(request):
    admin_or_404(request)
    return render(
        request, "boundary/reports.html", {"campaigns": report_campaigns_for(request.user)}
    )


@login_required
@require_safe
def report_page(request, campaign_id: int):
    campaign = report_campaign_or_404(request.user, campaign_id)
    return report_response(
        request, campaign=campaign, report=campaign_report(campaign), csv=report_csv,
        suffix="boundary", template="boundary/report.html",
    )  # fmt: skip
