"""The boundary audit report as a pure computation over labels (paper appendix E.2, table 32).

No Django here: ``review.boundary.reporting`` reads a campaign into ``BoundaryItem`` rows.
Resolution is the audit's (``review.audit.resolution``: two agreeing reviewers, else an
adjudicator's valid/invalid; unresolved never counts as valid); statistics come from
``scoring.stats``.

- per window: ``n`` items that have the window (Next visible needs a following step; the others
  are ``unavailable``), ``valid`` / ``invalid`` resolved so, ``unresolved`` the rest,
  ``rate = valid / n`` with its Wilson 95 % interval, raw agreement and Fleiss κ of the
  independent labels over the three categories on the items with all their labels (``rated``);
- ``official``: the official window's row — whether the released observation hides the
  decisive outcome, the benchmark's own boundary validity;
- ``four_way``: an item is valid when all four windows are resolved valid, invalid when one is
  resolved invalid or missing, otherwise unresolved; ``rate`` over every audited item;
- ``duration_bins``: per bin the audited items, the four-way valid items and their share, and
  the official valid items (table 32's shape);
- ``sets``: the sizes the paper keeps apart — ``audited``, ``official_valid``,
  ``four_way_valid``; ``four_way_valid_complete_predictions`` is a property of a study's runs
  and is given by the boundary study's report (``null`` here).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from review.audit.report import number, rate, wilson
from review.audit.resolution import NEEDS_ADJUDICATION, RESOLVED, resolve_counts
from review.boundary.windows import INVALID, LABELS, UNCERTAIN, VALID, WINDOWS
from scoring.stats import fleiss_kappa, raw_agreement


@dataclass
class BoundaryItem:
    key: str  # the sample id (keys the rows; never shown on the report page)
    duration_bin: int
    windows: Sequence[str]  # the windows the step has
    labels: Mapping[str, Sequence[str]] = field(default_factory=dict)
    adjudications: Mapping[str, str] = field(default_factory=dict)


def _counts(labels) -> tuple[int, int, int]:
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
    return v, i, u


def item_outcomes(item: BoundaryItem, required: int) -> dict:
    """Window name -> Resolution (None for a window the step does not have)."""
    out = {}
    for rule in WINDOWS:
        if rule.name not in item.windows:
            out[rule.name] = None
            continue
        v, i, u = _counts(item.labels.get(rule.name, ()))
        out[rule.name] = resolve_counts(
            v, i, v + i + u, required=required, adjudication=item.adjudications.get(rule.name)
        )
    return out


def four_way(outcomes: Mapping) -> str:
    """``valid``, ``invalid`` or ``unresolved`` for one item's window outcomes."""
    if all(o is not None and o.is_valid for o in outcomes.values()):
        return VALID
    if any(o is None or (o.state == RESOLVED and o.label == INVALID) for o in outcomes.values()):
        return INVALID
    return "unresolved"


def boundary_report(
    items: Sequence[BoundaryItem],
    *,
    required: int,
    header: Mapping | None = None,
    bin_labels: Sequence[str] = (),
) -> dict:
    n = len(items)
    outcomes = [item_outcomes(item, required) for item in items]
    windows = []
    for rule in WINDOWS:
        rows, complete = [], []
        valid = invalid = waiting = adjudicated = uncertain = unavailable = 0
        for item, found in zip(items, outcomes, strict=True):
            outcome = found[rule.name]
            if outcome is None:
                unavailable += 1
                continue
            v, i, u = _counts(item.labels.get(rule.name, ()))
            rows.append((v, i, u))
            complete.append(v + i + u == required)
            uncertain += u >= 2
            if outcome.state == RESOLVED:
                valid += outcome.label == VALID
                invalid += outcome.label == INVALID
                adjudicated += outcome.by == "adjudication"
            elif outcome.state == NEEDS_ADJUDICATION:
                waiting += 1
        counts = np.array(rows, dtype=np.int64).reshape(len(rows), len(LABELS))
        table = counts[np.array(complete, dtype=bool)] if rows else counts
        totals = counts.sum(axis=0)
        have = n - unavailable
        windows.append(
            {
                "window": rule.name,
                "name": rule.label,
                "n": have,
                "valid": valid,
                "invalid": invalid,
                "unresolved": have - valid - invalid,
                "unavailable": unavailable,
                "rate": rate(valid, have),
                "wilson": wilson(valid, have),
                "raw_agreement": number(raw_agreement(table)) if len(table) else None,
                "fleiss_kappa": number(fleiss_kappa(table)) if len(table) else None,
                "rated": len(table),
                "uncertain": uncertain,
                "needs_adjudication": waiting,
                "adjudicated": adjudicated,
                "labels": {label: int(totals[k]) for k, label in enumerate(LABELS)},
            }
        )
    verdicts = [four_way(found) for found in outcomes]
    official_ok = [bool(found["official"] and found["official"].is_valid) for found in outcomes]
    four_valid = verdicts.count(VALID)
    four_invalid = verdicts.count(INVALID)
    bins = []
    for b, label in enumerate(bin_labels):
        members = [k for k, item in enumerate(items) if item.duration_bin == b]
        ok = sum(verdicts[k] == VALID for k in members)
        bins.append(
            {
                "bin": b,
                "label": label,
                "audited": len(members),
                "four_way_valid": ok,
                "four_way_rate": rate(ok, len(members)),
                "official_valid": sum(official_ok[k] for k in members),
            }
        )
    official = next(w for w in windows if w["window"] == "official")
    return {
        **(header or {}),
        "reviewers_per_item": required,
        "windows": windows,
        "official": {k: official[k] for k in ("valid", "invalid", "unresolved", "n", "rate")}
        | {"wilson": official["wilson"]},
        "four_way": {
            "valid": four_valid,
            "invalid": four_invalid,
            "unresolved": n - four_valid - four_invalid,
            "n": n,
            "rate": rate(four_valid, n),
            "wilson": wilson(four_valid, n),
        },
        "duration_bins": bins,
        "sets": {
            "audited": n,
            "official_valid": sum(official_ok),
            "four_way_valid": four_valid,
            "four_way_valid_complete_predictions": None,
        },
    }


CSV_COLUMNS = ["section", "key", "name", "n", "valid", "invalid", "unresolved", "rate",
               "wilson_low", "wilson_high", "raw_agreement", "fleiss_kappa",
               "official_valid"]  # fmt: skip


def report_csv(report: dict) -> str:
    """One table with a ``section`` column (window, four_way, duration_bin, set)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)

    def blank(value):
        return "" if value is None else value

    for w in report["windows"]:
        writer.writerow(["window", w["window"], w["name"], w["n"], w["valid"], w["invalid"],
                         w["unresolved"], blank(w["rate"]), blank(w["wilson"][0]),
                         blank(w["wilson"][1]), blank(w["raw_agreement"]),
                         blank(w["fleiss_kappa"]), ""])  # fmt: skip
    f = report["four_way"]
    writer.writerow(["four_way", "all", "Four-way valid", f["n"], f["valid"], f["invalid"],
                     f["unresolved"], blank(f["rate"]), blank(f["wilson"][0]),
                     blank(f["wilson"][1]), "", "", ""])  # fmt: skip
    for b in report["duration_bins"]:
        writer.writerow(["duration_bin", b["bin"], b["label"], b["audited"], b["four_way_valid"],
                         "", "", blank(b["four_way_rate"]), "", "", "", "",
                         b["official_valid"]])  # fmt: skip
    for key, value in report["sets"].items():
        writer.writerow(["set", key, "", blank(value), "", "", "", "", "", "", "", "", ""])
    return out.getvalue()
