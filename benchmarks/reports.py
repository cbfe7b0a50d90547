"""Benchmark: study reports and leaderboards (issue 15), each beside a baseline of the same run.

1. A study report of 4 models x 14 conditions x 640 steps (32 source videos, 15 scenes): every
   contrast of the three templates (boundary 7, evidence 3, history 3) for every model and all
   models, on every dimension and Overall, with 2,000 source-video bootstrap replicates.
   Goal: <= 2 s. Measured without breakdowns (the contrasts and condition scores) and with them
   (every scene and duration bin too). Baseline: a plain loop calling the engine's
   ``paired_difference`` once per effect and pandas ``groupby`` for the condition means.
2. A leaderboard of 15 models x 3,014 steps (micro, scene and video macro of 8 columns + Overall
   and the diagnostic average, per-scene table). Goal: <= 300 ms. Baseline: pandas groupby.
3. The cache: the same report requested again (``--db``: a migrated SQLite database in a
   temporary folder holding the 640-step study's report row): one aggregate query and one row.
   Goal: <= 20 ms.

Run from the repository root:  .venv/bin/python benchmarks/reports.py [--db]
Every figure is the best of several timed runs (time.perf_counter); the script also checks that
the baseline gives the same numbers.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scoring.stats import (  # noqa: E402
    ALL_MODELS,
    Cell,
    Contrast,
    ScoreTable,
    group_means,
    paired_difference,
    study_estimates,
)


def _templates():
    """The study templates, read without importing the Django side of scoring.studies."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "study_templates", ROOT / "scoring" / "studies" / "templates.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.TEMPLATES


TEMPLATES = _templates()

SEED = 20260721
DIMS = ("local", "procedural", "next")


def best(fn, repeat=3):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def study_table(rng, models=4, steps=640, videos=32, scenes=15):
    conditions = []
    for t in ("boundary", "evidence", "history"):
        conditions += TEMPLATES[t]["conditions"]
    m, c, n = models, len(conditions), steps
    video = np.sort(rng.integers(0, videos, n))
    video[:videos] = np.arange(videos)  # every video present
    scene = video % scenes
    scores = rng.integers(0, 101, size=(m, c, n, 3)).astype(float)
    status = np.zeros((m, c, n), dtype=np.int8)
    status[rng.random((m, c, n)) < 0.002] = Cell.EXECUTION
    status[rng.random((m, c, n)) < 0.002] = Cell.INVALID
    scores[status != Cell.OK] = np.nan
    bins = np.array(["<1 s", "1-2 s", "2-4 s", "≥4 s"], dtype=object)[rng.integers(0, 4, n)]
    table = ScoreTable(
        models=tuple(f"model-{i}" for i in range(m)),
        conditions=tuple(conditions),
        dimensions=DIMS,
        items=np.array([f"s{i:04d}" for i in range(n)], dtype=object),
        videos=np.array([f"v{v:02d}" for v in video], dtype=object),
        scenes=np.array([f"scene-{s:02d}" for s in scene], dtype=object),
        scores=scores,
        status=status,
        strata={"duration_bin": bins},
    )
    contrasts = []
    for t in ("boundary", "evidence", "history"):
        for k in TEMPLATES[t]["contrasts"]:
            dims = tuple(k["dimensions"]) if k.get("dimensions") else None
            contrasts.append(Contrast(f"{t}:{k['name']}", k["a"], k["b"], dims))
    return table, contrasts


