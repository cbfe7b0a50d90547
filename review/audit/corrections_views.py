"""The corrections page of an audit campaign (adjudicators and admins; docs/audit.md): the items
resolved invalid, and for the one being corrected its step on the source video with its marks,
as in the workspace, and the correction form. Times are typed as people read them (``13.2``,
``0:13.200``, ``#396``) and snap to the source's frames (``studio.display.parse_timecode``);
nothing typed is lost when a correction is refused. Freezing the corrected release is an
admin's."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_safe

from annotation.models import MicroStep
from media.timebase import boundary_index
from review.audit.criteria import CORRECTION_TYPES, CRITERIA, INVALID
from review.audit.decisions import campaign_records
from review.audit.selectors import (
    correction_campaign_or_404,
    correction_campaigns_for,
    may_correct,
)
from review.audit.services import corrected_release_freeze, correction_apply
from review.campaigns.models import CampaignItem
from studio.display import clock, parse_timecode
from studio.roles import is_admin

# The form's fields as the page labels them (the service names its values ``cutoff_us`` …).
FIELDS = {
    "cutoff": ("cutoff_us", "New cutoff"),
    "outcome": ("outcome_us", "New outcome"),
    "at": ("at_us", "Split at"),
}
MARKS = ("start_us", "cutoff_us", "outcome_us", "end_us")
LABELS = {
    **dict(FIELDS.values()),
    "text": "New text",
    "kind": "Correction",
    "note": "Why",
    "author": "You",
}


@login_required
@require_safe
def corrections_list(request):
    """The audit campaigns whose corrections the user records, with what waits in each."""
    if not may_correct(request.user):
        raise Http404
    rows = []
    for campaign in correction_campaigns_for(request.user).order_by("name"):
        records = campaign_records(campaign)
        invalid = sum(
            1
            for record in records.values()
            if any(record.resolution(c.id, campaign.per_item).label == INVALID for c in CRITERIA)
        )
        rows.append({"campaign": campaign, "invalid": invalid,
                     "done": campaign.corrections.count()})  # fmt: skip
    return render(request, "audit/corrections_list.html", {"rows": rows})


def _step_of(item) -> MicroStep | None:
    step_id = item.sample.release_step.step_id
    if step_id is None:
        return None
    return MicroStep.objects.select_related("video").filter(pk=step_id).first()


def _values(post, step: MicroStep | None) -> dict:
    """The correction's values from the form: times read by ``parse_timecode`` on the step's
    source; a ValidationError naming each field as the page labels it."""
    values, errors = {}, {}
    wanted = [name for name in FIELDS if post.get(name, "").strip()]
    if wanted and step is None:
        raise ValidationError("This step is not on this instance (the release was imported).")
    times = step.video.frame_times_us() if wanted else None
    for name in wanted:
        key, label = FIELDS[name]
        try:
            values[key] = parse_timecode(
                post[name], frame_times_us=times, duration_us=step.video.duration_us
            )
        except ValueError as exc:
            errors[label] = str(exc)
    if errors:
        raise ValidationError(errors)
    if post.get("text", "").strip():
        values["text"] = post["text"]
    return values


def _labelled(exc: ValidationError) -> list[str]:
    """The service's messages, each field named as the page labels it."""
    if hasattr(exc, "error_dict"):
        return [f"{LABELS.get(k, k)}: {m}" for k, v in exc.error_dict.items()
                for e in v for m in e.messages]  # fmt: skip
    return list(exc.messages)


def _marks(step: MicroStep) -> list[dict]:
    """The step's marks as the workspace shows them: a clock time and the frame it falls on."""
    times = step.video.frame_times_us()
    out = []
    for name, label in (("start", "Start"), ("cutoff", "Cutoff"), ("outcome", "Outcome"),
                        ("end", "End")):  # fmt: skip
        us = getattr(step, f"{name}_us")
        frame = boundary_index(times, us)
        # A cutoff is the first frame withheld: the workspace names the last one shown.
        note = f"last shown #{frame - 1}" if name in ("cutoff", "end") else f"#{frame}"
        out.append({"name": name, "label": label, "clock": clock(us), "frame": frame, "note": note})
    return out


