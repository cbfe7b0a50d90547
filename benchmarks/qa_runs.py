"""Benchmark: a QA run against the stand-in provider (issue 28).

Everything real except the provider: a migrated database, Celery worker processes on the
``models`` queue (threads pools, as ``make run`` starts them), the stand-in provider answering
after 200 ms. A QA set of 3,882 groups shaped like the second paper's test split (17.9 %
multi-turn dialogues of 2 turns 40.4 %, 3 turns 59.1 %, 4 turns 0.5 %: about 2.6 turns each;
the rest single-turn) is asked text only at endpoint concurrency 32. Measured:

1. Calls per second at the provider (every call over the time from the first request's arrival
   to the last answer). The turns of one dialogue are sequential, so the ideal is not simply
   32 / 0.2 s: it is the rate of a perfect scheduler with 32 slots, calls of exactly 200 ms and
   the drivers' order (the lowest position of the pending turns first; a turn pending as soon as
   the one before it is answered), computed beside the run. Goal: >= 90 % of that ideal.
2. A second run of the same set (a new name): every turn from the cache. Goal: 0 calls.
3. Peak RSS of the worker processes. Goal: <= 300 MB each.

Run from the repository root, on PostgreSQL + Redis (a database is created and dropped):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/8 .venv/bin/python benchmarks/qa_runs.py
Options: --groups 3882 --concurrency 32 --latency-ms 200 --workers 2 --threads 24 --sqlite

``--part report`` measures the QA report over a finished run instead (benchmarks/qa_report.py;
``--videos 400``, the source videos its groups are spread over).
"""

from __future__ import annotations

import argparse
import heapq
import os
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.model_runs import (  # noqa: E402
    StandIn,
    drop_database,
    peak_rss_mb,
    provider_rate,
    setup_environment,
    start,
    stop,
    wait_finished,
)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, default=3882)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency-ms", type=int, default=200)
    parser.add_argument(
        "--threads", type=int, default=int(os.environ.get("MODEL_WORKER_THREADS", 24))
    )
    parser.add_argument("--workers", type=int, default=int(os.environ.get("MODEL_WORKERS", 2)))
    parser.add_argument("--sqlite", action="store_true", help="the embedded default")
    parser.add_argument("--database", default=f"bench_qa_{os.getpid()}")
    parser.add_argument(
        "--part", choices=("run", "report"), default="run", help="what to measure (docstring)"
    )
    parser.add_argument("--videos", type=int, default=400, help="--part report: source videos")
    return parser.parse_args()


def turn_counts(groups: int, seed: int = 28) -> list[int]:
    """The paper's test split: 17.9 % multi-turn (2: 40.39 %, 3: 59.06 %, 4: 0.55 %)."""
    rng = random.Random(seed)
    counts = []
    for _ in range(groups):
        if rng.random() < 0.179:
            r = rng.random()
            counts.append(2 if r < 0.4039 else 3 if r < 0.4039 + 0.5906 else 4)
        else:
            counts.append(1)
    return counts


def records(video_sha: str, counts: list[int]) -> list[dict]:
    import uuid

    out = []
    for n, turns in enumerate(counts):
        out.append({
            "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"qa-bench-{n}")),
            "video_sha256": video_sha, "split": "test",
            "structure": "chain" if turns > 1 else "node", "category": "action_status",
            "modality": "visual", "turn_count": turns, "episodes": [],
            "provenance": {"source_ids": [f"b{n}"], "generator_version": "bench"},
            "turns": [
                {"question": f"Question {t + 1} of group {n}: what happens next?",
                 "answer": f"answer {t}", "options": None,
                 "depends_on": list(range(t)),
                 "evidence": [{"start_us": 0, "end_us": 500_000, "modality": "visual",
                               "description": "the cup"}]}
                for t in range(turns)
            ],
        })  # fmt: skip
    return out


def ideal_seconds(turns_in_order: list[int], slots: int, latency: float) -> float:
    """The makespan of a perfect scheduler: ``slots`` calls at a time, each ``latency`` long,
    always the pending turn of lowest position first (the drivers' claim order)."""
    positions, first = [], 0
    for count in turns_in_order:
        positions.append(list(range(first, first + count)))
        first += count
    owner = {p: g for g, ps in enumerate(positions) for p in ps}
    pending = [ps[0] for ps in positions]
    heapq.heapify(pending)
    running: list[tuple[float, int]] = []
    now = 0.0
    while pending or running:
        while pending and len(running) < slots:
            heapq.heappush(running, (now + latency, heapq.heappop(pending)))
        now, done = heapq.heappop(running)
        group = positions[owner[done]]
        k = group.index(done)
        if k + 1 < len(group):
            heapq.heappush(pending, group[k + 1])
    return now


