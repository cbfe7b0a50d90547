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
from django.db.models import FilteredRelation, Q

from scoring.models import Outcome, Run, RunItem, RunKind
from scoring.reports.cache import cached_report
from scoring.reports.provenance import (
    endpoint_snapshot,
    package_snapshot,
    returned_models,
    runs_fingerprint,
    set_of,
)
from scoring.runs.services import target_step_values
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
    "missing",
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


def leaderboard_runs(*, release, manifest, condition: str = "official") -> list[dict]:
    """Per endpoint the newest prediction run on the set under ``condition`` with its newest
    reference and video judge runs (``None`` when not judged)."""
    runs = Run.objects.filter(
        kind=RunKind.PREDICTION, release=release, manifest=manifest, condition=condition
    ).select_related("endpoint", "package")
    chosen: dict[int, Run] = {}
    for run in runs.order_by("-created_at", "-id"):
        chosen.setdefault(run.endpoint_id, run)
    judges: dict[tuple[int, str], Run] = {}  # (prediction run, kind) -> its newest judge run
    rows = (
        Run.sources.through.objects.filter(
            to_run__in=list(chosen.values()),
            from_run__kind__in=[RunKind.REFERENCE, RunKind.VIDEO],
        )
        .select_related("from_run__endpoint", "from_run__package")
        .order_by("-from_run__created_at", "-from_run__id")
    )
    for link in rows:
        judges.setdefault((link.to_run_id, link.from_run.kind), link.from_run)
    return [
        {
            "run": run,
            "reference": judges.get((run.pk, RunKind.REFERENCE)),
            "video": judges.get((run.pk, RunKind.VIDEO)),
        }
        for run in sorted(chosen.values(), key=lambda r: r.endpoint.name)
    ]


def leaderboard_conditions(*, release, manifest) -> list[str]:
    """The conditions some prediction run on the set was made under, Official first, then in
    the order of media.windows' vocabulary (the leaderboard offers only these)."""
    from media.windows import CONDITIONS_VOCABULARY

    if manifest is not None:
        release = manifest.release
    found = set(
        Run.objects.filter(kind=RunKind.PREDICTION, release=release, manifest=manifest)
        .values_list("condition", flat=True)
        .distinct()
    )
    order = list(CONDITIONS_VOCABULARY)
    return sorted(found, key=lambda c: (order.index(c) if c in order else len(order), c))


def leaderboard_inputs(*, release, manifest, condition, entries) -> dict:
    runs = [r for e in entries for r in (e["run"], e["reference"], e["video"]) if r is not None]
    return {
        "format": FORMAT,
        "set": set_of(release, manifest),
        "condition": condition,
        "runs": runs_fingerprint(runs),
    }


def _ok_scores(judge: Run) -> FilteredRelation:
    """The judgements of a prediction by ``judge`` that scored it."""
    return FilteredRelation(
        "judged_in", condition=Q(judged_in__run=judge, judged_in__outcome=Outcome.OK)
    )


# "missing": steps of the set the run has no item for (a run over a subset); they score 0 too.
OUTCOMES = ("ok", "parse_failure", "refusal", "api_error", "pending", "missing")


def _scored(entries, index: dict) -> dict[int, tuple]:
    """Per prediction run: (N, 3) reference and (N, 4) video values on the 0-100 scale (0 unless
    prediction and judgement are ok; video ``None`` without a video judge), the outcomes, and
    the number of steps the reference judge scored.

    One query per pair of judge runs (usually one for the whole board: one judge run judges every
    model): each item's outcome beside its ok judgements, read from the covering index of ok
    scores (``judgement_ok_scores_idx``)."""
    by_judges: dict[tuple, list[Run]] = {}
    for e in entries:
        by_judges.setdefault((e["reference"], e["video"]), []).append(e["run"])
    out = {}
    for (ref, vid), runs in by_judges.items():
        query = RunItem.objects.filter(run__in=runs).order_by()
        columns = ["run_id", "key", "outcome"]
        for alias, judge, dims in (("ref", ref, REFERENCE), ("vid", vid, VIDEO)):
            if judge is not None:
                query = query.annotate(**{alias: _ok_scores(judge)})
                columns += [f"{alias}__{d}" for d in dims]
        rows: dict[int, list] = {run.pk: [] for run in runs}
        for row in query.values_list(*columns):
            rows[row[0]].append(row)
        for run_id, run_rows in rows.items():
            out[run_id] = _arrays(run_rows, ref is not None, vid is not None, index)
    return out


def _arrays(rows: list, has_ref: bool, has_vid: bool, index: dict) -> tuple:
    n = len(index)
    at = np.fromiter((index.get(r[1], -1) for r in rows), dtype=np.int64, count=len(rows))
    kept = at >= 0
    outcomes = dict.fromkeys(OUTCOMES, 0)
    for row, keep in zip(rows, kept.tolist(), strict=True):
        if keep:
            outcomes[row[2] or "pending"] += 1
    outcomes["missing"] = n - int(kept.sum())
    width = len(REFERENCE) * has_ref + len(VIDEO) * has_vid
    # None (no ok judgement) becomes NaN, then 0: the full-benchmark rule.
    found = np.array([r[3:] for r in rows], dtype=float).reshape(len(rows), width)[kept]
    values = np.zeros((n, width))
    values[at[kept]] = np.nan_to_num(found, nan=0.0)
    split = len(REFERENCE) if has_ref else 0
    ref_values = values[:, :split] if has_ref else np.zeros((n, len(REFERENCE)))
    judged = int((~np.isnan(found[:, 0])).sum()) if has_ref else 0
    vid_values = values[:, split:] * 25 if has_vid else None
    return ref_values, vid_values, outcomes, judged


def compute_leaderboard(*, release, manifest, condition, entries) -> dict:
    steps = target_step_values(
        release=release, manifest=manifest, fields=("sample_id", "scene_slug", "video_sha256")
    )
    index = {str(sample): i for i, (sample, _scene, _video) in enumerate(steps)}
    scenes = np.array([scene for _sample, scene, _video in steps], dtype=object)
    videos = np.array([video for _sample, _scene, video in steps], dtype=object)
    # Integer codes: the engine groups them much faster than strings (the same groups).
    scene_codes = np.unique(scenes, return_inverse=True)[1]
    video_codes = np.unique(videos, return_inverse=True)[1]
    scored = _scored(entries, index)
    returned = returned_models(
        r.pk for e in entries for r in (e["run"], e["reference"], e["video"]) if r is not None
    )
    rows, scene_rows = [], []
    overall_rows, diagnostic_rows = [], []
    for e in entries:
        run, ref, vid = e["run"], e["reference"], e["video"]
        ref_values, vid_values, outcomes, judged = scored[run.pk]
        overall = ref_values.mean(axis=1)
        matrix = [*ref_values.T, overall]
        diag = None
        if vid_values is not None:
            diag = vid_values.mean(axis=1)
            matrix += [*vid_values.T, diag]
        means = group_means(np.array(matrix), scene_codes, video_codes)
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
