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
from review.boundary.media import step_windows, window_media
from review.boundary.report import report_csv
from review.boundary.reporting import campaign_report
from review.boundary.selectors import (
    adjudication_campaigns_for,
    adjudication_item_or_404,
    report_campaign_or_404,
    report_campaigns_for,
)
from review.boundary.windows import BY_NAME, WINDOW_NAMES, WINDOWS
from review.campaigns.staff_views import (
    adjudication_post,
    clips_json,
    decision_rows,
    queue_progress,
    queue_rows,
    references_logged,
    references_refused,
    report_response,
)
from studio.roles import admin_or_404

queue = partial(adjudication_queue, scheme=SCHEME)


@login_required
@require_safe
def adjudication_queue_page(request):
    if not may_adjudicate(request.user):
        raise Http404
    rows = queue_rows(adjudication_campaigns_for(request.user), queue, _media)
    for row in rows:
        row["waiting"] = [BY_NAME[name].label for name in row["waiting"]]
    return render(request, "boundary/queue.html", {"rows": rows})


def _media(release_step) -> list:
    """The clips a boundary adjudication shows: one per window."""
    return list(window_media(release_step).values())


def _clips(user, release_step) -> dict:
    """Window name -> its clip as a grant for ``user`` (queued for rendering when new)."""
    with transaction.atomic():
        grants: list[str] = []
        return {name: clip_grant(m, user, grants) for name, m in window_media(release_step).items()}


@login_required
@require_safe
def adjudication_clips(request, campaign_id: int, item_id: int):
    _, item = adjudication_item_or_404(request.user, campaign_id, item_id)
    refused = references_refused(request, item, as_json=True)
    if refused is not None:
        return refused
    return clips_json(_clips(request.user, item.sample.release_step))


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
    clips = _clips(request.user, release_step)
    windows = step_windows(release_step)
    letters = reviewer_letters(record)
    rows = decision_rows(
        record, WINDOW_NAMES, per_item=campaign.per_item, letters=letters,
        fields=("label", "comment"),
    )  # fmt: skip
    for rule, row in zip(WINDOWS, rows, strict=True):
        window = windows[rule.name]
        row.update(window=rule, clip=clips[rule.name], exists=not isinstance(window, str))
        if row["exists"]:
            row["seconds"] = (window.stop_us - window.start_us) / 1e6
    references_logged(request, item)
    return render(
        request,
        "boundary/adjudicate.html",
        {
            "campaign": campaign,
            "item": item,
            "step": release_step,
            "disputed": [r for r in rows if r["waiting"] or r["adjudicated"]],
            "settled": [r for r in rows if not (r["waiting"] or r["adjudicated"])],
            "letters": sorted(letters.values()),
            "errors": errors,
            "progress": queue_progress(queue(campaign), item.pk),
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
