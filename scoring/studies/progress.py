"""How far a study is: every prediction and judge run of it, per condition and model."""

from __future__ import annotations

from scoring.models import Study
from scoring.runs.progress import run_progress
from studio.vocabulary import vocabulary

STAGES = vocabulary(
    "study_stage",
    {"predicting": "Predicting", "judging": "Judging", "complete": "Complete"},
    title="Stage",
)


def _sum(progresses: list[dict]) -> dict:
    items = sum(p["items"] for p in progresses)
    done = sum(p["done"] for p in progresses)
    return {
        "items": items,
        "done": done,
        "percent": round(100 * done / items, 1) if items else 0.0,
        "requests": sum(p["requests"] for p in progresses),
        "cached": sum(p["cached"] for p in progresses),
        "outcomes": {
            k: sum(p["outcomes"][k] for p in progresses)
            for k in ("ok", "parse_failure", "refusal", "api_error", "pending")
        },
        "waiting_for_media": sum(p["waiting_for_media"] for p in progresses),
        "media_failed": sum(p["media_failed"] for p in progresses),
    }


def study_progress(study: Study) -> dict:
    """Per condition: each model's prediction run and the judge run (``None`` until started),
    totals over predictions and judgements, and the stage: ``predicting`` (a prediction run is
    missing or working), ``judging``, or ``complete``."""
    links = {
        (sr.condition, sr.endpoint_id): sr.run for sr in study.study_runs.select_related("run")
    }
    endpoints = study.models_in_order()
    conditions, predictions, judgements = [], [], []
    missing_predictions = missing_judges = 0
    for condition in study.conditions:
        rows = []
        for endpoint in endpoints:
            run = links.get((condition, endpoint.pk))
            p = run_progress(run) if run is not None else None
            missing_predictions += p is None
            if p is not None:
                predictions.append(p)
            rows.append({"model": endpoint.name, "run": run.name if run else None, "progress": p})
        judge = links.get((condition, None))
        jp = run_progress(judge) if judge is not None else None
        finished_without_ok = all(
            r["progress"]
            and r["progress"]["status"] == "finished"
            and not r["progress"]["outcomes"]["ok"]
            for r in rows
        )
        if jp is not None:
            judgements.append(jp)
        elif not finished_without_ok:
            missing_judges += 1
        # else: its predictions ended without one ok item, so there is nothing to judge; its
        # steps are removed from the condition as exclusions (the report counts them).
        conditions.append(
            {
                "condition": condition,
                "models": rows,
                "judge": {"run": judge.name, "progress": jp} if judge else None,
                "nothing_to_judge": judge is None and finished_without_ok,
            }
        )
    p_total, j_total = _sum(predictions), _sum(judgements)
    predicting = missing_predictions or p_total["outcomes"]["pending"]
    if predicting:
        stage = "predicting"
    elif missing_judges or j_total["outcomes"]["pending"]:
        stage = "judging"
    else:
        stage = "complete"
    return {
        "study": study.name,
        "stage": stage,
        "predictions": p_total,
        "judgements": j_total,
        "conditions": conditions,
    }


def progress_line(progress: dict) -> str:
    p, j = progress["predictions"], progress["judgements"]
    idle = [c["condition"] for c in progress["conditions"] if c["nothing_to_judge"]]
    return (
        f"{progress['study']}: {progress['stage']} | predictions {p['done']}/{p['items']} "
        f"(ok {p['outcomes']['ok']}, refusal {p['outcomes']['refusal']}, api "
        f"{p['outcomes']['api_error']}, cached {p['cached']}) | judgements "
        f"{j['done']}/{j['items']} (ok {j['outcomes']['ok']})"
        + (
            f" | nothing to judge (no ok prediction): {', '.join(idle)}; its steps are "
            "exclusions in the report"
            if idle
            else ""
        )
    )