def baseline_study(table, contrasts):
    """Per effect one engine call; condition means with pandas. Pair common sets."""
    from scoring.stats import controlled_valid, controlled_values

    values = controlled_values(table)
    comp = values.mean(axis=-1, keepdims=True)
    values = np.concatenate([values, comp], axis=-1)
    values = np.concatenate([values, values.mean(axis=0, keepdims=True)], axis=0)
    valid = controlled_valid(table)
    dims = (*DIMS, "overall")
    models = (*table.models, ALL_MODELS)
    effects = {}
    for k in contrasts:
        a, b = table.conditions.index(k.a), table.conditions.index(k.b)
        mask = valid[a] & valid[b]
        for mi, model in enumerate(models):
            pairs = (
                [(k.label(), values[mi, a, :, dims.index(k.dimensions[0])]
                  - values[mi, b, :, dims.index(k.dimensions[0])]
                  - values[mi, a, :, dims.index(k.dimensions[1])]
                  + values[mi, b, :, dims.index(k.dimensions[1])])]
                if k.dimensions
                else [(d, values[mi, a, :, di] - values[mi, b, :, di]) for di, d in enumerate(dims)]
            )  # fmt: skip
            for dim, diff in pairs:
                d = np.where(mask, diff, np.nan)
                effects[(k.name, model, dim)] = paired_difference(
                    d, np.zeros_like(d), table.videos, n_resamples=2000, seed=SEED
                )
    rows = []
    for mi, model in enumerate(models):
        for ci, cond in enumerate(table.conditions):
            for di, dim in enumerate(dims):
                v = np.where(valid[ci], values[mi, ci, :, di], np.nan)
                rows.append(
                    pd.DataFrame(
                        {"model": model, "condition": cond, "dimension": dim, "v": v,
                         "scene": table.scenes, "video": table.videos}
                    )
                )  # fmt: skip
    frame = pd.concat(rows).dropna(subset=["v"])
    keys = ["model", "condition", "dimension"]
    micro = frame.groupby(keys)["v"].mean()
    scene = frame.groupby([*keys, "scene"])["v"].mean().groupby(keys).mean()
    video = frame.groupby([*keys, "video"])["v"].mean().groupby(keys).mean()
    return effects, micro, scene, video


def leaderboard_arrays(rng, models=15, steps=3014, videos=32, scenes=15):
    video = np.sort(rng.integers(0, videos, steps))
    scene = video % scenes
    ref = rng.integers(0, 101, size=(models, steps, 3)).astype(float)
    vid = rng.integers(0, 5, size=(models, steps, 4)).astype(float) * 25
    fail = rng.random((models, steps)) < 0.01
    ref[fail] = 0
    vid[fail] = 0
    return ref, vid, scene.astype(str), video.astype(str)


def ours_leaderboard(ref, vid, scene, video):
    from scoring.stats import rank_correlations

    out = []
    overall_all, diag_all = [], []
    for m in range(ref.shape[0]):
        overall = ref[m].mean(axis=1)
        diag = vid[m].mean(axis=1)
        matrix = np.vstack([ref[m].T, overall, vid[m].T, diag])
        means = group_means(matrix, scene, video)
        per_scene = {s: float(overall[scene == s].mean()) for s in np.unique(scene)}
        out.append((means, per_scene))
        overall_all.append(means["micro"][3])
        diag_all.append(means["micro"][8])
    return out, rank_correlations(overall_all, diag_all)


def pandas_leaderboard(ref, vid, scene, video):
    frames = []
    for m in range(ref.shape[0]):
        f = pd.DataFrame(np.hstack([ref[m], vid[m]]), columns=[*DIMS, "gf", "hic", "tpc", "npf"])
        f["overall"] = f[list(DIMS)].mean(axis=1)
        f["diag"] = f[["gf", "hic", "tpc", "npf"]].mean(axis=1)
        f["model"], f["scene"], f["video"] = m, scene, video
        frames.append(f)
    f = pd.concat(frames)
    cols = [*DIMS, "overall", "gf", "hic", "tpc", "npf", "diag"]
    micro = f.groupby("model")[cols].mean()
    scene_macro = f.groupby(["model", "scene"])[cols].mean().groupby("model").mean()
    video_macro = f.groupby(["model", "video"])[cols].mean().groupby("model").mean()
    per_scene = f.groupby(["model", "scene"])["overall"].mean()
    corr = (
        micro[["overall", "diag"]].corr().iloc[0, 1],
        micro[["overall", "diag"]].corr(method="spearman").iloc[0, 1],
    )
    return micro, scene_macro, video_macro, per_scene, corr


def check_study(result, baseline):
    effects, micro, _scene, video = baseline
    worst = 0.0
    for r in result["effects"]:
        if r["stratum"] != "all":
            continue
        ref = effects[(r["contrast"], r["model"], r["dimension"])]
        for ours, theirs in (
            (r["estimate"], ref.estimate),
            (r["low"], ref.low),
            (r["high"], ref.high),
        ):
            worst = max(worst, abs(ours - theirs))
        assert r["n"] == ref.n
    for r in result["conditions"]:
        if r["stratum"] != "all":
            continue
        key = (r["model"], r["condition"], r["dimension"])
        worst = max(worst, abs(r["micro"] - micro[key]), abs(r["video_macro"] - video[key]))
    assert worst < 1e-9, worst
    return worst


