"""Benchmark: model and judge runs against the stand-in provider (issue 13).

Everything real except the provider: a migrated database, a Celery worker process on the
``models`` queue (threads pool), the stand-in provider as an HTTP server answering after 200 ms,
media rendered by the media pipeline. Measured, each beside a baseline of the same run:

1. 2,000 QA-judge calls at endpoint concurrency 32. Goal: >= 90 % of 32 / 0.2 s = 160 calls/s,
   counted at the provider: every call over the time from the first request's arrival to the
   last answer (the wall time from creating the run, which parses and stores the 2,000 items
   first, is printed beside it).
   Baseline: 32 threads posting the same requests straight to the stand-in (no database, no
   limiter, no worker), which shows this machine's ceiling for the stand-in itself.
2. Media preparation of 300 ``frames`` predictions (16 PNGs each, read, hashed, base64 data URLs,
   the request parts). Goal: <= 1.2x a plain read + base64 loop over the same files (the
   standard library's base64); the same loop with pybase64, the worker's encoder, is printed
   beside it, so the overhead of our own is visible too.
3. A full rerun: the finished 300-prediction run started again (same name), and a new run with
   identical inputs (every item a cache hit). Goal: 0 calls, <= 2 s.
4. Peak RSS of the worker process. Goal: <= 300 MB.

Run from the repository root, on PostgreSQL + Redis (a database is created and dropped):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/8 .venv/bin/python benchmarks/model_runs.py
or on the embedded default (SQLite, filesystem broker, file limiter in a temporary folder):
    .venv/bin/python benchmarks/model_runs.py --sqlite
Options: --calls 2000 --concurrency 32 --latency-ms 200 --predictions 300 --workers 2
--threads 24 (the models workers as ``make run`` starts them: 2 processes of 24 threads,
MALLOC_ARENA_MAX=2), --part judge|frames, --py-spy FILE (the worker's GIL holder, collapsed stacks)
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
S = 1_000_000


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency-ms", type=int, default=200)
    parser.add_argument("--predictions", type=int, default=300)
    parser.add_argument("--threads", type=int, default=int(os.environ.get("MODEL_WORKER_THREADS", 24)),
                        help="of each models worker (as make run starts it)")  # fmt: skip
    parser.add_argument("--workers", type=int, default=int(os.environ.get("MODEL_WORKERS", 2)),
                        help="models worker processes (as make run starts them)")  # fmt: skip
    parser.add_argument("--rounds", type=int, default=3, help="of the media preparation timing")
    parser.add_argument("--sqlite", action="store_true", help="the embedded default")
    parser.add_argument("--database", default=f"bench_models_{os.getpid()}")
    parser.add_argument(
        "--part",
        choices=("all", "judge", "frames"),
        default="all",
        help="measure only the judge calls or only the frames predictions",
    )
    parser.add_argument(
        "--py-spy",
        metavar="FILE",
        help="record the worker's GIL holder with py-spy meanwhile (collapsed stacks)",
    )
    return parser.parse_args()


def setup_environment(args, tmp: Path) -> str | None:
    """Point this process (and the subprocesses it starts) at a fresh database."""
    os.environ["MEDIA_ROOT"] = str(tmp / "media")
    os.environ["STUDIO_VAR_DIR"] = str(tmp / "var")
    os.environ["MODEL_LIMITER_PREFIX"] = f"bench{os.getpid()}:"
    os.environ["LOG_LEVEL"] = "WARNING"
    os.environ["MODEL_BACKOFF_BASE_SECONDS"] = "0.2"
    if args.sqlite:
        for name in ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND",
                     "MODEL_LIMITER_URL"):  # fmt: skip
            os.environ.pop(name, None)
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'bench.sqlite3'}"
        return None
    import psycopg

    server = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{args.database}"')
        conn.execute(f'CREATE DATABASE "{args.database}"')
    os.environ["DATABASE_URL"] = server.rsplit("/", 1)[0] + "/" + args.database
    return server


def drop_database(server: str | None, name: str) -> None:
    if server is None:
        return
    import psycopg

    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def start(cmd, **kwargs) -> subprocess.Popen:
    # MALLOC_ARENA_MAX=2 as studio/launcher.py starts the models worker
    env = {"MALLOC_ARENA_MAX": "2", **os.environ}
    return subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True, **kwargs)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class StandIn:
    def __init__(self, latency_ms: int):
        self.proc = start(
            [sys.executable, "manage.py", "serve_stand_in_provider", "--port", "0",
             "--latency-ms", str(latency_ms)],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        line = self.proc.stdout.readline()
        self.url = line.strip().rsplit(" ", 1)[-1].removesuffix("/v1")
        self.base_url = self.url + "/v1"

    def stats(self) -> dict:
        import httpx2

        return httpx2.get(self.url + "/_stand_in/stats", timeout=30).json()

    def reset(self) -> None:
        import httpx2

        httpx2.post(self.url + "/_stand_in/reset", json={}, timeout=30)


def wait_finished(run, timeout: float = 900) -> float:
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        run.refresh_from_db()
        if run.status != "running":
            return time.perf_counter() - started
        time.sleep(0.05)
    raise SystemExit(f"run {run.name} did not finish within {timeout} s")


def provider_rate(log: list[dict]) -> float:
    """Calls per second as the provider saw them: every call over the time from the first
    request's arrival to the last answer's end."""
    if not log:
        return float("nan")
    return len(log) / (max(e.get("end", e["t"]) for e in log) - min(e["t"] for e in log))


def in_flight(log: list[dict]) -> tuple[float, float]:
    """(mean requests in flight at the provider, seconds from the first request until the
    peak was first reached): where a rate below the ideal is lost."""
    if not log:
        return float("nan"), float("nan")
    start = min(e["t"] for e in log)
    span = max(e.get("end", e["t"]) for e in log) - start
    mean = sum(e.get("end", e["t"]) - e["t"] for e in log) / span
    events = sorted([(e["t"], 1) for e in log] + [(e.get("end", e["t"]), -1) for e in log])
    now = peak = 0
    peak_at = 0.0
    for t, step in events:
        now += step
        if now > peak:
            peak, peak_at = now, t - start
    return mean, peak_at


def baseline_direct(stand_in: StandIn, bodies: list[bytes], threads: int) -> float:
    """Calls per second of ``threads`` threads posting ``bodies`` straight to the stand-in, as
    the provider saw them (``provider_rate``)."""
    import httpx2

    client = httpx2.Client(timeout=60, limits=httpx2.Limits(max_connections=threads * 2))
    queue = list(bodies)
    lock = threading.Lock()

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                body = queue.pop()
            client.post(stand_in.base_url + "/chat/completions", content=body,
                        headers={"Content-Type": "application/json"})  # fmt: skip

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return provider_rate(stand_in.stats()["log"])


def qa_file(path: Path, calls: int) -> Path:
    with path.open("w") as out:
        for i in range(calls):
            out.write(json.dumps({
                "uid": f"q{i:05d}", "question": f"What does the person do in clip {i}?",
                "reference_answer": f"they fill the kettle number {i % 7}",
                "answer": f"filling kettle {i % 5}",
            }) + "\n")  # fmt: skip
    return path


def judge_bench(args, stand_in, tmp, worker_pids: list[int]) -> dict:
    from django.db import transaction

    from scoring.endpoints import endpoint_create
    from scoring.judges import judge_start
    from scoring.models import Run
    from scoring.packages import package_resolve, render_messages, response_format

    endpoint = endpoint_create(
        name="bench-judge", base_url=stand_in.base_url, model="stand-in-judge", json_schema=True,
        max_concurrency=args.concurrency, timeout_seconds=60,
    )  # fmt: skip
    path = qa_file(tmp / "qa.jsonl", args.calls)
    package = package_resolve("qa-judge")
    # The baseline posts the very requests the judge sends.
    from scoring.judges import subjects_from_qa_file
    from scoring.judges.units import qa_units
    from scoring.packages import package_verified

    checked = package_verified(package)
    bodies = [
        json.dumps({"model": endpoint.model, "messages": render_messages(checked, data=u.data,
                    media_parts=[]), **checked.sampling,
                    "response_format": response_format(checked)}).encode()
        for u in qa_units(subjects_from_qa_file(path))
    ]  # fmt: skip
    stand_in.reset()
    base_rate = baseline_direct(stand_in, bodies, args.concurrency)
    stand_in.reset()
    cpu0 = (sum(map(cpu_seconds, worker_pids)), cpu_seconds(stand_in.proc.pid))
    t0 = time.perf_counter()
    with transaction.atomic():
        run = judge_start(name="bench-qa", kind="qa", endpoint=endpoint, package=package,
                          qa_file=path)  # fmt: skip
    created_s = time.perf_counter() - t0
    wait_finished(run)
    wall = time.perf_counter() - t0  # from creating the run to its last item
    cpu = (sum(map(cpu_seconds, worker_pids)) - cpu0[0], cpu_seconds(stand_in.proc.pid) - cpu0[1])
    retried = Counter(
        a["error"].split(" (")[0]
        for calls in run.items.values_list("calls", flat=True)
        for a in calls[:-1]
    )
    stats = stand_in.stats()
    log = stats["log"]
    steady = provider_rate(log)
    mean_in_flight, ramp_s = in_flight(log)
    outcomes = Counter(run.items.values_list("outcome", flat=True))
    # A rerun of the finished judge: the same command again.
    stand_in.reset()
    t1 = time.perf_counter()
    with transaction.atomic():
        again = judge_start(name="bench-qa", kind="qa", endpoint=endpoint, package=package,
                            qa_file=path)  # fmt: skip
    wait_finished(again)
    rerun_s = time.perf_counter() - t1
    rerun_calls = stand_in.stats()["requests"]
    return {
        "calls": args.calls, "wall_s": wall, "rate_wall": args.calls / wall,
        "rate_steady": steady, "mean_in_flight": mean_in_flight, "ramp_s": ramp_s, "created_s": created_s, "peak": stats["peak_concurrency"], "requests": stats["requests"],
        "outcomes": dict(outcomes), "baseline_rate": base_rate,
        "ideal": args.concurrency / (args.latency_ms / 1000), "rerun_s": rerun_s,
        "rerun_calls": rerun_calls, "run": Run.objects.get(name="bench-qa").status,
        "worker_cpu_ms": 1000 * cpu[0] / args.calls, "stand_in_cpu_ms": 1000 * cpu[1] / args.calls,
        "retried": dict(retried),
    }  # fmt: skip


def make_media_release(count: int, tmp: Path):
    """A real source video with ``count`` steps, frozen, for frame-set predictions."""
    from django.contrib.auth import get_user_model

    from annotation.releases import release_freeze
    from annotation.services import step_create
    from media.ffmpeg import ffmpeg_binary
    from media.models import Scene
    from media.services import video_import
    from media.timebase import snap_to_frame

    user = get_user_model().objects.create_user("bench-admin", is_superuser=True, is_staff=True)
    scene = Scene.objects.create(slug="indoor/kitchen", name="Kitchen", setting="indoor")
    seconds = max(10, count * 0.5 + 2)
    # A test pattern with grain: frames that compress like camera frames (PNGs of ~130 KB at
    # 640x360), not the flat synthetic pictures of the tests (~10 KB).
    source = tmp / "source.mp4"
    subprocess.run(
        [ffmpeg_binary(), "-v", "error", "-f", "lavfi", "-i",
         "testsrc2=size=640x360:rate=30,noise=alls=12:allf=t+u", "-t", str(seconds),
         "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-y", str(source)],
        check=True,
    )  # fmt: skip
    video = video_import(path=source, scene=scene, title="bench.mp4", user=user)
    times = video.frame_times_us()
    for i in range(count):
        start = snap_to_frame(times, int(i * 0.5 * S))
        cutoff = snap_to_frame(times, int((i * 0.5 + 0.4) * S))
        end = snap_to_frame(times, int((i * 0.5 + 0.45) * S))
        step_create(video=video, author=user, start_us=start, cutoff_us=cutoff, outcome_us=cutoff,
                    end_us=end, local_intent=f"step {i}", procedural_intent="bench",
                    next_step="next")  # fmt: skip
    return release_freeze(name="bench", author=user)


def media_preparation(args, run, media) -> dict:
    """Media preparation the way a worker does it for each item of ``run`` (``execute_item``:
    the handler's prepare, then the request's JSON bytes with the media in them) against a plain
    read + base64 loop over the same files, in interleaved rounds (the best of each is kept)."""
    from functools import partial

    from scoring.models import FileDigest
    from scoring.packages import package_verified
    from scoring.providers import media as provider_media
    from scoring.runs.execute import PredictionHandler, request_body
    from scoring.runs.media import digests_load, frame_paths

    package = package_verified(run.package)
    items = list(run.items.select_related("media").order_by("position"))
    handler = PredictionHandler()

    def prepare_all() -> int:
        sent = 0
        for item in items:
            request = handler.prepare(run, item)
            body = request.take_body(partial(request_body, run, package, request.data))
            sent += sum(len(piece) for piece in body)  # encoded as a call sends it
        return sent

    import pybase64

    first, ours, plain, plain_fast = [], [], [], []
    for _ in range(args.rounds):
        t = time.perf_counter()
        for m in media:
            for path in frame_paths(m):
                with open(path, "rb") as f:
                    base64.b64encode(f.read())
        plain.append(time.perf_counter() - t)
        # The same loop with the encoder the worker uses: what is left is our own overhead.
        t = time.perf_counter()
        for m in media:
            for path in frame_paths(m):
                with open(path, "rb") as f:
                    pybase64.b64encode(f.read())
        plain_fast.append(time.perf_counter() - t)
        # Nothing hashed anywhere: what a medium costs once, when a run is created with it.
        FileDigest.objects.all().delete()
        provider_media._memo.clear()
        t = time.perf_counter()
        prepare_all()
        first.append(time.perf_counter() - t)
        # A worker: a process that hashed nothing itself, with the digests recorded when the
        # run was created.
        provider_media._memo.clear()
        t = time.perf_counter()
        digests_load([item.media for item in items])  # what a driver does once per run
        sent = prepare_all()
        ours.append(time.perf_counter() - t)
    return {
        "ours_s": min(ours), "first_s": min(first), "plain_s": min(plain), "sent_mb": sent / 1e6,
        "plain_fast_s": min(plain_fast),
        "images": sum(m.frame_count for m in media),
        "size_mb": sum(os.path.getsize(p) for m in media for p in frame_paths(m)) / 1e6,
    }  # fmt: skip


def prediction_bench(args, stand_in, tmp) -> dict:
    from django.db import transaction

    from media.renders import media_render
    from scoring.endpoints import endpoint_create
    from scoring.packages import package_resolve
    from scoring.runs import run_predict

    t0 = time.perf_counter()
    release = make_media_release(args.predictions, tmp)
    endpoint = endpoint_create(
        name="bench-frames", base_url=stand_in.base_url, model="stand-in-vision", media="frames",
        json_schema=True, max_concurrency=args.concurrency, timeout_seconds=60,
    )  # fmt: skip
    package = package_resolve("official-prediction")
    # Render the media first (in this process, the same keys the run asks for), so the run
    # measures calls, not ffmpeg.
    from annotation.rendering import release_step_jobs
    from media.models import SourceVideo
    from media.renders import frames_profile, media_for_window
    from media.windows import condition_window

    jobs, _missing = release_step_jobs(release.steps.all())
    media = []
    for job in jobs.values():
        window = condition_window("official", step=job.step, previous=job.previous,
                                  following=job.following)  # fmt: skip
        m = media_for_window(video=SourceVideo.objects.get(pk=job.video_id), window=window,
                             profile=frames_profile(16), seed=job.seed, enqueue=False)  # fmt: skip
        media_render(media_id=m.pk)
        m.refresh_from_db()
        media.append(m)
    setup_s = time.perf_counter() - t0

    stand_in.reset()
    t = time.perf_counter()
    with transaction.atomic():
        run = run_predict(name="bench-frames", endpoint=endpoint, package=package,
                          condition="official", release=release)  # fmt: skip
    wait_finished(run)
    wall = time.perf_counter() - t
    calls = stand_in.stats()["requests"]
    # A full rerun: the same command again, then a new run with identical inputs (the cache).
    stand_in.reset()
    t = time.perf_counter()
    with transaction.atomic():
        again = run_predict(name="bench-frames", endpoint=endpoint, package=package,
                            condition="official", release=release)  # fmt: skip
    wait_finished(again)
    resume_s = time.perf_counter() - t
    t = time.perf_counter()
    with transaction.atomic():
        cached = run_predict(name="bench-frames-again", endpoint=endpoint, package=package,
                             condition="official", release=release)  # fmt: skip
    wait_finished(cached)
    cache_s = time.perf_counter() - t  # every item resolved from the cache when it is created
    prep = media_preparation(args, run, media)
    return {
        "count": len(media), "setup_s": setup_s,
        **prep, "rounds": args.rounds, "run_s": wall, "calls": calls,
        "resume_s": resume_s, "cache_s": cache_s, "rerun_calls": stand_in.stats()["requests"],
        "cache_hits": cached.items.filter(cached_from__isnull=False).count(),
    }  # fmt: skip


def main() -> None:
    args = parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-models-"))
    server = setup_environment(args, tmp)
    workers, stand_in = [], None
    try:
        import django

        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        stand_in = StandIn(args.latency_ms)
        workers = [
            start([sys.executable, "-m", "celery", "-A", "studio", "worker", "-Q", "models", "-P",
                   "threads", "-c", str(args.threads), "-n", f"bench-{os.getpid()}-{n}@localhost",
                   "--loglevel", "WARNING", "--without-gossip", "--without-mingle"])
            for n in range(args.workers)
        ]  # fmt: skip
        time.sleep(3)
        from django.conf import settings

        print(f"database {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}, broker "
              f"{settings.CELERY_BROKER_URL.split(':', 1)[0]}, limiter "
              f"{settings.MODEL_LIMITER_URL.split(':', 1)[0]}; stand-in latency "
              f"{args.latency_ms} ms; {args.workers} models worker(s) x {args.threads} threads",
              flush=True)  # fmt: skip
        spy = None
        if args.py_spy:
            spy = start([str(Path(sys.executable).parent / "py-spy"), "record", "-o", args.py_spy, "-p", str(workers[0].pid),
                         "--nonblocking", "-r", "50", "--gil", "--format", "raw"], stdout=subprocess.DEVNULL)  # fmt: skip
        if args.part in ("all", "judge"):
            report_judge(args, judge_bench(args, stand_in, tmp, [w.pid for w in workers]))
        if args.part in ("all", "frames"):
            report_frames(prediction_bench(args, stand_in, tmp))
        print(f"\n4. worker peak RSS: {max(peak_rss_mb(w.pid) for w in workers):.0f} MB (goal <= 300 MB)",
              flush=True)  # fmt: skip
        if spy is not None:
            os.kill(spy.pid, signal.SIGINT)
            spy.wait(timeout=60)
    finally:
        for proc in [*workers, stand_in.proc if stand_in else None]:
            if proc is not None:
                stop(proc)
        from django.db import connections

        connections.close_all()
        drop_database(server, args.database)
        shutil.rmtree(tmp, ignore_errors=True)


def report_judge(args, j: dict) -> None:
    print(
        f"\n1. {j['calls']} QA-judge calls at concurrency {args.concurrency}: "
        f"{j['rate_steady']:.1f} calls/s at the provider (first request to last answer) = "
        f"{100 * j['rate_steady'] / j['ideal']:.0f} % of the ideal {j['ideal']:.0f}/s (goal "
        f">= 90 %: {'met' if j['rate_steady'] >= 0.9 * j['ideal'] else 'NOT met'}); "
        f"with the run's creation: {j['wall_s']:.2f} s wall (creating the run "
        f"{j['created_s']:.2f} s) = {j['rate_wall']:.1f} calls/s; peak concurrent "
        f"{j['peak']}; requests {j['requests']}; outcomes {j['outcomes']}",
        flush=True,
    )
    print(
        f"   mean in flight at the provider {j['mean_in_flight']:.1f} (peak first reached after "
        f"{j['ramp_s']:.2f} s); CPU per call: worker {j['worker_cpu_ms']:.1f} ms, stand-in "
        f"{j['stand_in_cpu_ms']:.1f} ms; retried attempts: {j['retried'] or 'none'}",
        flush=True,
    )
    print(
        f"   baseline (32 threads straight to the stand-in, no DB, no limiter, measured the "
        f"same way): {j['baseline_rate']:.1f} calls/s; ours / baseline = "
        f"{j['rate_steady'] / j['baseline_rate']:.2f}",
        flush=True,
    )
    print(f"   rerun of the finished judge: {j['rerun_calls']} calls in {j['rerun_s']:.2f} s",
              flush=True)  # fmt: skip


def report_frames(p: dict) -> None:
    print(f"\n2. media preparation of {p['count']} frames predictions ({p['images']} PNGs, "
          f"{p['size_mb']:.0f} MB; {p['sent_mb']:.0f} MB of request bodies), best of "
          f"{p['rounds']} rounds: as a worker does it (the digests recorded when the run was "
          f"created) {p['ours_s']:.3f} s; plain read + base64 {p['plain_s']:.3f} s; ratio "
          f"{p['ours_s'] / p['plain_s']:.2f} (goal <= 1.2). The first time anywhere (hashing "
          f"every file, paid once when the run is created): {p['first_s']:.3f} s, ratio "
          f"{p['first_s'] / p['plain_s']:.2f}", flush=True)  # fmt: skip
    print(f"   the plain loop with pybase64 (the worker's encoder): {p['plain_fast_s']:.3f} s; "
          f"ours / that = {p['ours_s'] / p['plain_fast_s']:.2f}", flush=True)  # fmt: skip
    print(f"   the run itself: {p['calls']} calls in {p['run_s']:.2f} s (render setup "
              f"{p['setup_s']:.1f} s, not counted)", flush=True)  # fmt: skip
    print(f"\n3. full rerun (same name): {p['resume_s']:.2f} s; new run, identical inputs: "
              f"{p['cache_s']:.2f} s with {p['cache_hits']} cache hits; calls made by both: "
              f"{p['rerun_calls']} (goal 0 calls, <= 2 s)", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
