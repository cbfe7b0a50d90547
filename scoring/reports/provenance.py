"""What every table names: the frozen set's hashes, endpoints with the model ids their APIs
returned, package hashes, the judge, and a fingerprint of the runs read."""

from __future__ import annotations

from django.db.models import Count, Max, Q

from scoring.models import ItemState, Outcome, Run, RunItem, RunStatus
from scoring.runs.services import endpoint_snapshot, set_snapshot


def package_snapshot(package) -> dict:
    return {"name": package.name, "version": package.version, "sha256": package.sha256}


def returned_models(run_ids) -> dict[int, list[str]]:
    """Per run, the distinct model ids the API answered with (sorted)."""
    out: dict[int, set[str]] = {}
    rows = (
        RunItem.objects.filter(run_id__in=list(run_ids))
        .exclude(returned_model="")
        .order_by()  # not by position: DISTINCT would take it in
        .values_list("run_id", "returned_model")
        .distinct()
    )
    for run_id, model in rows:
        out.setdefault(run_id, set()).add(model)
    return {k: sorted(v) for k, v in out.items()}


def runs_fingerprint(runs: list[Run]) -> list[dict]:
    """Per run what changes when its results change (integers and text only).

    A finished run's items change only after it is opened again (``run_resume`` sets it running;
    finishing again gives it a new ``finished_at``), so its status and finish time stand for its
    items and a repeated report reads no items of finished runs. A running or cancelled run
    (calls in flight finish after a cancel) is counted from its items."""
    live = [r.pk for r in runs if r.status != RunStatus.FINISHED]
    counts = {}
    if live:
        counts = {
            row["run_id"]: row
            for row in RunItem.objects.filter(run_id__in=live)
            .order_by()
            .values("run_id")
            .annotate(
                items=Count("id"),
                done=Count("id", filter=Q(state=ItemState.DONE)),
                ok=Count("id", filter=Q(outcome=Outcome.OK)),
                last=Max("finished_at"),
            )
        }
    out = []
    for run in sorted(runs, key=lambda r: r.name):
        entry = {"run": run.name, "id": run.pk, "status": run.status}
        if run.status == RunStatus.FINISHED:
            entry["finished_at"] = run.finished_at.isoformat() if run.finished_at else None
        else:
            row = counts.get(run.pk, {})
            last = row.get("last")
            entry |= {
                "items": row.get("items", 0),
                "done": row.get("done", 0),
                "ok": row.get("ok", 0),
                "last_finished": last.isoformat() if last else None,
            }
        out.append(entry)
    return out


def set_of(release, manifest) -> dict | None:
    return set_snapshot(release, manifest)


__all__ = [
    "endpoint_snapshot",
    "package_snapshot",
    "returned_models",
    "runs_fingerprint",
    "set_of",
]