def cache_timing() -> float | None:
    """A study report served again from a migrated SQLite database (one aggregate + one row)."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-reports-"))
    for name in ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"):
        os.environ.pop(name, None)
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'bench.sqlite3'}"
    os.environ["STUDIO_VAR_DIR"] = str(tmp / "var")
    os.environ["LOG_LEVEL"] = "WARNING"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from scoring.models import ReportCache
    from scoring.reports.cache import cached_report, dumps

    rng = np.random.default_rng(SEED)
    table, contrasts = study_table(rng)
    body = study_estimates(table, contrasts=contrasts, composite=("overall", DIMS), seed=SEED)
    inputs = {"format": "bench", "runs": [{"run": f"r{i}", "done": 640} for i in range(60)]}
    calls = {"n": 0}

    def compute():
        calls["n"] += 1
        return dict(body)

    cached_report(kind="study", subject="bench", inputs=inputs, compute=compute)
    size = len(ReportCache.objects.get().body)
    seconds, (text, cached) = best(
        lambda: cached_report(kind="study", subject="bench", inputs=inputs, compute=compute), 20
    )
    assert cached and calls["n"] == 1 and text == ReportCache.objects.get().body
    assert dumps  # the same serialiser
    print(f"   report body {size / 1e6:.1f} MB")
    return seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", action="store_true", help="also time the cache on SQLite")
    args = parser.parse_args()
    rng = np.random.default_rng(SEED)
    table, contrasts = study_table(rng)
    print(
        f"1. study report: {len(table.models)} models x {len(table.conditions)} conditions x "
        f"{len(table.items)} steps, {len(contrasts)} contrasts, 2,000 replicates"
    )
    kw = {"contrasts": contrasts, "composite": ("overall", DIMS), "seed": SEED}
    t_main, main_result = best(lambda: study_estimates(table, strata=[], **kw))
    t_full, full_result = best(lambda: study_estimates(table, **kw))
    t_base, base = best(lambda: baseline_study(table, contrasts), repeat=1)
    worst = check_study(main_result, base)
    n_main = len(main_result["effects"])
    n_full = len(full_result["effects"])
    print(f"   ours, contrasts + condition scores ({n_main} effects): {t_main * 1e3:8.1f} ms")
    print(f"   ours, with every scene and duration bin ({n_full} effects): {t_full * 1e3:8.1f} ms")
    print(f"   baseline loop over the engine + pandas ({n_main} effects): {t_base * 1e3:8.1f} ms")
    print(f"   ratio baseline / ours: {t_base / t_main:.1f}x; largest difference {worst:.1e}")
    print(f"   goal <= 2 s: {'met' if t_full <= 2 else 'NOT met'} (with breakdowns)")

    ref, vid, scene, video = leaderboard_arrays(rng)
    print("2. leaderboard: 15 models x 3,014 steps")
    t_lb, (ours, corr) = best(lambda: ours_leaderboard(ref, vid, scene, video), 5)
    t_pd, theirs = best(lambda: pandas_leaderboard(ref, vid, scene, video), 3)
    micro, scene_macro, video_macro, _per_scene, pd_corr = theirs
    diff = max(
        abs(ours[m][0]["micro"][3] - micro.loc[m, "overall"])
        + abs(ours[m][0]["scene_macro"][3] - scene_macro.loc[m, "overall"])
        + abs(ours[m][0]["video_macro"][8] - video_macro.loc[m, "diag"])
        for m in range(len(ours))
    )
    assert diff < 1e-9 and math.isclose(corr[0], pd_corr[0]) and math.isclose(corr[1], pd_corr[1])
    print(f"   ours: {t_lb * 1e3:8.1f} ms   pandas groupby: {t_pd * 1e3:8.1f} ms   "
          f"ratio {t_pd / t_lb:.1f}x   goal <= 300 ms: {'met' if t_lb <= 0.3 else 'NOT met'}")  # fmt: skip
    if args.db:
        print("3. cached report, SQLite")
        t_cache = cache_timing()
        print(f"   served from the cache: {t_cache * 1e3:8.2f} ms   goal <= 20 ms: "
              f"{'met' if t_cache <= 0.02 else 'NOT met'}")  # fmt: skip


if __name__ == "__main__":
    main()
