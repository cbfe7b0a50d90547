"""Pages for adjudicators (the queue, one item side by side) and admins (reports); the
corrections page is ``corrections_views``.

The adjudication page names reviewers A, B, C only and shows no model output or judge score;
every text is escaped by the templates."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_http_methods, require_safe

from review.audit.blind import clip_grant, item_media
from review.audit.criteria import CRITERIA
from review.audit.decisions import adjudication_queue, campaign_records, reviewer_letters
from review.audit.report import report_csv
from review.audit.reporting import campaign_report
from review.audit.selectors import (
    adjudication_campaigns_for,
    adjudication_item_or_404,
    may_adjudicate,
    report_campaign_or_404,
)
from review.audit.services import adjudicate
from review.campaigns.models import Campaign
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

CRITERION_IDS = tuple(c.id for c in CRITERIA)


@login_required
@require_safe
def adjudication_queue_page(request):
    if not may_adjudicate(request.user):
        raise Http404
    rows = queue_rows(adjudication_campaigns_for(request.user), adjudication_queue, _media)
    return render(request, "audit/queue.html", {"rows": rows})


def _media(release_step) -> list:
    """The clips an audit adjudication shows: the Official clip and the context clip."""
    return [item_media(release_step, phase=1)[0], item_media(release_step, phase=2)[0]]


def _clips(user, release_step) -> tuple[dict, object]:
    """The page's clips as grants for ``user`` (queued for rendering when new) and the context
    window."""
    with transaction.atomic():
        grants: list[str] = []
        official, _ = item_media(release_step, phase=1)
        context, window = item_media(release_step, phase=2)
        clips = {
            "official": clip_grant(official, user, grants),
            "context": clip_grant(context, user, grants),
        }
    return clips, window


@login_required
@require_safe
def adjudication_clips(request, campaign_id: int, item_id: int):
    _, item = adjudication_item_or_404(request.user, campaign_id, item_id)
    refused = references_refused(request, item, as_json=True)
    if refused is not None:
        return refused
    return clips_json(_clips(request.user, item.sample.release_step)[0])


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
            request, campaign=campaign, item=item, keys=CRITERION_IDS, adjudicate=adjudicate,
            queue=adjudication_queue, namespace="audit",
        )  # fmt: skip
        if done:
            return done
    record = campaign_records(campaign, item_ids=[item.pk])[item.pk]
    letters = reviewer_letters(record)
    rows = decision_rows(
        record, CRITERION_IDS, per_item=campaign.per_item, letters=letters,
        fields=("label", "comment", "error_types"),
    )  # fmt: skip
    for criterion, row in zip(CRITERIA, rows, strict=True):
        row["criterion"] = criterion
    release_step = item.sample.release_step
    clips, window = _clips(request.user, release_step)
    origin = window.start_us if window else release_step.start_us
    marks = {
        n: getattr(release_step, f"{n}_us") - origin for n in ("start", "cutoff", "outcome", "end")
    }  # on the context clip's own clock
    references_logged(request, item)
    return render(
        request,
        "audit/adjudicate.html",
        {
            "campaign": campaign,
            "item": item,
            "step": release_step,
            "rows": rows,
            "letters": sorted(letters.values()),
            "clips": clips,
            "marks": marks,
            "errors": errors,
            "progress": queue_progress(adjudication_queue(campaign), item.pk),
        },
    )


# --- admins -----------------------------------------------------------------------------------


@login_required
@require_safe
def report_list(request):
    admin_or_404(request)
    campaigns = Campaign.objects.filter(kind="audit").select_related("manifest__release")
    return render(request, "audit/reports.html", {"campaigns": campaigns})


@login_required
@require_safe
def report_page(request, campaign_id: int):
    campaign = report_campaign_or_404(request.user, campaign_id)
    return report_response(
        request, campaign=campaign, report=campaign_report(campaign), csv=report_csv,
        suffix="report", template="audit/report.html",
    )  # fmt: skip
