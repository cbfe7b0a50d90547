"""What the kinds' staff pages share: adjudication (the queue, the decisions side by side, a
ruling that moves on to the next waiting item) and report pages (the page, JSON and CSV).

A kind passes in what is its own (its keys, its queue and adjudication service, its
templates); nothing here names a kind."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render

from review.campaigns import exposure
from review.campaigns.models import Campaign
from studio.downloads import as_download
from studio.vocabulary import named_errors


def messages_of(exc: ValidationError) -> list[str]:
    """A ValidationError as lines for a page, each naming its field as the page labels it
    ("C7 Next plan validity: Choose Valid or Invalid.")."""
    if hasattr(exc, "error_dict"):
        named = named_errors(
            {k: [m for e in v for m in e.messages] for k, v in exc.error_dict.items()}
        )
        return [m for messages in named.values() for m in messages]
    return list(exc.messages)


# How many waiting items of a campaign the queue page prepares the clips of, in queue order: the
# ones an adjudicator opens next (asking costs a few queries per clip; a long queue catches up as
# it is worked through).
PREPARE_AHEAD = 10


def queue_rows(
    campaigns, queue: Callable[[Campaign], list], media: Callable[[object], list] | None = None
) -> list[dict]:
    """The waiting items of every open campaign, in each campaign's queue order. With
    ``media(release_step) -> [RenderedMedia | None]`` (the clips its adjudication page shows),
    the first ``PREPARE_AHEAD`` rows say whether they are ready: asking for them queues the
    renders of the clips not made yet, so an item's clips are prepared while it waits in the
    queue, not once it is open (``clips`` is None on the rows after them)."""
    from review.campaigns.models import CampaignItem

    rows = []
    for campaign in campaigns.filter(state=Campaign.State.OPEN):
        waiting_items = queue(campaign)
        items = CampaignItem.objects.filter(pk__in=[pk for pk, _ in waiting_items])
        by_id = {i.pk: i for i in items.select_related("sample__release_step")}
        for position, (item_id, waiting) in enumerate(waiting_items, start=1):
            row = {"campaign": campaign, "item_id": item_id, "position": position,
                   "waiting": waiting}  # fmt: skip
            if media is not None:
                row["clips"] = (
                    clips_status(media(by_id[item_id].sample.release_step))
                    if position <= PREPARE_AHEAD
                    else None
                )
            rows.append(row)
    return rows


def clips_status(media: Iterable) -> str:
    """One word for a page's clips: ``ready`` (every clip that exists), ``failed`` (one could not
    be made), else ``preparing``."""
    from media.models import RenderedMedia

    statuses = {m.status for m in media if m is not None}
    if RenderedMedia.Status.FAILED in statuses:
        return "failed"
    return "ready" if statuses <= {RenderedMedia.Status.READY} else "preparing"


def queue_progress(waiting: Sequence, item_id: int) -> dict:
    """Where an item stands in its campaign's adjudication queue: ``position`` of ``of`` (None
    when it no longer waits) and ``others``, the items waiting besides it."""
    ids = [pk for pk, _ in waiting]
    position = ids.index(item_id) + 1 if item_id in ids else None
    return {"position": position, "of": len(ids), "others": len(ids) - (position is not None)}


def clips_json(clips: dict) -> JsonResponse:
    """The clips of an adjudication page as they are now (the page asks again while one is
    being prepared): ``{"clips": {key: {"status", "url"}}}``."""
    return JsonResponse({"clips": clips}, headers={"Cache-Control": "private, no-store"})


def decision_rows(
    record, keys: Iterable[str], *, per_item: int, letters: dict, fields: Sequence[str]
) -> list[dict]:
    """Per key: each reviewer's decision (as letters A, B, C, with ``fields``), the resolution,
    the adjudication if there is one, and whether it waits for one."""
    rows = []
    for key in keys:
        decisions = sorted(
            (
                {"reviewer": letters[d.person_id], **{f: getattr(d, f) for f in fields}}
                for d in record.decisions.get(key, ())
            ),
            key=lambda d: d["reviewer"],
        )
        resolution = record.resolution(key, per_item)
        rows.append(
            {
                "decisions": decisions,
                "resolution": resolution,
                "adjudicated": record.adjudications.get(key),
                "waiting": resolution.state == "needs_adjudication",
            }
        )
    return rows


def references_refused(request, item, *, as_json: bool = False) -> HttpResponse | None:
    """The exposure rule on a page that shows an item's references or clips to staff
    (adjudication, and its clips answer): a 403 naming the reason (the styled page, or JSON)
    while the person still answers the item's step blind; else None (log the showing with
    ``references_logged`` when the page is rendered)."""
    from studio.views import error_page

    refused = exposure.staff_refusal(request.user, item=item)
    if not refused:
        return None
    if as_json:
        return JsonResponse({"detail": refused}, status=403, headers={"Cache-Control": "no-store"})
    return error_page(request, 403, refused)


def references_logged(request, item) -> None:
    exposure.references_shown(request.user, item=item, source=exposure.ADJUDICATION)


def adjudication_post(
    request,
    *,
    campaign,
    item,
    keys: Iterable[str],
    adjudicate: Callable[..., object],
    queue: Callable[[Campaign], list],
    namespace: str,
):
    """Rule on the posted ``label-<key>`` fields; ``(redirect, [])`` to the next waiting item
    (or the queue) once saved, ``(None, messages)`` when the ruling was refused."""
    labels = {k: request.POST[f"label-{k}"] for k in keys if request.POST.get(f"label-{k}")}
    try:
        adjudicate(
            campaign=campaign,
            item=item,
            adjudicator=request.user,
            labels=labels,
            comment=request.POST.get("comment", ""),
        )
    except ValidationError as exc:
        return None, messages_of(exc)
    messages.success(request, "Adjudication saved.")
    waiting = queue(campaign)
    if waiting:
        return redirect(f"{namespace}:adjudicate", campaign.pk, waiting[0][0]), []
    return redirect(f"{namespace}:queue"), []


def report_response(
    request, *, campaign, report: dict, csv: Callable[[dict], str], suffix: str, template: str
) -> HttpResponse:
    """The report's page, or with ``?format=json`` / ``csv`` its download."""
    wanted = request.GET.get("format")
    filename = f"{campaign.name}-{suffix}"
    if wanted == "json":
        response = JsonResponse(report, json_dumps_params={"indent": 2, "ensure_ascii": False})
        as_download(response, f"{filename}.json")
        return response
    if wanted == "csv":
        response = HttpResponse(csv(report), content_type="text/csv; charset=utf-8")
        as_download(response, f"{filename}.csv")
        return response
    return render(request, template, {"campaign": campaign, "report": report})
