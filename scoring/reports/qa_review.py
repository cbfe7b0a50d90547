"""The QA-group review report (second paper, appendix D; docs/qa.md "The report").

Computed from stored records only: the campaign's current submissions (superseded ones never
count), the QA groups of the manifest's group set, the reviewers' edits, and QA judge runs.

- **Decisions** by structure, category and modality: for each decision, its count over the
  reviews of the stratum with a Wilson 95 % interval (a group seen by two reviewers counts
  twice; ``groups`` says how many groups the reviews cover).
- **Agreement** over the groups that more than one reviewer decided: raw pairwise agreement and
  Fleiss κ on the four decisions (groups with the most common number of reviewers, so every row
  has the same number of raters).
- **Checks**: pass / fail / unsure per per-turn check.
- **Edits**: every proposed edit of this campaign, original beside proposal, with its state.
- **QA judge**: for each QA judge run whose subjects name groups of the set (``uid`` or
  ``uid:turn``, or a QA run's answers, by their group), accuracy and mean 0-5 score over
  successfully judged records per structure and category; errors and review cases counted apart
  (``scoring.judges.scores.qa_counts``).
"""

from __future__ import annotations

import csv
import io
import uuid
from collections import Counter, defaultdict

import numpy as np

from review.campaigns.models import Campaign
from review.campaigns.services import current_submissions
from review.qa.kind import CHECK_VALUES, CHECKS, DECISIONS
from review.qa.models import QaEdit, QaGroup, QaManifestSource
from scoring.judges.scores import qa_counts
from scoring.models import Run
from scoring.models.runs import RunKind
from scoring.stats import fleiss_kappa, raw_agreement, wilson_interval

DIMENSIONS = ("structure", "category", "modality")


def _nan_none(x):
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else float(x)


def _group_uid(key: str) -> str | None:
    head = key.split(":", 1)[0].split("#", 1)[0].strip().lower()
    try:
        return str(uuid.UUID(head))
    except ValueError:
        return None


def _decision_rows(reviews: list[tuple[QaGroup, str]], dimension: str) -> list[dict]:
    by_value: dict[str, list[tuple[QaGroup, str]]] = defaultdict(list)
    for group, decision in reviews:
        value = "all" if dimension == "all" else getattr(group, dimension)
        by_value[value].append((group, decision))
    rows = []
    for value in sorted(by_value):
        items = by_value[value]
        n = len(items)
        counts = Counter(d for _, d in items)
        for decision in DECISIONS:
            x = counts.get(decision, 0)
            low, high = wilson_interval(x, n)
            rows.append(
                {
                    "dimension": dimension,
                    "value": value,
                    "decision": decision,
                    "count": x,
                    "n": n,
                    "groups": len({g.pk for g, _ in items}),
                    "rate": x / n if n else None,
                    "low": _nan_none(low),
                    "high": _nan_none(high),
                }
            )
    return rows


def _agreement(per_group: dict[int, list[str]]) -> dict:
    multi = {g: d for g, d in per_group.items() if len(d) > 1}
    if not multi:
        return {"groups": 0, "raters": None, "raw_agreement": None, "fleiss_kappa": None}
    raters = Counter(len(d) for d in multi.values()).most_common(1)[0][0]
    rows = [d for d in multi.values() if len(d) == raters]
    table = np.array([[d.count(c) for c in DECISIONS] for d in rows], dtype=float)
    return {
        "groups": len(rows),
        "raters": raters,
        "raw_agreement": _nan_none(raw_agreement(table)),
        "fleiss_kappa": _nan_none(fleiss_kappa(table)),
    }


def _judge_rows(groups_by_uid: dict[str, QaGroup], runs) -> list[dict]:
    rows = []
    for run in runs:
        strata: dict[tuple[str, str], list] = defaultdict(list)
        unmatched = 0
        for key, sample, outcome, correct, score, review in run.judgements.values_list(
            "subject_key", "sample_id", "outcome", "correct", "score", "review"
        ):
            # A QA run's answers name their group in sample_id (key: run:group:turn).
            uid = _group_uid(key) or (str(sample) if sample else "")
            group = groups_by_uid.get(uid)
            if group is None:
                unmatched += 1
                continue
            record = (outcome, correct, score, review)
            strata[("all", "all")].append(record)
            strata[("structure", group.structure)].append(record)
            strata[("category", group.category)].append(record)
        if not strata:
            continue
        for (dimension, value), records in sorted(strata.items()):
            counts = qa_counts(records)
            rows.append(
                {
                    "run": run.name,
                    "dimension": dimension,
                    "value": value,
                    **counts,
                    "errors": sum(counts["errors"].values()),
                    "errors_by_outcome": counts["errors"],
                    "unmatched": unmatched if dimension == "all" else None,
                }
            )
    return rows


