"""Benchmark: the QA report over a finished 3,882-group QA run (issue 29), ``benchmarks/qa_runs.py
--part report``.

The finished run is written straight into a migrated database, as the run and the judge would
have left it: the QA set imported (``qa_import``, groups shaped like the paper's test split,
spread over ``--videos`` source videos, the four structures, four categories one of which is rare,
the three modalities; a third of the turns multiple choice), a QA run whose turns are done (2 %
of dialogues end in an API error, their later turns not asked; a multiple-choice turn chooses
the reference option 60 % of the time) and a finished QA judge run over its answered open-ended
turns (55 % correct, scores consistent with the verdict, 1 % review cases, 1 % judge errors).
Seeded: the same records every time. The tables are then analysed (``ANALYZE``, as PostgreSQL's
autovacuum does after a run has written its rows).

Measured: the report computed from the stored records (every verdict, every stratum with its
Wilson and 2,000-replicate source-video bootstrap intervals, the model tables), without the
report cache. Goal: <= 2 s. Also shown: the verdicts alone, a second run with a paired
difference, and the cached report.
"""

from __future__ import annotations

import random
import time
import uuid

GOAL_S = 2.0
CATEGORIES = ("action_status", "world_perception", "goal_planning")
RARE = "object_state"  # two groups: a category shown as "fewer than 3 questions"
STRUCTURES = ("node", "edge", "chain", "loop")
MODALITIES = ("visual", "auditory", "audio_visual")


def _evidence(modality: str) -> list[dict]:
    kinds = {"visual": ["visual"], "auditory": ["auditory"]}.get(modality, ["visual", "auditory"])
    return [{"start_us": 0, "end_us": 500_000, "modality": k, "description": "the cup"}
            for k in kinds]  # fmt: skip


def records(videos: list[str], counts: list[int], rng: random.Random) -> list[dict]:
    out = []
    for n, turns in enumerate(counts):
        modality = rng.choice(MODALITIES)
        structure = rng.choice(STRUCTURES[2:] if turns > 1 else STRUCTURES[:2])
        out.append({
            "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"qa-report-bench-{n}")),
            "video_sha256": videos[n % len(videos)], "split": "test",
            "structure": structure, "category": RARE if n < 2 else rng.choice(CATEGORIES),
            "modality": modality, "turn_count": turns, "episodes": [],
            "provenance": {"source_ids": [f"b{n}"], "generator_version": "bench"},
            "turns": [
                {"question": f"Question {t + 1} of group {n}?", "answer": f"answer {n} {t}",
                 "options": [f"answer {n} {t}", "other", "third"] if rng.random() < 0.33 else None,
                 "depends_on": list(range(t)), "evidence": _evidence(modality)}
                for t in range(turns)
            ],
        })  # fmt: skip
    return out


def make_videos(count: int) -> list:
    import hashlib

    from media.models import Scene, SourceVideo

    scene = Scene.objects.create(slug="indoor/bench", name="Bench", setting="indoor")
    videos = []
    for i in range(count):
        video = SourceVideo(scene=scene, title=f"bench-{i}.mp4", file=f"sources/bench-{i}.mp4",
                            sha256=hashlib.sha256(f"bench-{i}".encode()).hexdigest(),
                            size_bytes=1, container="mp4", codec="h264", width=64, height=36,
                            fps_num=30, duration_us=1_000_000)  # fmt: skip
        video.set_frame_times_us([round(k * 1_000_000 / 30) for k in range(30)])
        videos.append(video)
    return SourceVideo.objects.bulk_create(videos)


