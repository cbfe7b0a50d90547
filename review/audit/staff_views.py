"""Pages for adjudicators (the queue, one item side by side) and admins (reports, corrections).

The adjudication page names reviewers A, B, C only and shows no model output or judge score;
every text is escaped by the templates."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_safe

from review.audit.blind import clip_grant, item_media
from review.audit.criteria import CORRECTION_TYPES, CRITERIA, INVALID
from review.audit.decisions import adjudication_queue, campaign_records, reviewer_letters
from review.audit.report import report_csv
from review.audit.reporting import campaign_report
from review.audit.selectors import (
    adjudication_campaigns_for,
    adjudication_item_or_404,
    may_adjudicate,
    report_campaign_or_404,
)
from review.audit.services import adjudicate, corrected_release_freeze, correction_apply
from review.campaigns.models import Campaign, CampaignItem
from review.campaigns.staff_views import (
    adjudication_post,
    admin_or_404,
    decision_rows,
    messages_of,
    queue_rows,
    report_response,
)

CRITERION_IDS = tuple(c.id for c in CRITERIA)


@login_required
@require_safe
def adjudication_queue_page(request):
    if not may_adjudicate(request.user):
        raise Http404
    rows = queue_rows(adjudication_campaigns_for(request.user), adjudication_queue)
    return render(request, "audit/queue.html", {"rows": rows})


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def adjudication_page(request, campaign_id: int, item_id: int):
    campaign, item = adjudication_item_or_404(request.user, campaign_id, item_id)
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
    with transaction.atomic():
        grants: list[str] = []
        official, _ = item_media(release_step, phase=1)
        context, window = item_media(release_step, phase=2)
        clips = {
            "official": clip_grant(official, request.user, grants),
            "context": clip_grant(context, request.user, grants),
        }
    origin = window.start_us if window else release_step.start_us
    marks = {
        n: getattr(release_step, f"{n}_us") - origin for n in ("start", "cutoff", "outcome", "end")
    }  # on the context clip's own clock
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


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def corrections_page(request, campaign_id: int):
    campaign = report_campaign_or_404(request.user, campaign_id)
    errors: list[str] = []
    if request.method == "POST":
        try:
            if request.POST.get("action") == "freeze":
                release = corrected_release_freeze(
                    campaign=campaign,
                    name=request.POST.get("name", "").strip(),
                    author=request.user,
                )
                messages.success(
                    request,
                    f"Release {release.name} frozen (parent {campaign.manifest.release.name}).",
                )
                return redirect("audit:corrections", campaign.pk)
            item = CampaignItem.objects.filter(
                campaign=campaign, pk=request.POST.get("item")
            ).first()
            if item is None:
                raise ValidationError("Choose an item of this campaign.")
            kind = request.POST.get("kind", "")
            values = {}
            for key in ("cutoff_us", "at_us"):
                raw = request.POST.get(key, "").strip()
                if raw:
                    try:
                        values[key] = int(raw)
                    except ValueError:
                        raise ValidationError({key: "Whole microseconds."}) from None
            if request.POST.get("text", "").strip():
                values["text"] = request.POST["text"]
            correction_apply(
                campaign=campaign,
                item=item,
                author=request.user,
                kind=kind,
                values=values,
                note=request.POST.get("note", ""),
            )
        except ValidationError as exc:
            errors = messages_of(exc)
        else:
            messages.success(request, "Correction applied.")
            return redirect("audit:corrections", campaign.pk)
    records = campaign_records(campaign)
    items = {
        i.pk: i
        for i in CampaignItem.objects.filter(campaign=campaign).select_related(
            "sample__release_step"
        )
    }
    rows = []
    for item_id, record in sorted(records.items()):
        invalid = [
            c.id for c in CRITERIA if record.resolution(c.id, campaign.per_item).label == INVALID
        ]
        done = list(items[item_id].corrections.values_list("kind", flat=True))
        if invalid or done:
            rows.append(
                {
                    "item": items[item_id],
                    "step": items[item_id].sample.release_step,
                    "invalid": invalid,
                    "done": done,
                }
            )
    return render(
        request,
        "audit/corrections.html",
        {
            "campaign": campaign,
            "rows": rows,
            "types": CORRECTION_TYPES,
            "errors": errors,
        },
    )
