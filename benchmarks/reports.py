"""Benchmark: study reports and leaderboards (issue 15), each beside a baseline of the same run.

1. A study report of 4 models x 14 conditions x 640 steps (32 source videos, 15 scenes): every
   contrast of the three templates (boundary 7, evidence 3, history 3) for every model and all
   models, on every dimension and Overall, with 2,000 source-video bootstrap replicates.
   Every effect has its micro, scene-macro and video-macro estimate, each with its interval, and
   every condition score of the whole set its micro interval (the condition profile's bars).
   Goal: <= 2 s. Measured without breakdowns (the contrasts and condition scores) and with them
   (every scene and duration bin too). Baseline: a plain loop calling the engine's
   ``paired_difference`` once per effect and statistic (micro, scene macro, video macro),
   ``clustered_bootstrap`` once per condition score, and pandas ``groupby`` for the condition
   means.
2. A leaderboard of 15 models x 3,014 steps (micro, scene and video macro of 8 columns + Overall
   and the diagnostic average, per-scene table). Goal: <= 300 ms. Baseline: pandas groupby.
3. The cache: the same report requested again (``--db``: a migrated SQLite database in a
   temporary folder holding the 640-step study's report row): one aggregate query and one row.
   Goal: <= 20 ms.
4. The leaderboard with its database read (``--postgres``, DATABASE_URL naming a PostgreSQL
   server; a throwaway database is created, migrated and dropped): a frozen release of 3,014
   steps (32 videos, 15 scenes), 15 prediction runs under Official imported through
   ``predictions_import`` (1 % refusals) and one reference and one video judge run over all of
   them through ``judgements_import`` (90,420 judgements). Timed: ``compute_leaderboard``
   (choosing the runs, reading the steps, items and judgements, computing every number; the
   cache is not used). Baseline of the same run: the plain ``values_list`` read of the same
   rows (the steps, every run's items and the judgements' scores), nothing computed. Goal:
   <= 300 ms.

Run from the repository root:  .venv/bin/python benchmarks/reports.py [--db] [--postgres]
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
    from scoring.stats import clustered_bootstrap, controlled_valid, controlled_values

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
                [
                    (
                        k.label(),
                        values[mi, a, :, dims.index(k.dimensions[0])]
                        - values[mi, b, :, dims.index(k.dimensions[0])]
                        - values[mi, a, :, dims.index(k.dimensions[1])]
                        + values[mi, b, :, dims.index(k.dimensions[1])],
                    )
                ]
                if k.dimensions
                else [(d, values[mi, a, :, di] - values[mi, b, :, di]) for di, d in enumerate(dims)]
            )
            for dim, diff in pairs:
                d = np.where(mask, diff, np.nan)
                effects[(k.name, model, dim)] = {
                    statistic: paired_difference(
                        d, np.zeros_like(d), table.videos, n_resamples=2000, seed=SEED,
                        statistic=statistic, scenes=table.scenes,
                    )
                    for statistic in ("micro", "scene_macro", "video_macro")
                }  # fmt: skip
    rows = []
    intervals = {}
    for mi, model in enumerate(models):
        for ci, cond in enumerate(table.conditions):
            for di, dim in enumerate(dims):
                v = np.where(valid[ci], values[mi, ci, :, di], np.nan)
                # each condition score's own interval (the profile chart's bars)
                intervals[(model, cond, dim)] = clustered_bootstrap(
                    v, table.videos, n_resamples=2000, seed=SEED
                )[1:]
                rows.append(
                    pd.DataFrame(
                        {
                            "model": model,
                            "condition": cond,
                            "dimension": dim,
                            "v": v,
                            "scene": table.scenes,
                            "video": table.videos,
                        }
                    )
                )
    frame = pd.concat(rows).dropna(subset=["v"])
    keys = ["model", "condition", "dimension"]
    micro = frame.groupby(keys)["v"].mean()
    scene = frame.groupby([*keys, "scene"])["v"].mean().groupby(keys).mean()
    video = frame.groupby([*keys, "video"])["v"].mean().groupby(keys).mean()
    return effects, micro, scene, video, intervals


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
    effects, micro, _scene, video, intervals = baseline
    worst = 0.0
    for r in result["effects"]:
        if r["stratum"] != "all":
            continue
        refs = effects[(r["contrast"], r["model"], r["dimension"])]
        for statistic, key, prefix in (
            ("micro", "estimate", ""),
            ("scene_macro", "scene_macro", "scene_macro_"),
            ("video_macro", "video_macro", "video_macro_"),
        ):
            ref = refs[statistic]
            for ours, theirs in (
                (r[key], ref.estimate),
                (r[f"{prefix}low"], ref.low),
                (r[f"{prefix}high"], ref.high),
            ):
                worst = max(worst, abs(ours - theirs))
            assert r[f"{prefix}significant"] is ref.significant
        assert r["n"] == refs["micro"].n
    for r in result["conditions"]:
        if r["stratum"] != "all":
            continue
        key = (r["model"], r["condition"], r["dimension"])
        worst = max(worst, abs(r["micro"] - micro[key]), abs(r["video_macro"] - video[key]))
        low, high = intervals[key]
        worst = max(worst, abs(r["low"] - low), abs(r["high"] - high))
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


LB_MODELS, LB_STEPS, LB_VIDEOS, LB_SCENES = 15, 3014, 32, 15


def _seed_leaderboard(tmp: Path) -> None:
    """The release, 15 imported prediction runs and the two judge runs (see the docstring)."""
    import hashlib
    import json

    from django.contrib.auth import get_user_model

    from annotation.models import MicroStep
    from annotation.releases import release_freeze
    from media.models import Scene, SourceVideo
    from scoring.endpoints import endpoint_create
    from scoring.judges.imports import judgements_import
    from scoring.models import RunKind
    from scoring.packages import package_resolve, packages_sync_builtin
    from scoring.runs.imports import predictions_import

    admin = get_user_model().objects.create_superuser("bench-admin", password=None)
    scenes = [
        Scene.objects.create(slug=f"indoor/scene_{i:02d}", name=f"Scene {i}", setting="indoor")
        for i in range(LB_SCENES)
    ]
    per_video = -(-LB_STEPS // LB_VIDEOS)
    seconds = per_video * 2 + 2
    steps, made = [], 0
    for v in range(LB_VIDEOS):
        video = SourceVideo(
            scene=scenes[v % LB_SCENES],
            title=f"bench-{v}.mp4",
            file=f"sources/bench-{v}.mp4",
            sha256=hashlib.sha256(f"bench-video-{v}".encode()).hexdigest(),
            size_bytes=1,
            container="mov,mp4,m4a,3gp,3g2,mj2",
            codec="h264",
            width=640,
            height=360,
            fps_num=30,
            duration_us=seconds * 1_000_000,
        )
        video.set_frame_times_us([round(i * 1_000_000 / 30) for i in range(seconds * 30)])
        video.save()
        for i in range(min(per_video, LB_STEPS - made)):
            start = i * 2_000_000
            steps.append(
                MicroStep(
                    video=video,
                    position=i,
                    start_us=start,
                    cutoff_us=start + 1_000_000,
                    outcome_us=start + 1_500_000,
                    end_us=start + 2_000_000,
                    local_intent=f"step {made}",
                    procedural_intent="why",
                    next_step="next",
                )
            )
            made += 1
    MicroStep.objects.bulk_create(steps, batch_size=2000)  # seeding only: no revisions needed
    release = release_freeze(name="bench", author=admin)
    uids = list(release.steps.order_by("sample_id").values_list("sample_id", flat=True))
    packages_sync_builtin()
    prediction = package_resolve("official-prediction")
    rng = np.random.default_rng(SEED)
    runs = []
    for m in range(LB_MODELS):
        endpoint = endpoint_create(
            name=f"bench-model-{m:02d}",
            base_url="http://127.0.0.1:9/v1",
            model=f"model-{m}",
            open_weights=m % 3 == 0,
        )
        path = tmp / f"pred-{m}.jsonl"
        refused = rng.random(len(uids)) < 0.01
        with path.open("w") as out:
            for uid, refusal in zip(uids, refused, strict=True):
                line = {"sample": str(uid), "outcome": "refusal" if refusal else "ok",
                        "prediction": None if refusal else
                        {"local_intent": "a", "procedural_intent": "b", "next_step": "c"}}  # fmt: skip
                out.write(json.dumps(line) + "\n")
        runs.append(
            predictions_import(
                name=f"bench-pred-{m:02d}",
                path=path,
                endpoint=endpoint,
                package=prediction,
                condition="official",
                release=release,
            )
        )
    judge = endpoint_create(name="bench-judge", base_url="http://127.0.0.1:9/v1", model="judge")
    for kind, package, scale in (
        (RunKind.REFERENCE, "reference-judge", ("local", "procedural", "next")),
        (RunKind.VIDEO, "video-judge", ("gf", "hic", "tpc", "npf")),
    ):
        path = tmp / f"judge-{kind}.jsonl"
        top = 100 if kind == RunKind.REFERENCE else 4
        with path.open("w") as out:
            for run in runs:
                for key in run.items.filter(outcome="ok").values_list("key", flat=True):
                    scores = {d: int(rng.integers(0, top + 1)) for d in scale}
                    line = {"subject": {"kind": "prediction", "run": run.name, "sample": key},
                            "judgement_outcome": "ok", "scores": scores}  # fmt: skip
                    out.write(json.dumps(line) + "\n")
        judgements_import(
            name=f"bench-{kind}",
            path=path,
            kind=kind,
            runs=runs,
            endpoint=judge,
            package=package_resolve(package),
        )


def _plain_read(release) -> int:
    """The baseline: the same rows as plain tuples, nothing computed."""
    from scoring.models import Judgement, Run, RunItem, RunKind

    rows = len(list(release.steps.order_by("sample_id").values_list(
        "sample_id", "scene_slug", "video_sha256")))  # fmt: skip
    for run in Run.objects.filter(kind=RunKind.PREDICTION, release=release):
        rows += len(list(RunItem.objects.filter(run=run).values_list("pk", "key", "outcome")))
    for judge in Run.objects.filter(kind__in=[RunKind.REFERENCE, RunKind.VIDEO]):
        dims = ("local", "procedural", "next") if judge.kind == RunKind.REFERENCE else (
            "gf", "hic", "tpc", "npf")  # fmt: skip
        rows += len(list(Judgement.objects.filter(run=judge, outcome="ok").values_list(
            "prediction_id", *dims)))  # fmt: skip
    return rows


def leaderboard_db_timing(rounds: int, keep: bool = False) -> None:
    """Part 4 on a throwaway PostgreSQL database (created, migrated, dropped), or with ``keep``
    on the database ``bench_reports_leaderboard``, seeded once and kept for the next run (the
    seeding goes through the import services and takes minutes on a busy machine)."""
    from benchmarks.workspace_api import admin_url, create_database, drop_database

    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith("postgres"):
        raise SystemExit("--postgres needs DATABASE_URL naming a PostgreSQL server")
    name = "bench_reports_leaderboard" if keep else f"bench_reports_{os.getpid()}"
    tmp = Path(tempfile.mkdtemp(prefix="bench-leaderboard-"))
    if not (keep and _database_exists(base, name)):
        create_database(base, name)
    try:
        os.environ["DATABASE_URL"] = admin_url(base, name)
        for key in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"):
            os.environ.pop(key, None)
        os.environ["STUDIO_VAR_DIR"] = str(tmp / "var")
        os.environ["LOG_LEVEL"] = "WARNING"
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        from annotation.models import Release

        if not Release.objects.filter(name="bench").exists():
            start = time.perf_counter()
            _seed_leaderboard(tmp)
            from django.db import connection

            # Statistics and the visibility map, as autovacuum makes them after the inserts (the
            # leaderboard's scores are read by an index-only scan).
            with connection.cursor() as cursor:
                cursor.execute("VACUUM ANALYZE")
            print(f"   seeded in {time.perf_counter() - start:.0f} s")
        else:
            print(f"   reusing the seeded database {name} (--keep)")
        from scoring.reports.leaderboard import compute_leaderboard, leaderboard_runs

        release = Release.objects.get(name="bench")

        def ours():
            entries = leaderboard_runs(release=release, manifest=None, condition="official")
            return compute_leaderboard(
                release=release, manifest=None, condition="official", entries=entries
            )

        board = ours()
        assert len(board["models"]) == LB_MODELS
        assert all(r["steps"] == LB_STEPS for r in board["models"]), board["models"][0]
        rows = _plain_read(release)
        for r in range(rounds):
            t_ours, _ = best(ours, 3)
            t_base, _ = best(lambda: _plain_read(release), 3)
            print(f"   round {r + 1}: leaderboard with its database read {t_ours * 1e3:7.1f} ms"
                  f"   plain values_list read of the same {rows:,} rows {t_base * 1e3:7.1f} ms"
                  f"   ratio {t_ours / t_base:.2f}x   goal <= 300 ms: "
                  f"{'met' if t_ours <= 0.3 else 'NOT met'}")  # fmt: skip
        # The page's repeated request: the runs' fingerprint, the cache look-up, the stored bytes.
        from scoring.reports.leaderboard import leaderboard

        leaderboard(release=release)
        t_cached, (_text, cached) = best(lambda: leaderboard(release=release), 5)
        assert cached
        print(f"   repeated leaderboard request served from the cache: {t_cached * 1e3:6.1f} ms"
              f"   goal <= 20 ms: {'met' if t_cached <= 0.02 else 'NOT met'}")  # fmt: skip
    finally:
        if "django" in sys.modules and sys.modules["django"].apps.apps.ready:
            from django.db import connections

            connections.close_all()
        if not keep:
            drop_database(base, name)


def _database_exists(base: str, name: str) -> bool:
    import psycopg

    from benchmarks.workspace_api import admin_url

    with psycopg.connect(admin_url(base, "postgres"), autocommit=True) as conn:
        return (
            conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
            is not None
        )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", action="store_true", help="also time the cache on SQLite")
    parser.add_argument(
        "--postgres", action="store_true", help="also time the leaderboard's database read"
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds of part 4")
    parser.add_argument("--only-postgres", action="store_true", help="part 4 only")
    parser.add_argument(
        "--keep", action="store_true", help="part 4: seed once, keep and reuse the database"
    )
    args = parser.parse_args()
    if args.only_postgres:
        print("4. leaderboard with its database read, PostgreSQL")
        leaderboard_db_timing(args.rounds, args.keep)
        return
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
    if args.postgres:
        print("4. leaderboard with its database read, PostgreSQL")
        leaderboard_db_timing(args.rounds, args.keep)
        return  # django is set up on PostgreSQL now
    if args.db:
        print("3. cached report, SQLite")
        t_cache = cache_timing()
        print(f"   served from the cache: {t_cache * 1e3:8.2f} ms   goal <= 20 ms: "
              f"{'met' if t_cache <= 0.02 else 'NOT met'}")  # fmt: skip


if __name__ == "__main__":
    main()
