"""The leaderboard of a release or manifest under one condition (official by default), by the
full-benchmark rule: every step counts and a missing or failed prediction or judgement scores 0
(appendix I.3). Per model: Local, Procedural, Next and Overall (reference judge), GF, HIC, TPC,
NPF (x25) and their average (video judge), coverage by outcome, closed / open group, a per-scene
table, and across models the Pearson and Spearman correlation of Overall with the diagnostic
average (appendix C.4)."""

from __future__ import annotations

import csv
import io
import json

import numpy as np

from scoring.models import Judgement, Outcome, Run, RunItem, RunKind
from scoring.reports.cache import cached_report
from scoring.reports.provenance import (
    endpoint_snapshot,
    package_snapshot,
    returned_models,
    runs_fingerprint,
    set_of,
)
from scoring.runs.services import target_steps
from scoring.stats import group_means, rank_correlations

FORMAT = "intent-studio.leaderboard/1"
REFERENCE = ("local", "procedural", "next")
VIDEO = ("gf", "hic", "tpc", "npf")
COLUMNS = [
    "model",
    "group",
    "requested_model",
    "steps",
    "ok",
    "parse_failure",
    "refusal",
    "api_error",
    "pending",
    "local",
    "procedural",
    "next",
    "overall",
    "overall_scene_macro",
    "overall_video_macro",
    "gf",
    "hic",
    "tpc",
    "npf",
    "diagnostic_average",
]


def _latest_judge(run: Run, kind: str) -> Run | None:
    return run.judged_by.filter(kind=kind).order_by("-created_at", "-id").first()


def leaderboard_runs(*, release, manifest, condition: str = "official") -> list[dict]:
    """Per endpoint the newest prediction run on the set under ``condition`` with its newest
    reference and video judge runs (``None`` when not judged)."""
    runs = Run.objects.filter(
        kind=RunKind.PREDICTION, release=release, manifest=manifest, condition=condition
    ).select_related("endpoint", "package")
    chosen: dict[int, Run] = {}
    for run in runs.order_by("-created_at", "-id"):
        chosen.setdefault(run.endpoint_id, run)
    out = []
    for run in sorted(chosen.values(), key=lambda r: r.endpoint.name):
        out.append(
            {
                "run": run,
                "reference": _latest_judge(run, RunKind.REFERENCE),
                "video": _latest_judge(run, RunKind.VIDEO),
            }
        )
    return out


def leaderboard_inputs(*, release, manifest, condition, entries) -> dict:
    runs = [r for e in entries for r in (e["run"], e["reference"], e["video"]) if r is not None]
    return {
        "format": FORMAT,
        "set": set_of(release, manifest),
        "condition": condition,
        "runs": runs_fingerprint(runs),
    }


def _judged(judge: Run, dims, read: dict) -> dict:
    """The ok judgements of a judge run as {prediction id: scores}, read once per judge run
    however many prediction runs it judged (``read`` holds what was read already)."""
    if judge.pk not in read:
        rows = (
            Judgement.objects.filter(run=judge, outcome=Outcome.OK)
            .order_by()
            .values_list("prediction_id", *dims)
        )
        read[judge.pk] = {pk: scores for pk, *scores in rows.iterator(chunk_size=10_000)}
    return read[judge.pk]


def _values(run: Run, judge: Run | None, dims, index: dict, scale: int, read: dict) -> tuple:
    """(N, D) full-benchmark values (0 unless prediction and judgement are ok) and outcomes."""
    n = len(index)
    values = np.zeros((n, len(dims)))
    outcomes = dict.fromkeys(["ok", "parse_failure", "refusal", "api_error", "pending"], 0)
    items = {}
    rows = RunItem.objects.filter(run=run).order_by().values_list("pk", "key", "outcome")
    for pk, key, outcome in rows:
        if key in index:
            items[pk] = index[key]
            outcomes[outcome or "pending"] += 1
    outcomes["pending"] += n - len(items)  # steps the run never had
    judged = 0
    if judge is not None:
        scores = _judged(judge, dims, read)
        for pk, i in items.items():
            found = scores.get(pk)
            if found is not None:
                values[i] = found
                judged += 1
    return values * scale, outcomes, judged


