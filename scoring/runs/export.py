"""``run_export``: a run as JSON Lines, one documented object per line (docs/models.md).

Prediction runs give one line per item, QA runs one per turn; judge runs one line per judgement,
each with the call that produced it. The API key is never part of a run, so it cannot be part of
an export."""

from __future__ import annotations

from collections.abc import Iterator

from scoring.models import Run, RunItem, RunKind

PREDICTION_FORMAT = "intent-studio.prediction/1"
JUDGEMENT_FORMAT = "intent-studio.judgement/1"
QA_TURN_FORMAT = "intent-studio.qa-turn/1"


def _attempts(item: RunItem) -> list[dict]:
    return [
        {
            "started": a.get("started"),
            "status": a.get("status"),
            "latency_ms": a.get("latency_ms"),
            "error": a.get("error", ""),
            "tokens": a.get("tokens"),
        }
        for a in item.calls
    ]


def _call(run: Run, item: RunItem) -> dict:
    prov = run.provenance
    return {
        "outcome": item.outcome or None,
        "detail": item.detail,
        "raw_response": item.raw_response or None,
        "media_sha256": item.media_sha256 or None,
        "media_interface": item.interface or None,
        "package_sha256": run.package.sha256,
        "package": f"{run.package.name} v{run.package.version}",
        "requested_model": run.endpoint.model,
        "returned_model": item.returned_model or None,
        "endpoint": {"name": run.endpoint.name, "base_url": run.endpoint.base_url},
        "sampling": prov.get("sampling"),
        "manifest": prov.get("set"),
        "cache_key": item.cache_key or None,
        "cached_from": item.cached_from_id,
        "attempts": _attempts(item),
        "tokens": {"prompt": item.prompt_tokens, "completion": item.completion_tokens},
        "finished": item.finished_at.isoformat() if item.finished_at else None,
    }


def prediction_lines(run: Run) -> Iterator[dict]:
    for item in run.items.select_related("cached_from").order_by("position").iterator(2000):
        yield {
            "format": PREDICTION_FORMAT,
            "run": run.name,
            "sample": item.key,
            "condition": run.condition,
            "prediction": item.prediction,
            **_call(run, item),
        }


def qa_turn_lines(run: Run) -> Iterator[dict]:
    """A QA run: one line per turn, in dialogue order; a turn not asked has its state and why,
    and no call."""
    for item in run.items.select_related("cached_from").order_by("position").iterator(2000):
        group, _, turn = item.key.rpartition(":")
        yield {
            "format": QA_TURN_FORMAT,
            "run": run.name,
            "group": group,
            "turn": int(turn),
            "media": run.condition,
            "asked": item.input,
            "state": item.state,
            "not_asked_because": item.error if item.state == "not_asked" else None,
            "cutoff_us": item.cutoff_us,
            "prediction": item.prediction,
            **_call(run, item),
        }


def _scores(j) -> dict:
    return {
        "local": j.local,
        "procedural": j.procedural,
        "next": j.next,
        "next_match_type": j.match_type or None,
        "next_in_band": j.band_consistent,
        "reasons": j.reasons,
        "gf": j.gf,
        "hic": j.hic,
        "tpc": j.tpc,
        "npf": j.npf,
        "correct": j.correct,
        "score": j.score,
        "review": j.review,
    }


def judgement_lines(run: Run) -> Iterator[dict]:
    judgements = run.judgements.select_related("item", "prediction__run").order_by(
        "item__position", "position"
    )
    for j in judgements.iterator(2000):
        subject = {"kind": j.subject_kind, "key": j.subject_key}
        if j.prediction_id is not None:
            subject |= {"run": j.prediction.run.name, "sample": j.prediction.key}
        yield {
            "format": JUDGEMENT_FORMAT,
            "run": run.name,
            "judge": run.kind,
            "subject": subject,
            "sample": str(j.sample_id) if j.sample_id else None,
            "candidate_id": j.candidate_id,
            "position": j.position,
            "unit": run.options.get("unit") or ("batch" if run.kind == RunKind.RATER else "answer"),
            "candidate": j.candidate,
            "reference": j.reference,
            "judgement_outcome": j.outcome or None,
            "scores": _scores(j) if j.outcome == "ok" else None,
            "justification": j.justification or None,
            "call": {"key": j.item.key, **_call(run, j.item)},
        }


def run_lines(run: Run) -> Iterator[dict]:
    if run.kind == RunKind.QA_PREDICTION:
        return qa_turn_lines(run)
    return judgement_lines(run) if run.is_judge else prediction_lines(run)
