"""The audit report as a pure computation over labels (paper appendix B.3, tables 6, 8 and 9).

No Django here: ``review.audit.selectors.report_inputs`` reads the campaign's records into
``ReportItem`` rows and ``audit_report`` turns them into the documented JSON (docs/audit.md,
"Report"). Statistics come from ``scoring.stats`` (the one Wilson and Fleiss κ of the project).

Definitions (all unrounded; rates are fractions 0 to 1; an undefined statistic is ``None``):

- per criterion, ``n`` is the number of items in the campaign; ``valid`` / ``invalid`` count the
  items *resolved* valid / invalid (majority, else adjudication: ``review.audit.resolution``),
  ``unresolved`` the rest (pending or waiting for adjudication) — never valid; ``rate = valid / n``
  and ``wilson`` its Wilson 95 % interval with z = 1.96 exactly (eq. 2);
- ``uncertain`` counts the items where at least two reviewers answered Uncertain (before any
  adjudication), ``uncertain_labels`` the Uncertain answers themselves;
- ``raw_agreement`` and ``fleiss_kappa`` use the independent pre-adjudication labels over the
  three categories (valid, invalid, uncertain), on the items that have all their decisions
  (``rated``): raw agreement is the mean over items of the share of agreeing reviewer pairs;
- ``macro`` averages raw agreement and κ over the criteria, leaving out (and naming in
  ``excluded``) those whose raw labels show no variation — every label in one category;
- ``overall``: an item is valid when all seven criteria are resolved valid, invalid when at least
  one is resolved invalid, otherwise unresolved;
- ``errors[code]``: items with at least one criterion resolved invalid on which a reviewer who
  answered Invalid gave ``code``;
- ``corrections[type]``: items with at least one correction of that type; ``at_least_one`` items
  with any; ``deleted_steps`` audited steps that no longer exist as active steps.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from review.audit.criteria import (
    CORRECTION_CODES,
    CRITERIA,
    DEFAULT_ERROR_CODES,
    INVALID,
    LABELS,
    UNCERTAIN,
    VALID,
)
from review.audit.resolution import NEEDS_ADJUDICATION, RESOLVED, resolve_counts
from scoring.stats import fleiss_kappa, raw_agreement, wilson_interval

Z = 1.96


@dataclass
class ReportItem:
    """One audited item: where it comes from, and what was said about it."""

    key: str  # the sample id (the report never shows it; it keys the rows)
    scene: str
    duration_bin: int
    # criterion id -> current (not superseded) labels, one per reviewer
    labels: Mapping[str, Sequence[str]] = field(default_factory=dict)
    # criterion id -> adjudicated label
    adjudications: Mapping[str, str] = field(default_factory=dict)
    # criterion id -> error codes given by reviewers who answered Invalid
    error_codes: Mapping[str, Iterable[str]] = field(default_factory=dict)
    corrections: Iterable[str] = ()  # correction type codes applied to the item
    deleted: bool = False  # the audited step no longer exists as an active step


def number(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def wilson(valid: int, n: int) -> list[float | None]:
    low, high = wilson_interval(valid, n, z=Z) if n else (math.nan, math.nan)
    return [number(low), number(high)]


def rate(valid: int, n: int) -> float | None:
    return valid / n if n else None


def _mean(values: Iterable[float | None]) -> float | None:
    finite = [v for v in values if v is not None]
    return sum(finite) / len(finite) if finite else None


def audit_report(
    items: Sequence[ReportItem],
    *,
    required: int,
    header: Mapping | None = None,
    error_codes: Sequence[str] = DEFAULT_ERROR_CODES,
    bin_labels: Sequence[str] = (),
    release_scenes: Mapping[str, int] | None = None,
    release_bins: Mapping[int, int] | None = None,
) -> dict:
    """The report (docs/audit.md). ``required`` is how many reviewers judge each item;
    ``header`` the campaign, release and manifest fields put first; ``release_scenes`` /
    ``release_bins`` the release's step counts for the coverage table."""
    n = len(items)
    resolutions = {c.id: [] for c in CRITERIA}
    criteria = []
    for criterion in CRITERIA:
        cid = criterion.id
        rows: list[tuple[int, int, int]] = []
        complete = []
        valid = invalid = uncertain = uncertain_labels = adjudicated = waiting = 0
        outcomes = resolutions[cid]
        for item in items:
            labels = item.labels.get(cid, ())
            v = i = u = 0
            for label in labels:
                if label == VALID:
                    v += 1
                elif label == INVALID:
                    i += 1
                elif label == UNCERTAIN:
                    u += 1
                else:
                    raise ValueError(f"unknown label {label!r}; expected one of {LABELS}")
            rows.append((v, i, u))
            complete.append(v + i + u == required)
            uncertain_labels += u
            uncertain += u >= 2
            outcome = resolve_counts(
                v, i, v + i + u, required=required, adjudication=item.adjudications.get(cid)
            )
            outcomes.append(outcome)
            if outcome.state == RESOLVED:
                if outcome.label == VALID:
                    valid += 1
                else:
                    invalid += 1
                adjudicated += outcome.by == "adjudication"
            elif outcome.state == NEEDS_ADJUDICATION:
                waiting += 1
        counts = np.array(rows, dtype=np.int64).reshape(n, len(LABELS))
        complete = np.array(complete, dtype=bool)
        table = counts[complete]
        totals = counts.sum(axis=0)
        varied = int((totals > 0).sum()) > 1
        criteria.append(
            {
                "id": criterion.id,
                "name": criterion.name,
                "valid": valid,
                "invalid": invalid,
                "n": n,
                "rate": rate(valid, n),
                "wilson": wilson(valid, n),
                "raw_agreement": number(raw_agreement(table)) if len(table) else None,
                "fleiss_kappa": number(fleiss_kappa(table)) if len(table) else None,
                "rated": int(complete.sum()),
                "uncertain": int(uncertain),
                "uncertain_labels": uncertain_labels,
                "unresolved": n - valid - invalid,
                "needs_adjudication": waiting,
                "adjudicated": adjudicated,
                "labels": {label: int(totals[i]) for i, label in enumerate(LABELS)},
                "varied": varied,
            }
        )

    excluded = [c["id"] for c in criteria if not c["varied"]]
    kept = [c for c in criteria if c["varied"]]
    macro = {
        "raw_agreement": _mean(c["raw_agreement"] for c in kept),
        "fleiss_kappa": _mean(c["fleiss_kappa"] for c in kept),
        "criteria": [c["id"] for c in kept],
        "excluded": excluded,
    }

    overall_valid = overall_invalid = 0
    item_valid, item_invalid = [], []
    for row in range(n):
        outcomes = [resolutions[c.id][row] for c in CRITERIA]
        is_valid = all(o.is_valid for o in outcomes)
        is_invalid = any(o.state == RESOLVED and o.label == INVALID for o in outcomes)
        item_valid.append(is_valid)
        item_invalid.append(is_invalid)
        overall_valid += is_valid
        overall_invalid += is_invalid
    overall = {
        "valid": overall_valid,
        "invalid": overall_invalid,
        "unresolved": n - overall_valid - overall_invalid,
        "n": n,
        "rate": rate(overall_valid, n),
        "wilson": wilson(overall_valid, n),
    }

    errors = dict.fromkeys(error_codes, 0)
    for row, item in enumerate(items):
        given: set[str] = set()
        for criterion in CRITERIA:
            outcome = resolutions[criterion.id][row]
            if outcome.state == RESOLVED and outcome.label == INVALID:
                given.update(item.error_codes.get(criterion.id, ()))
        for code in given:
            errors[code] = errors.get(code, 0) + 1

    corrections = dict.fromkeys(CORRECTION_CODES, 0)
    at_least_one = deleted = 0
    for item in items:
        kinds = set(item.corrections)
        for code in kinds:
            corrections[code] = corrections.get(code, 0) + 1
        at_least_one += bool(kinds)
        deleted += bool(item.deleted)
    corrections["at_least_one"] = at_least_one
    corrections["deleted_steps"] = deleted

    return {
        **(header or {}),
        "reviewers_per_item": required,
        "criteria": [{k: v for k, v in c.items() if k != "varied"} for c in criteria],
        "overall": overall,
        "macro": macro,
        "errors": errors,
        "corrections": corrections,
        "coverage": _coverage(
            items, item_valid, bin_labels, release_scenes or {}, release_bins or {}
        ),
    }