def finished_run(name: str, manifest, endpoint, package, rng: random.Random):
    """A QA run over ``manifest`` whose turns are done, and a finished QA judge run over it,
    written in bulk (what ``qa_predict``, the drivers and the judge would store)."""
    from django.utils import timezone

    from review.qa.models import QaGroup
    from scoring.models import Judgement, Run, RunItem
    from scoring.packages import package_resolve
    from scoring.qa.dialogue import LETTERS, turn_document, turn_key

    now = timezone.now()
    run = Run.objects.create(name=name, kind="qa_prediction", manifest=manifest,
                             condition="text_only", endpoint=endpoint, package=package,
                             status="finished", finished_at=now,
                             provenance={"set": {"manifest_sha256": manifest.manifest_sha256}})  # fmt: skip
    groups = QaGroup.objects.filter(group_set=manifest.qa_source.group_set).prefetch_related(
        "turns"
    )
    items = []
    for g in groups.order_by("uid"):
        failed = rng.random() < 0.02
        for turn in sorted(g.turns.all(), key=lambda t: t.position):
            data = turn_document(turn.position + 1, turn.question, turn.options)
            item = RunItem(run=run, position=len(items), key=turn_key(str(g.uid), turn.position),
                           sample_id=g.uid, input=data, finished_at=now)  # fmt: skip
            if failed and turn.position > 0:
                item.state = "not_asked"
            elif failed:
                item.state, item.outcome = "done", "api_error"
            else:
                item.state, item.outcome = "done", "ok"
                if turn.options:
                    chosen = "A" if rng.random() < 0.6 else LETTERS[rng.randrange(1, 3)]
                    item.prediction = {"answer": chosen, "chosen": chosen}
                else:
                    item.prediction = {"answer": f"a reply to {turn.question}"}
            items.append(item)
    RunItem.objects.bulk_create(items, batch_size=2000)
    judge = Run.objects.create(name=f"{name}-judge", kind="qa", endpoint=endpoint,
                               package=package_resolve("qa-judge"), status="finished",
                               finished_at=now)  # fmt: skip
    judge.sources.set([run])
    answered = run.items.filter(outcome="ok").exclude(input__has_key="options")
    units, judgements = [], []
    for i, (pk, key, sample) in enumerate(answered.values_list("pk", "key", "sample_id")):
        unit = RunItem(run=judge, position=i, key=f"{name}:{key}", sample_id=sample, state="done",
                       outcome="ok", finished_at=now)  # fmt: skip
        units.append(unit)
        j = Judgement(run=judge, subject_kind="qa_answer", subject_key=f"{name}:{key}",
                      prediction_id=pk, sample_id=sample, candidate_id="A01", position=i,
                      candidate={}, outcome="ok")  # fmt: skip
        r = rng.random()
        if r < 0.01:
            j.outcome, unit.outcome = "api_error", "api_error"
        else:
            j.correct = rng.random() < 0.55
            j.score = rng.choice((4, 5) if j.correct else (0, 1, 2, 3))
            if r < 0.02:
                j.score, j.review = (1 if j.correct else 5), True
        judgements.append(j)
    RunItem.objects.bulk_create(units, batch_size=2000)
    for unit, j in zip(units, judgements, strict=True):
        j.item = unit
    Judgement.objects.bulk_create(judgements, batch_size=2000)
    return run


def main(args) -> None:
    import os
    import shutil
    import tempfile
    from pathlib import Path

    from benchmarks.model_runs import drop_database, setup_environment
    from benchmarks.qa_runs import turn_counts

    tmp = Path(tempfile.mkdtemp(prefix="bench-qa-report-"))
    server = setup_environment(args, tmp)
    try:
        import django

        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
        django.setup()
        from django.contrib.auth import get_user_model
        from django.core.management import call_command

        from review.qa.imports import qa_import
        from review.qa.sampling import qa_manifest_freeze
        from scoring.endpoints import endpoint_create
        from scoring.packages import package_resolve, packages_sync_builtin
        from scoring.qa.report import qa_report
        from scoring.qa.report_files import qa_report_cached
        from scoring.qa.verdicts import turn_verdicts
        from studio.canonical import canonical_bytes

        call_command("migrate", verbosity=0)
        packages_sync_builtin()
        rng = random.Random(29)
        admin = get_user_model().objects.create(username="bench-admin")
        videos = make_videos(args.videos)
        counts = turn_counts(args.groups)
        recs = records([v.sha256 for v in videos], counts, rng)
        t0 = time.perf_counter()
        text = "".join(canonical_bytes(r).decode() + "\n" for r in recs)
        group_set, _ = qa_import(text=text, name="bench_qa", author=admin)
        manifest = qa_manifest_freeze(group_set=group_set, name="bench_qa_m", seed=1,
                                      params={"n_groups": args.groups}, author=admin)  # fmt: skip
        endpoint = endpoint_create(name="bench-omni", base_url="http://127.0.0.1:9/v1",
                                   model="stand-in-vision")  # fmt: skip
        package = package_resolve("qa-prediction")
        run = finished_run("bench-qa", manifest, endpoint, package, rng)
        setup_s = time.perf_counter() - t0
        from django.db import connection

        if connection.vendor == "postgresql":  # as autovacuum would, once the rows are written
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
        turns = run.items.count()
        print(f"{args.groups} groups on {args.videos} videos, {turns} turns; set, run and judge "
              f"written in {setup_s:.1f} s")  # fmt: skip

        def timed(fn, repeat=3):
            best = None
            for _ in range(repeat):
                t = time.perf_counter()
                value = fn()
                took = time.perf_counter() - t
                best = took if best is None else min(best, took)
            return value, best

        verdicts, verdicts_s = timed(lambda: turn_verdicts(run))
        print(f"verdicts of {len(verdicts)} turns: {verdicts_s:.3f} s (best of 3)")
        report, report_s = timed(lambda: qa_report([run]))
        cells = len(report["runs"][0]["cells"])
        print(f"1. the report over one finished run ({cells} cells, each with Wilson and "
              f"{report['settings']['n_resamples']}-replicate clustered bootstrap intervals): "
              f"{report_s:.3f} s (best of 3); goal <= {GOAL_S:.1f} s; ratio to the goal "
              f"{report_s / GOAL_S:.2f}")  # fmt: skip
        other = finished_run("bench-qa-b", manifest, endpoint, package, rng)
        _, pair_s = timed(lambda: qa_report([run, other], [(run, other)]), repeat=1)
        print(f"2. two runs and their paired difference: {pair_s:.3f} s")
        qa_report_cached([run])
        _, cached_s = timed(lambda: qa_report_cached([run]))
        print(f"3. the stored report read again: {cached_s * 1000:.1f} ms", flush=True)
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(server, args.database)
        shutil.rmtree(tmp, ignore_errors=True)
