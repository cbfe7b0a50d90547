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

Part 2 (``--database``, on by default) stores the same campaign in a throwaway database (SQLite
temporary file, or PostgreSQL when DATABASE_URL points there; TEST_DATABASE_NAME, default
bench_audit) as 756 release steps, manifest samples, campaign items, 2,268 assignments and 4,536
submissions, and times ``campaign_report`` (read + compute) against the baseline of reading the
submissions' payloads alone.

Run from the repository root:
    .venv/bin/python benchmarks/audit_report.py [--no-database]
    DATABASE_URL=postgres://USER@HOST:5432/postgres TEST_DATABASE_NAME=bench_audit \\
        .venv/bin/python benchmarks/audit_report.py
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
WORK = Path(tempfile.mkdtemp(prefix="audit-bench-"))
os.environ.setdefault("STUDIO_VAR_DIR", str(WORK / "var"))
if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
    os.environ["DATABASE_URL"] = f"sqlite:///{WORK / 'unused.sqlite3'}"
    os.environ["TEST_DATABASE_NAME"] = str(WORK / "bench.sqlite3")
else:
    os.environ.setdefault("TEST_DATABASE_NAME", "bench_audit")

import django  # noqa: E402

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


def store(items) -> object:
    """The campaign of ``items`` in the database, rows written in bulk (setup, not measured)."""
    import hashlib
    import secrets
    import uuid

    from django.contrib.auth import get_user_model

    from annotation.models import Release, ReleaseStep
    from review.campaigns.models import Assignment, Campaign, CampaignItem, Submission
    from review.models import Manifest, ManifestSample
    from studio.services import now

    release = Release.objects.create(name="bench_audit_release")
    steps = ReleaseStep.objects.bulk_create(
        ReleaseStep(release=release, sample_id=uuid.UUID(int=i + 1), scene_slug=item.scene,
                    video_sha256=hashlib.sha256(str(i % 32).encode()).hexdigest(), position=i,
                    start_us=0, cutoff_us=1_000_000 + i, outcome_us=1_100_000 + i,
                    end_us=1_200_000 + i * 10_000)
        for i, item in enumerate(items)
    )  # fmt: skip
    manifest = Manifest.objects.create(name="bench_audit_manifest", kind="audit",
                                       method="stratified", seed=1, release=release)  # fmt: skip
    samples = ManifestSample.objects.bulk_create(
        ManifestSample(manifest=manifest, release_step=s, sample_id=s.sample_id, duration_bin=i % 8)
        for i, s in enumerate(steps)
    )
    people = [get_user_model().objects.create(username=f"bench-r{k}") for k in range(N_REVIEWERS)]
    campaign = Campaign.objects.create(name="bench-audit", kind="audit", manifest=manifest,
                                       per_item=N_REVIEWERS, seed=1)  # fmt: skip
    campaign.people.set(people)
    rows = CampaignItem.objects.bulk_create(
        CampaignItem(campaign=campaign, sample=s) for s in samples
    )
    at = now()
    assignments, payloads = [], []
    for row, item in zip(rows, items, strict=True):
        for k, person in enumerate(people):
            assignments.append(Assignment(campaign=campaign, item=row, person=person,
                                          token=secrets.token_urlsafe(32), state="done",
                                          committed=True, done_at=at))  # fmt: skip
            for part, ids in (("phase1", ("C1", "C2", "C4", "C5", "C6")), ("phase2", ("C3", "C7"))):
                criteria = {cid: {"label": item.labels[cid][k], "comment": "",
                                  "error_types": list(item.error_codes.get(cid, []))
                                  if item.labels[cid][k] == "invalid" else []}
                            for cid in ids}  # fmt: skip
                payloads.append((len(assignments) - 1, part, {"criteria": criteria}))
    assignments = Assignment.objects.bulk_create(assignments)
    Submission.objects.bulk_create(
        Submission(assignment=assignments[a], campaign=campaign, item_id=assignments[a].item_id,
                   person_id=assignments[a].person_id, part=part, payload=payload, created_at=at)
        for a, part, payload in payloads
    )  # fmt: skip
    return campaign


def database_part(items) -> None:
    from django.db import connection

    from review.audit.reporting import campaign_report
    from review.campaigns.models import Submission

    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        campaign = store(items)
        report = campaign_report(campaign)
        assert report["overall"]["n"] == N_ITEMS
        # The stored campaign gives the in-memory report (adjudications aside: none stored here).
        t_db = best(lambda: campaign_report(campaign), repeat=7)
        t_read = best(lambda: list(Submission.objects.filter(campaign=campaign)
                                   .values_list("payload", flat=True)), repeat=7)  # fmt: skip
        print(f"database ({connection.vendor}): 4,536 submissions")
        print(f"  campaign_report   {t_db * 1e3:8.2f} ms   (read + compute)")
        print(f"  baseline read     {t_read * 1e3:8.2f} ms   report / read = {t_db / t_read:6.1f}x")
        print(
            f"  goal campaign_report <= {GOAL_S * 1e3:.0f} ms: {'met' if t_db <= GOAL_S else 'MISSED'}"
        )
    finally:
        connection.creation.destroy_test_db(os.environ["TEST_DATABASE_NAME"], verbosity=0)


def main() -> None:
    parser = argparse.ArgumentParser(description="Audit report benchmark")
    parser.add_argument("--no-database", action="store_true", help="Skip part 2")
    args = parser.parse_args()
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
    if not args.no_database:
        database_part(items)


if __name__ == "__main__":
    main()