def _coverage(items, item_valid, bin_labels, release_scenes, release_bins) -> dict:
    scenes: dict[str, list[int]] = {s: [0, 0] for s in release_scenes}
    bins: dict[int, list[int]] = {b: [0, 0] for b in release_bins}
    for item, ok in zip(items, item_valid, strict=True):
        for table, key in ((scenes, item.scene), (bins, item.duration_bin)):
            entry = table.setdefault(key, [0, 0])
            entry[0] += 1
            entry[1] += ok
    return {
        "scenes": [
            {
                "scene": scene,
                "release_n": release_scenes.get(scene),
                "audit_n": audit_n,
                "overall_valid": valid,
            }
            for scene, (audit_n, valid) in sorted(scenes.items())
        ],
        "duration_bins": [
            {
                "bin": b,
                "label": bin_labels[b] if b < len(bin_labels) else str(b),
                "release_n": release_bins.get(b),
                "audit_n": audit_n,
                "overall_valid": valid,
            }
            for b, (audit_n, valid) in sorted(bins.items())
        ],
    }


CSV_COLUMNS = (
    "section",
    "id",
    "name",
    "valid",
    "invalid",
    "n",
    "rate",
    "wilson_low",
    "wilson_high",
    "raw_agreement",
    "fleiss_kappa",
    "uncertain",
    "unresolved",
    "count",
)