def compute_leaderboard(*, release, manifest, condition, entries) -> dict:
    steps = target_steps(release=release, manifest=manifest)
    index = {str(s.sample_id): i for i, s in enumerate(steps)}
    scenes = np.array([s.scene_slug for s in steps], dtype=object)
    videos = np.array([s.video_sha256 for s in steps], dtype=object)
    returned = returned_models(
        r.pk for e in entries for r in (e["run"], e["reference"], e["video"]) if r is not None
    )
    rows, scene_rows = [], []
    overall_rows, diagnostic_rows = [], []
    read: dict = {}  # judge run -> its ok judgements, read once
    for e in entries:
        run, ref, vid = e["run"], e["reference"], e["video"]
        ref_values, outcomes, judged = _values(run, ref, REFERENCE, index, 1, read)
        overall = ref_values.mean(axis=1)
        matrix = [*ref_values.T, overall]
        diag = None
        if vid is not None:
            vid_values, _, _ = _values(run, vid, VIDEO, index, 25, read)
            diag = vid_values.mean(axis=1)
            matrix += [*vid_values.T, diag]
        means = group_means(np.array(matrix), scenes, videos)
        row = {
            "model": run.endpoint.name,
            "group": "open" if run.endpoint.open_weights else "closed",
            "requested_model": run.endpoint.model,
            "returned_models": returned.get(run.pk, []),
            "run": run.name,
            "reference_judge": ref.name if ref else None,
            "video_judge": vid.name if vid else None,
            "steps": len(steps),
            "judged": judged,
            **outcomes,
        }
        for i, dim in enumerate((*REFERENCE, "overall")):
            row[dim] = float(means["micro"][i])
        row["overall_scene_macro"] = float(means["scene_macro"][3])
        row["overall_video_macro"] = float(means["video_macro"][3])
        for i, dim in enumerate((*VIDEO, "diagnostic_average")):
            row[dim] = float(means["micro"][4 + i]) if vid is not None else None
        rows.append(row)
        overall_rows.append(overall)
        if diag is not None:
            diagnostic_rows.append((row["overall"], row["diagnostic_average"]))
        for scene in sorted(set(scenes.tolist())):
            mask = scenes == scene
            scene_rows.append(
                {
                    "model": row["model"],
                    "scene": scene,
                    "n": int(mask.sum()),
                    "overall": float(overall[mask].mean()),
                }
            )
    rows.sort(key=lambda r: (-r["overall"], r["model"]))
    x = [a for a, _ in diagnostic_rows]
    y = [b for _, b in diagnostic_rows]
    pearson, spearman = rank_correlations(x, y)
    return {
        "format": FORMAT,
        "condition": condition,
        "rule": "full benchmark: every step counts; a missing or failed prediction or judgement "
        "scores 0 (appendix I.3)",
        "models": rows,
        "scenes": scene_rows,
        "correlation": {
            "between": ["overall", "diagnostic_average"],
            "models": len(x),
            "pearson": pearson,
            "spearman": spearman,
        },
        "provenance": {
            "set": set_of(release, manifest),
            "endpoints": [endpoint_snapshot(e["run"].endpoint) for e in entries],
            "prediction_packages": sorted({e["run"].package.sha256 for e in entries}),
            "judges": [
                {
                    "run": j.name,
                    "kind": j.kind,
                    "endpoint": endpoint_snapshot(j.endpoint),
                    "returned_models": returned.get(j.pk, []),
                    "package": package_snapshot(j.package),
                }
                for e in entries
                for j in (e["reference"], e["video"])
                if j is not None
            ],
        },
    }


def leaderboard(*, release, manifest=None, condition="official", fresh=False) -> tuple[str, bool]:
    if manifest is not None:
        release = manifest.release
    entries = leaderboard_runs(release=release, manifest=manifest, condition=condition)
    subject = (manifest or release).name
    return cached_report(
        kind="leaderboard",
        subject=subject,
        inputs=leaderboard_inputs(
            release=release, manifest=manifest, condition=condition, entries=entries
        ),
        compute=lambda: compute_leaderboard(
            release=release, manifest=manifest, condition=condition, entries=entries
        ),
        fresh=fresh,
    )


def leaderboard_csv(board: dict, table: str = "models") -> str:
    out = io.StringIO()
    heads = [
        ("format", board["format"]),
        ("condition", board["condition"]),
        ("rule", board["rule"]),
        ("correlation", board["correlation"]),
        ("provenance", board["provenance"]),
        ("inputs_sha256", board["inputs_sha256"]),
        ("computed_at", board["computed_at"]),
    ]
    for k, v in heads:
        out.write(f"# {k}: {json.dumps(v, sort_keys=True, ensure_ascii=False)}\n")
    writer = csv.writer(out, lineterminator="\n")
    if table == "scenes":
        writer.writerow(["model", "scene", "n", "overall"])
        for r in board["scenes"]:
            writer.writerow([r["model"], r["scene"], r["n"], r["overall"]])
        return out.getvalue()
    if table != "models":
        raise ValueError("table is one of: models, scenes")
    writer.writerow(COLUMNS)
    for r in board["models"]:
        writer.writerow(["" if r[c] is None else r[c] for c in COLUMNS])
    return out.getvalue()