def main() -> None:
    args = parse_args()
    if args.part == "report":
        from benchmarks.qa_report import main as report_main

        report_main(args)
        return
    tmp = Path(tempfile.mkdtemp(prefix="bench-qa-"))
    server = setup_environment(args, tmp)
    workers, stand_in = [], None
    try:
        import django

        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
        django.setup()
        from django.contrib.auth import get_user_model
        from django.core.management import call_command
        from django.db import transaction

        from media.models import Scene
        from media.services import video_import
        from media.synth import synth_video
        from review.qa.imports import qa_import
        from review.qa.sampling import qa_manifest_freeze
        from scoring.endpoints import endpoint_create
        from scoring.packages import package_resolve
        from scoring.qa.runs import qa_predict
        from studio.canonical import canonical_bytes

        call_command("migrate", verbosity=0)
        admin = get_user_model().objects.create(username="bench-admin")
        scene = Scene.objects.create(slug="indoor/bench", name="Bench", setting="indoor")
        video = video_import(path=synth_video(tmp / "bench.mp4", seconds=1, fps=30).path,
                             scene=scene, user=admin)  # fmt: skip
        counts = turn_counts(args.groups)
        recs = records(video.sha256, counts)
        t0 = time.perf_counter()
        text = "".join(canonical_bytes(r).decode() + "\n" for r in recs)
        group_set, _ = qa_import(text=text, name="bench_qa", author=admin)
        manifest = qa_manifest_freeze(group_set=group_set, name="bench_qa_m", seed=1,
                                      params={"n_groups": args.groups}, author=admin)  # fmt: skip
        import_s = time.perf_counter() - t0
        stand_in = StandIn(args.latency_ms)
        endpoint = endpoint_create(
            name="bench-omni", base_url=stand_in.base_url, model="stand-in-vision",
            json_schema=True, max_concurrency=args.concurrency, timeout_seconds=60,
        )  # fmt: skip
        workers = [
            start([sys.executable, "-m", "celery", "-A", "studio", "worker", "-Q", "models", "-P",
                   "threads", "-c", str(args.threads), "-n", f"bench-qa-{os.getpid()}-{n}@localhost",
                   "--loglevel", "WARNING", "--without-gossip", "--without-mingle"])
            for n in range(args.workers)
        ]  # fmt: skip
        time.sleep(3)
        package = package_resolve("qa-prediction")
        calls = sum(counts)
        # The order the run holds its groups in (by uid) decides the ideal schedule.
        by_uid = sorted(zip((r["uid"] for r in recs), counts, strict=True))
        ideal_s = ideal_seconds([c for _u, c in by_uid], args.concurrency, args.latency_ms / 1000)
        stand_in.reset()
        t1 = time.perf_counter()
        with transaction.atomic():
            run = qa_predict(name="bench-qa", manifest=manifest, endpoint=endpoint,
                             package=package, media="text_only")  # fmt: skip
        created_s = time.perf_counter() - t1
        wait_finished(run, timeout=3600)
        wall = time.perf_counter() - t1
        stats = stand_in.stats()
        rate = provider_rate(stats["log"])
        outcomes = Counter(run.items.values_list("outcome", flat=True))
        stand_in.reset()
        t2 = time.perf_counter()
        with transaction.atomic():
            again = qa_predict(name="bench-qa-again", manifest=manifest, endpoint=endpoint,
                               package=package, media="text_only")  # fmt: skip
        wait_finished(again, timeout=3600)
        again_s = time.perf_counter() - t2
        again_calls = stand_in.stats()["requests"]
        multi = [c for c in counts if c > 1]
        ideal_rate = calls / ideal_s
        print(f"{args.groups} groups, {len(multi)} multi-turn ({100 * len(multi) / len(counts):.1f} %, "
              f"{sum(multi) / max(1, len(multi)):.2f} turns each), {calls} turns; import + manifest "
              f"{import_s:.1f} s, run created in {created_s:.1f} s")  # fmt: skip
        print(f"1. calls/s at the provider: {rate:.1f}; ideal (32 slots, {args.latency_ms} ms, "
              f"dialogues sequential) {ideal_rate:.1f} = {ideal_s:.1f} s for {calls} calls; "
              f"ratio {rate / ideal_rate:.3f} (goal >= 0.90); plain 32/0.2 s = "
              f"{args.concurrency / (args.latency_ms / 1000):.0f}; wall from creation {wall:.1f} s; "
              f"requests {stats['requests']}, peak in flight {stats['peak_concurrency']}; "
              f"outcomes {dict(outcomes)}")  # fmt: skip
        print(f"2. the same set again (new run): {again_calls} calls (goal 0), {again_s:.1f} s")
        print(f"3. worker peak RSS: {max(peak_rss_mb(w.pid) for w in workers):.0f} MB (goal <= 300 MB)",
              flush=True)  # fmt: skip
    finally:
        for proc in [*workers, stand_in.proc if stand_in else None]:
            if proc is not None:
                stop(proc)
        from django.db import connections

        connections.close_all()
        drop_database(server, args.database)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
