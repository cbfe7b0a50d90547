"""Benchmark: the audit report for the paper's size (756 items x 3 reviewers x 7 criteria).

Goal (audit issue): the report computes in <= 200 ms.

Measured in one run, each the best of several timed repetitions (time.perf_counter):
- ``report``: ``review.audit.report.audit_report`` on 756 items with three labels per criterion
  (about 4 % invalid or uncertain, a few three-way splits with adjudications, error codes,
  corrections, coverage tables): everything the page, the JSON and the CSV show;
- ``report + csv``: the same plus ``report_csv``;
- baseline ``count labels``: one plain pass that only counts the labels per criterion (the least
  any report must do), and ``stats only``: Wilson, raw agreement and Fleiss kappa of the seven
  criteria on prepared tables (scoring.stats). Ratios are report time / baseline time.

Run from the repository root:  .venv/bin/python benchmarks/audit_report.py
No database: the report's inputs are built in memory (the database read is one query per table,
see review/audit/reporting.py).
"""

from __future__ import annotations

import math
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")

import django

django.setup()

import numpy as np  # noqa: E402

from review.audit.criteria import CORRECTION_CODES, CRITERION_IDS, DEFAULT_ERROR_CODES  # noqa: E402
from review.audit.report import ReportItem, audit_report, report_csv  # noqa: E402
from scoring.stats import fleiss_kappa, raw_agreement, wilson_interval  # noqa: E402

N_ITEMS, N_REVIEWERS, GOAL_S = 756, 3, 0.200
SCENES = [f"scene/{i:02d}" for i in range(15)]


def build(seed: int = 20260713) -> list[ReportItem]:
    rng = random.Random(seed)
    items = []
    for i in range(N_ITEMS):
        labels, adjudications, codes = {}, {}, {}
        for cid in CRITERION_IDS:
            row = []
            for _ in range(N_REVIEWERS):
                r = rng.random()
                row.append(
                    "valid" if r < 0.96 or cid == "C2" else "invalid" if r < 0.985 else "uncertain"
                )
            if rng.random() < 0.01:
                row = ["valid", "invalid", "uncertain"]
                adjudications[cid] = rng.choice(["valid", "invalid"])
            labels[cid] = row
            if "invalid" in row:
                codes[cid] = [rng.choice(DEFAULT_ERROR_CODES)]
        corrections = [rng.choice(CORRECTION_CODES)] if rng.random() < 0.04 else []
        items.append(ReportItem(key=str(i), scene=SCENES[i % 15], duration_bin=i % 8,
                                labels=labels, adjudications=adjudications, error_codes=codes,
                                corrections=corrections))  # fmt: skip
    return items


def best(fn, repeat: int = 15) -> float:
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    items = build()
    edges = [f"bin{b}" for b in range(8)]
    scenes = dict.fromkeys(SCENES, 200)
    bins = dict.fromkeys(range(8), 377)

    def report():
        return audit_report(items, required=N_REVIEWERS, bin_labels=edges,
                            release_scenes=scenes, release_bins=bins)  # fmt: skip

    def report_and_csv():
        return report_csv(report())

    def count_labels():
        counts = {cid: {"valid": 0, "invalid": 0, "uncertain": 0} for cid in CRITERION_IDS}
        for item in items:
            for cid, row in item.labels.items():
                for label in row:
                    counts[cid][label] += 1
        return counts

    index = {"valid": 0, "invalid": 1, "uncertain": 2}
    tables = []
    for cid in CRITERION_IDS:
        t = np.zeros((N_ITEMS, 3), dtype=np.int64)
        for r, item in enumerate(items):
            for label in item.labels[cid]:
                t[r, index[label]] += 1
        tables.append(t)

    def stats_only():
        for t in tables:
            raw_agreement(t)
            fleiss_kappa(t)
            wilson_interval(int(t[:, 0].sum() // 3), N_ITEMS)

    result = report()
    assert result["overall"]["n"] == N_ITEMS and math.isfinite(result["macro"]["fleiss_kappa"])
    t_report, t_csv = best(report), best(report_and_csv)
    t_count, t_stats = best(count_labels), best(stats_only)
    print(
        f"audit report, {N_ITEMS} items x {N_REVIEWERS} reviewers x {len(CRITERION_IDS)} criteria"
    )
    print(f"  report            {t_report * 1e3:8.2f} ms")
    print(f"  report + csv      {t_csv * 1e3:8.2f} ms")
    print(
        f"  baseline count    {t_count * 1e3:8.2f} ms   report / count = {t_report / t_count:6.1f}x"
    )
    print(
        f"  baseline stats    {t_stats * 1e3:8.2f} ms   report / stats = {t_report / t_stats:6.1f}x"
    )
    verdict = "met" if t_csv <= GOAL_S else "MISSED"
    print(f"  goal report + csv <= {GOAL_S * 1e3:.0f} ms: {verdict}")


if __name__ == "__main__":
    main()
