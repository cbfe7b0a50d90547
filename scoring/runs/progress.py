"""How far a run is: counts by outcome, requests, tokens, speed and time left."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Count, Max, Q, Sum

from scoring.models import ItemState, Outcome, Run, RunItem, RunKind, RunStatus
from studio import services as studio_services

RATE_WINDOW_SECONDS = 60


def run_progress(run: Run) -> dict:
    items = RunItem.objects.filter(run=run)
    now = studio_services.now()
    since = now - timedelta(seconds=RATE_WINDOW_SECONDS)
    counts = items.aggregate(
        total=Count("id"),
        pending=Count("id", filter=Q(state=ItemState.PENDING)),
        running=Count("id", filter=Q(state=ItemState.RUNNING)),
        waiting=Count("id", filter=Q(state=ItemState.WAITING)),
        not_asked=Count("id", filter=Q(state=ItemState.NOT_ASKED)),
        ok=Count("id", filter=Q(outcome=Outcome.OK)),
        parse_failure=Count("id", filter=Q(outcome=Outcome.PARSE_FAILURE)),
        refusal=Count("id", filter=Q(outcome=Outcome.REFUSAL)),
        api_error=Count("id", filter=Q(outcome=Outcome.API_ERROR)),
        cached=Count("id", filter=Q(cached_from__isnull=False)),
        waiting_media=Count(
            "id", filter=Q(state=ItemState.PENDING, media__status__in=["pending", "rendering"])
        ),
        media_failed=Count("id", filter=Q(state=ItemState.PENDING, media__status="failed")),
        recent=Count("id", filter=Q(finished_at__gte=since)),
        finished=Count("id", filter=Q(finished_at__isnull=False)),
        last_finished=Max("finished_at"),
        requests=Sum("requests"),
        prompt_tokens=Sum("prompt_tokens"),
        completion_tokens=Sum("completion_tokens"),
    )
    total = counts["total"]
    # A dialogue's later turns that wait for the turn before them are work still to do.
    open_items = counts["pending"] + counts["running"] + counts["waiting"]
    if run.status == RunStatus.RUNNING or counts["last_finished"] is None:
        # While it runs: the items finished in the last minute (or since the run began).
        window = min(RATE_WINDOW_SECONDS, max((now - run.created_at).total_seconds(), 1.0))
        rate, rate_over = counts["recent"] / window, "recent"
    else:
        # Once it stopped: its average from creation to its last item, a figure that no longer
        # changes with the clock.
        life = (counts["last_finished"] - run.created_at).total_seconds()
        rate, rate_over = counts["finished"] / max(life, 1.0), "average"
    return {
        "run": run.name,
        "kind": run.kind,
        "status": run.status,
        "error": run.error,
        "items": total,
        "done": total - open_items,
        "outcomes": {
            "ok": counts["ok"],
            "parse_failure": counts["parse_failure"],
            "refusal": counts["refusal"],
            "api_error": counts["api_error"],
            "pending": open_items,
            # QA runs: turns never sent because an earlier turn of their dialogue failed.
            **({"not_asked": counts["not_asked"]} if run.kind == RunKind.QA_PREDICTION else {}),
        },
        "running": counts["running"],
        "cached": counts["cached"],
        "waiting_for_media": counts["waiting_media"],
        "media_failed": counts["media_failed"],
        "requests": counts["requests"] or 0,
        "tokens": {
            "prompt": counts["prompt_tokens"] or 0,
            "completion": counts["completion_tokens"] or 0,
        },
        "items_per_second": round(rate, 2),
        "rate_over": rate_over,
        "eta_seconds": round(open_items / rate) if rate > 0 and open_items else None,
        "percent": round(100 * (total - open_items) / total, 1) if total else 100.0,
    }