def qa_review_report(*, campaign: Campaign, judge_runs=None) -> dict:
    """The report as JSON-ready data. ``judge_runs``: QA judge runs to include (default: every
    QA judge run whose subjects name groups of the set)."""
    source = QaManifestSource.objects.select_related("group_set").get(
        manifest_id=campaign.manifest_id
    )
    groups = {
        str(g.uid): g for g in QaGroup.objects.filter(group_set=source.group_set).order_by("uid")
    }
    sampled = {
        str(u): groups[str(u)]
        for u in campaign.manifest.samples.values_list("sample_id", flat=True)
    }
    subs = (
        current_submissions(campaign=campaign)
        .select_related("item__sample")
        .order_by("item_id", "person_id", "id")
    )
    reviews: list[tuple[QaGroup, str]] = []
    per_group: dict[int, list[str]] = defaultdict(list)
    checks = {c: Counter() for c in CHECKS}
    for sub in subs:
        group = sampled[str(sub.item.sample.sample_id)]
        decision = sub.payload.get("decision")
        reviews.append((group, decision))
        per_group[group.pk].append(decision)
        for turn in sub.payload.get("turns", []):
            for c in CHECKS:
                if turn.get(c) in CHECK_VALUES:
                    checks[c][turn[c]] += 1
    decisions = _decision_rows(reviews, "all")
    for dimension in DIMENSIONS:
        decisions += _decision_rows(reviews, dimension)
    edits = [
        {
            "group": str(e.group.uid),
            "field": e.field,
            "turn": e.turn,
            "evidence": e.evidence,
            "original": e.original,
            "proposed": e.proposed,
            "reason": e.reason,
            "author": e.author.username,
            "created_at": e.created_at.isoformat(),
            "state": e.state,
            "accepted_into": e.accepted_into.name if e.accepted_into else None,
        }
        for e in QaEdit.objects.filter(submission__campaign=campaign)
        .select_related("group", "author", "accepted_into")
        .order_by("group__uid", "id")
    ]
    if judge_runs is None:
        judge_runs = Run.objects.filter(kind=RunKind.QA).order_by("name")
    judge = _judge_rows(groups, judge_runs)
    return {
        "campaign": campaign.name,
        "manifest": campaign.manifest.name,
        "group_set": source.group_set.name,
        "groups": len(sampled),
        "reviewed_groups": len(per_group),
        "reviews": len(reviews),
        "decisions": decisions,
        "agreement": _agreement(per_group),
        "checks": [{"check": c, **{v: checks[c].get(v, 0) for v in CHECK_VALUES}} for c in CHECKS],
        "edits": edits,
        "judge": judge,
    }


CSV_HEADER = (
    "section", "dimension", "value", "decision", "count", "n", "groups", "rate", "low", "high",
    "run", "records", "judged", "accuracy", "mean_score", "review_cases", "errors", "pending",
    "group", "field", "turn", "evidence", "original", "proposed", "reason", "author", "state",
)  # fmt: skip


def report_csv(report: dict) -> str:
    """One table: decision rows, judge rows, then edit rows (``section`` says which)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_HEADER, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()

    def cell(v):
        if v is None:
            return ""
        if isinstance(v, float):
            return f"{v:.6f}"
        if isinstance(v, list | dict):
            import json

            return json.dumps(v, ensure_ascii=False, sort_keys=True)
        return v

    for row in report["decisions"]:
        writer.writerow({k: cell(v) for k, v in {"section": "decisions", **row}.items()})
    for row in report["judge"]:
        writer.writerow({k: cell(v) for k, v in {"section": "judge", **row}.items()})
    for row in report["edits"]:
        writer.writerow({k: cell(v) for k, v in {"section": "edit", **row}.items()})
    return out.getvalue()
