"""Scores from stored judgements, with the paper's two failure rules (appendix I.3).

- Full benchmark: every step of the prediction run counts; a prediction that is not ``ok``, or
  whose judgement is not ``ok``, scores 0 (coverage is part of performance), and the counts of
  each outcome are reported next to the means.
- Controlled studies: ``execution_failures`` gives the steps whose prediction was a provider
  refusal (content filter, media rejected), to be removed from every compared model of that
  condition; the reports compute on the common valid set.
"""

from __future__ import annotations

from collections import Counter

from scoring.models import Judgement, Outcome, Run, RunItem
from studio.vocabulary import vocabulary

REFERENCE_DIMENSIONS = ("local", "procedural", "next")
VIDEO_DIMENSIONS = ("gf", "hic", "tpc", "npf")
# The video judge's four diagnostics (scoring/packages/builtin/video-judge.json says what each
# asks); pages keep the short names beside the words.
DIAGNOSTICS = vocabulary(
    "diagnostic",
    {
        "gf": "Grounding (GF)",
        "hic": "Intent hierarchy (HIC)",
        "tpc": "Temporal progression (TPC)",
        "npf": "Next-plan feasibility (NPF)",
    },
    title="Diagnostic",
)


def execution_failures(run: Run, *, include_api_errors: bool = False) -> set[str]:
    """Sample uids of ``run`` whose prediction is an execution failure."""
    outcomes = [Outcome.REFUSAL] + ([Outcome.API_ERROR] if include_api_errors else [])
    return set(run.items.filter(outcome__in=outcomes).values_list("key", flat=True))


def benchmark_scores(prediction_run: Run, judge_run: Run) -> dict:
    """Micro means over every step of ``prediction_run`` scored by ``judge_run`` (missing = 0).

    Reference judge: local, procedural, next (0-100) and overall (their mean); video judge: gf,
    hic, tpc, npf (x25, so 0-100) and their average."""
    items = dict(prediction_run.items.values_list("pk", "outcome"))
    n = len(items)
    outcomes = Counter(o or "pending" for o in items.values())
    judged = Judgement.objects.filter(run=judge_run, prediction_id__in=list(items))
    dims = VIDEO_DIMENSIONS if judge_run.kind == "video" else REFERENCE_DIMENSIONS
    sums = dict.fromkeys(dims, 0)
    judge_outcomes: Counter = Counter()
    for row in judged.values("outcome", *dims):
        judge_outcomes[row["outcome"] or "pending"] += 1
        if row["outcome"] == Outcome.OK:
            for d in dims:
                sums[d] += row[d] * (25 if judge_run.kind == "video" else 1)
    means = {d: (sums[d] / n if n else None) for d in dims}
    result = {
        "steps": n,
        "prediction_outcomes": dict(outcomes),
        "judgement_outcomes": dict(judge_outcomes),
        "scored": judge_outcomes.get(Outcome.OK, 0),
        "means": means,
    }
    if n:
        result["means"]["overall" if judge_run.kind != "video" else "average"] = sum(
            means[d] for d in dims
        ) / len(dims)
    return result


def qa_summary(judge_run: Run) -> dict:
    """Accuracy and mean 0-5 score over the judged records; errors and review cases apart."""
    return qa_counts(judge_run.judgements.values_list("outcome", "correct", "score", "review"))


def qa_counts(rows) -> dict:
    """``qa_summary`` over any ``(outcome, correct, score, review)`` rows (a stratum of them)."""
    rows = list(rows)
    judged = [(c, s) for o, c, s, r in rows if o == Outcome.OK and not r]
    return {
        "records": len(rows),
        "judged": len(judged),
        "accuracy": sum(1 for c, _ in judged if c) / len(judged) if judged else None,
        "mean_score": sum(s for _, s in judged) / len(judged) if judged else None,
        "review_cases": sum(1 for o, _c, _s, r in rows if o == Outcome.OK and r),
        "errors": dict(Counter(o for o, *_ in rows if o and o != Outcome.OK)),
        "pending": sum(1 for o, *_ in rows if not o),
    }


def item_outcomes(run: Run) -> Counter:
    return Counter(RunItem.objects.filter(run=run).values_list("outcome", flat=True))