def _rows(campaign) -> list[dict]:
    records = campaign_records(campaign)
    items = CampaignItem.objects.filter(campaign=campaign).select_related("sample__release_step")
    rows = []
    for position, item in enumerate(items.order_by("pk"), start=1):
        record = records[item.pk]
        invalid = [
            c for c in CRITERIA if record.resolution(c.id, campaign.per_item).label == INVALID
        ]
        done = list(item.corrections.values_list("kind", flat=True))
        if invalid or done:
            names = {t.code: t.name for t in CORRECTION_TYPES}
            rows.append({
                "item": item, "position": position, "step": item.sample.release_step,
                "invalid": [f"{c.id} {c.name}" for c in invalid],
                "done": [names.get(kind, kind) for kind in done],
            })  # fmt: skip
    return rows


def _editor(request, campaign, item, posted=None) -> dict | None:
    """The editor of one item: its live step on the source video, the workspace's URLs for the
    video and its frame index (the adjudicator reads every video), the form's values."""
    step = _step_of(item)
    if step is None:
        return {"item": item, "step": None, "posted": posted or {}}
    api = "annotation:api:"
    release_step = item.sample.release_step
    return {
        "item": item,
        "step": step,
        "marks": _marks(step),
        "posted": posted or {},
        "config": {
            "urls": {
                "frameTimes": reverse(api + "frame-times", args=[step.video_id]),
                "source": reverse(api + "source", args=[step.video_id]),
            },
            "duration_us": step.video.duration_us,
            "origin_us": step.video.origin_us,
            "has_file": bool(step.video.file),
            "step": {k: getattr(step, k) for k in (*MARKS, "local_intent")},
            "released": {k: getattr(release_step, k) for k in MARKS},
        },
    }


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def corrections_page(request, campaign_id: int):
    campaign = correction_campaign_or_404(request.user, campaign_id)
    errors: list[str] = []
    editing = None
    if request.method == "POST":
        if request.POST.get("action") == "freeze":
            try:
                release = corrected_release_freeze(
                    campaign=campaign, name=request.POST.get("name", "").strip(),
                    author=request.user,
                )  # fmt: skip
            except ValidationError as exc:
                errors = _labelled(exc)
            else:
                parent = campaign.manifest.release.name
                messages.success(request, f"Release {release.name} frozen (parent {parent}).")
                return redirect("audit:corrections", campaign.pk)
        else:
            item = CampaignItem.objects.filter(
                campaign=campaign, pk=request.POST.get("item")
            ).first()
            try:
                if item is None:
                    raise ValidationError("Choose an item of this campaign.")
                correction_apply(
                    campaign=campaign, item=item, author=request.user,
                    kind=request.POST.get("kind", ""), values=_values(request.POST, _step_of(item)),
                    note=request.POST.get("note", ""),
                )  # fmt: skip
            except ValidationError as exc:
                errors = _labelled(exc)
                if item is not None:  # the form comes back with what was typed
                    editing = _editor(request, campaign, item, posted=request.POST)
            else:
                messages.success(request, "Correction applied.")
                url = reverse("audit:corrections", args=[campaign.pk])
                return redirect(f"{url}?item={item.pk}#editor")
    rows = _rows(campaign)
    if editing is None and request.GET.get("item"):
        item = CampaignItem.objects.filter(campaign=campaign, pk=request.GET["item"]).first()
        editing = _editor(request, campaign, item) if item is not None else None
    if editing is not None:
        editing["row"] = next((r for r in rows if r["item"].pk == editing["item"].pk), None)
    return render(
        request,
        "audit/corrections.html",
        {
            "campaign": campaign,
            "rows": rows,
            "types": CORRECTION_TYPES,
            "errors": errors,
            "editing": editing,
            "may_freeze": is_admin(request.user),
        },
    )
