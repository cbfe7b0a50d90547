"""Run pages (admins only; everything else is a 404): the list with a form to start predictions,
a run with live progress (a small fragment the page polls), its items, their predictions,
judgements and attempts. Every text a model wrote is escaped by the templates."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from media.grants import grant_resolve
from media.models import RenderedMedia
from media.serving import file_response
from scoring.models import Outcome, Run
from scoring.runs import RunError, run_cancel, run_predict, run_resume
from scoring.runs.export import run_lines
from scoring.runs.forms import PredictForm
from scoring.runs.media import media_fetch_user
from scoring.runs.names import item_names
from scoring.runs.progress import run_progress
from scoring.selectors import item_for_or_404, run_for_or_404, runs_for
from studio.downloads import as_download
from studio.roles import admin_or_404

PAGE_SIZE = 50
# What the packages above runs add to a run's page (the judges: a judge run's scores, the form
# that starts a judge over a prediction run): functions of the run that return context entries,
# registered from ScoringConfig.ready(). The run pages never import those packages.
RUN_PAGE_PARTS: list[Callable[[Run], dict]] = []


# What the packages above runs add to the list page (QA runs: their start form): functions of
# the request that return context entries, registered from ScoringConfig.ready().
RUN_LIST_PARTS: list[Callable] = []


def run_page_part_register(part: Callable[[Run], dict]) -> None:
    if part not in RUN_PAGE_PARTS:
        RUN_PAGE_PARTS.append(part)


def run_list_part_register(part: Callable) -> None:
    if part not in RUN_LIST_PARTS:
        RUN_LIST_PARTS.append(part)


@login_required
def run_list(request):
    admin_or_404(request)
    form = PredictForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            run = run_predict(
                name=data["name"],
                endpoint=data["endpoint"],
                package=data["package"],
                condition=data["condition"],
                release=data["release"],
                manifest=data["manifest"],
                user=request.user,
            )
        except RunError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Run {run.name} started.")
            return redirect("scoring:run-detail", run.pk)
    runs = [(run, run_progress(run)) for run in runs_for(request.user)[:200]]
    context = {"runs": runs, "form": form}
    for part in RUN_LIST_PARTS:
        context.update(part(request))
    return render(request, "scoring/run_list.html", context)


@login_required
@require_safe
def run_detail(request, run_id: int):
    run = run_for_or_404(request.user, run_id)
    outcome = request.GET.get("outcome", "")
    items = run.items.order_by("position")
    if outcome in Outcome.values:
        items = items.filter(outcome=outcome)
    elif outcome == "pending":
        items = items.exclude(state="done")
    page = Paginator(
        items.only(
            "pk",
            "position",
            "key",
            "state",
            "outcome",
            "prediction",
            "detail",
            "requests",
            "cached_from",
            "sample_id",
            "run_id",
            "input",
            "error",
        ),
        PAGE_SIZE,
    ).get_page(request.GET.get("page"))
    judgements: dict[int, list] = {}
    if run.is_judge:
        for j in run.judgements.filter(item__in=[i.pk for i in page]).order_by("position"):
            judgements.setdefault(j.item_id, []).append(j)
    names = item_names(run, page)
    for item in page:
        item.judgement_list = judgements.get(item.pk, [])
        item.name = names[item.pk]
    context = {
        "run": run,
        "progress": run_progress(run),
        "page": page,
        "outcome": outcome,
        "judged_by": run.judged_by.all(),
        "sources": run.sources.all(),
        "provenance": json.dumps(run.provenance, indent=2, sort_keys=True),
        "outcomes": [*Outcome.values, "pending"],
    }
    for part in RUN_PAGE_PARTS:
        context.update(part(run))
    return render(request, "scoring/run_detail.html", context)


@login_required
@require_safe
@never_cache
def run_progress_fragment(request, run_id: int):
    run = run_for_or_404(request.user, run_id)
    return render(request, "scoring/_progress.html", {"run": run, "progress": run_progress(run)})


@login_required
@require_safe
def item_detail(request, run_id: int, item_id: int):
    run = run_for_or_404(request.user, run_id)
    item = item_for_or_404(request.user, run, item_id)
    item.name = item_names(run, [item])[item.pk]
    context = {
        "run": run,
        "item": item,
        "judgements": item.judgements.order_by("position"),
        "judged_in": item.judged_in.select_related("run").order_by("run_id"),
        "input": json.dumps(item.input, indent=2, ensure_ascii=False, sort_keys=True),
        "calls": item.calls,
    }
    return render(request, "scoring/item_detail.html", context)


@login_required
@require_POST
def run_action(request, run_id: int, action: str):
    run = run_for_or_404(request.user, run_id)
    try:
        if action == "cancel":
            run_cancel(run=run)
            messages.info(request, f"Run {run.name} cancelled; calls in flight finish.")
        elif action in ("resume", "retry-failed"):
            run_resume(run=run, retry_failed=action == "retry-failed")
            messages.success(request, f"Run {run.name} resumed.")
        else:
            raise Http404
    except RunError as exc:
        messages.error(request, str(exc))
    return redirect("scoring:run-detail", run.pk)


@login_required
@require_safe
def run_export(request, run_id: int):
    run = run_for_or_404(request.user, run_id)
    lines = (json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n" for line in run_lines(run))
    response = StreamingHttpResponse(lines, content_type="application/x-ndjson; charset=utf-8")
    as_download(response, f"{run.name}.jsonl")
    return response


@require_safe
def model_media(request, token: str):
    """A clip for a model server (video_url endpoints): the URL's token is the only credential,
    and it expires; no session is involved."""
    grant = grant_resolve(token=token, user=media_fetch_user())
    media = grant.media
    if media is None or media.kind != RenderedMedia.Kind.CLIP:
        raise Http404
    from django.core.files.storage import default_storage
    from django.utils import timezone

    max_age = int((grant.expires_at - timezone.now()).total_seconds())
    return file_response(
        request,
        path=Path(default_storage.path(media.path)),
        storage_name=media.path,
        content_type=media.mime_type or "video/mp4",
        max_age=max_age,
    )