def report_csv(report: Mapping) -> str:
    """The report as one CSV table with a ``section`` column (criterion, overall, macro, error,
    correction, scene, duration_bin); numbers unrounded, empty where undefined."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()

    def row(**values):
        writer.writerow({k: ("" if v is None else v) for k, v in values.items()})

    for c in report["criteria"]:
        row(
            section="criterion",
            id=c["id"],
            name=c["name"],
            valid=c["valid"],
            invalid=c["invalid"],
            n=c["n"],
            rate=c["rate"],
            wilson_low=c["wilson"][0],
            wilson_high=c["wilson"][1],
            raw_agreement=c["raw_agreement"],
            fleiss_kappa=c["fleiss_kappa"],
            uncertain=c["uncertain"],
            unresolved=c["unresolved"],
        )
    o = report["overall"]
    row(
        section="overall",
        id="overall",
        name="Overall validity",
        valid=o["valid"],
        invalid=o["invalid"],
        n=o["n"],
        rate=o["rate"],
        wilson_low=o["wilson"][0],
        wilson_high=o["wilson"][1],
        unresolved=o["unresolved"],
    )
    m = report["macro"]
    row(
        section="macro",
        id="macro",
        name="excluding " + (" ".join(m["excluded"]) or "none"),
        raw_agreement=m["raw_agreement"],
        fleiss_kappa=m["fleiss_kappa"],
    )
    for code, count in report["errors"].items():
        row(section="error", id=code, count=count)
    for code, count in report["corrections"].items():
        row(section="correction", id=code, count=count)
    for s in report["coverage"]["scenes"]:
        row(
            section="scene",
            id=s["scene"],
            n=s["release_n"],
            count=s["audit_n"],
            valid=s["overall_valid"],
        )
    for b in report["coverage"]["duration_bins"]:
        row(
            section="duration_bin",
            id=b["bin"],
            name=b["label"],
            n=b["release_n"],
            count=b["audit_n"],
            valid=b["overall_valid"],
        )
    return out.getvalue()
