"""Benchmark: freeze, hash and export releases (goals of the frozen-manifest issue).

1. A benchmark-sized release (3,014 steps, 15 scenes, 32 source videos, created through
   ``annotation.services.step_create``): time to freeze + hash, and to export the bundle.
   Goal: freeze + export <= 1 s.
2. 300,000 synthetic steps (inserted in bulk: the per-step services would take hours and are not
   what is measured): time and peak RSS of freezing and of exporting, each in its own process.
   Goal: export <= 60 s with peak RSS <= 300 MB.

Each part also measures, in the same run, a naive baseline (load every row into memory, one
``json.dumps(..., sort_keys=True)`` of everything, hash, write) and prints ratios; peak RSS is
also compared with an idle Django process.

Run (from the repository root):
    .venv/bin/python benchmarks/manifest_freeze.py                 # SQLite, both parts
    .venv/bin/python benchmarks/manifest_freeze.py --large 50000   # a smaller second part
    DATABASE_URL=postgres://USER@HOST:5432/postgres TEST_DATABASE_NAME=bench_manifest \\
        .venv/bin/python benchmarks/manifest_freeze.py             # PostgreSQL
It creates a throwaway database (SQLite: a temporary file; PostgreSQL: TEST_DATABASE_NAME,
default bench_manifest) and drops it at the end.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_database import bench_database, database_url  # noqa: E402

S = 1_000_000


def _setup(database_url: str | None = None) -> None:
    if database_url:
        os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
    import django

    django.setup()


def _peak_rss_mb() -> float:
    """Peak resident memory of this process in MiB.

    VmHWM (Linux) belongs to this process's own address space, which exec starts afresh;
    ru_maxrss is not used when VmHWM exists because Linux carries it over from the parent that
    forked us, which would report the parent's size for a small child.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


# --- Data ------------------------------------------------------------------------------------


def _videos(prefix: str, n_scenes: int, n_videos: int, seconds: int):
    from media.models import Scene, SourceVideo

    scenes = [
        Scene.objects.get_or_create(
            slug=f"indoor/scene_{i:02d}", defaults={"name": f"Scene {i}", "setting": "indoor"}
        )[0]
        for i in range(n_scenes)
    ]
    videos = []
    for i in range(n_videos):
        video = SourceVideo(
            scene=scenes[i % n_scenes],
            title=f"{prefix}-{i}.mp4",
            file=f"sources/{prefix}-{i}.mp4",
            sha256=hashlib.sha256(f"{prefix}-{i}".encode()).hexdigest(),
            size_bytes=1,
            container="mov,mp4,m4a,3gp,3g2,mj2",
            codec="h264",
            width=640,
            height=360,
            fps_num=30,
            duration_us=seconds * S,
        )
        video.set_frame_times_us([round(f * S / 30) for f in range(0, min(seconds, 60) * 30)])
        video.frame_count = seconds * 30
        video.save()
        videos.append(video)
    return videos


def _layout(rng: random.Random, count: int):
    """Non-overlapping step times in one video, durations spread over every bin."""
    t = S
    for _ in range(count):
        length = rng.choice(
            [
                rng.randint(S // 5, S - 1),
                rng.randint(S, 2 * S - 1),
                rng.randint(2 * S, 4 * S - 1),
                rng.randint(4 * S, 10 * S),
            ]
        )
        cutoff = t + max(length * 2 // 3, 1)
        yield t, cutoff, min(cutoff + S // 10, t + length), t + length
        t += length + S // 4


def _labels(rng: random.Random, i: int) -> dict:
    return {
        "local_intent": f"pick up the {rng.choice(['cup', 'lid', 'brush', 'board'])} #{i}",
        "procedural_intent": "to get the next part of the task ready for use",
        "next_step": f"set it down near the {rng.choice(['sink', 'bench', 'shelf'])}",
        "plausible_next_steps": ["wipe it", "hand it over"][: i % 3],
    }


def build_benchmark_release(author) -> None:
    """3,014 steps over 32 videos and 15 scenes, each through step_create."""
    from annotation.services import step_create

    rng = random.Random(20260713)
    videos = _videos("bench", 15, 32, seconds=3600)
    per_video = [3014 // 32 + (1 if i < 3014 % 32 else 0) for i in range(32)]
    n = 0
    for video, count in zip(videos, per_video, strict=True):
        for start, cutoff, outcome, end in _layout(rng, count):
            step_create(
                video=video,
                author=author,
                start_us=start,
                cutoff_us=cutoff,
                outcome_us=outcome,
                end_us=end,
                **_labels(rng, n),
            )
            n += 1


def build_synthetic_steps(count: int) -> None:
    """``count`` active steps inserted in bulk (100 videos, 15 scenes)."""
    from annotation.models import MicroStep

    rng = random.Random(7)
    n_videos = 100
    per_video = -(-count // n_videos)
    videos = _videos("large", 15, n_videos, seconds=per_video * 12)
    batch, made = [], 0
    for video in videos:
        for position, (start, cutoff, outcome, end) in enumerate(
            _layout(rng, min(per_video, count - made))
        ):
            batch.append(
                MicroStep(
                    uid=uuid.UUID(int=rng.getrandbits(128), version=4),
                    video=video,
                    position=position,
                    start_us=start,
                    cutoff_us=cutoff,
                    outcome_us=outcome,
                    end_us=end,
                    **_labels(rng, made),
                )
            )
            made += 1
            if len(batch) == 5000:
                MicroStep.objects.bulk_create(batch)
                batch = []
    if batch:
        MicroStep.objects.bulk_create(batch)


# --- Measured operations -----------------------------------------------------------------------


def naive_export(release_name: str, out_dir: Path, prefix: str) -> tuple[str, str]:
    """The baseline: every row in memory, one big sorted json.dumps, hash it, write it."""
    from annotation.models import MicroStep

    rows = list(
        MicroStep.objects.filter(status="active", video__title__startswith=prefix).values(
            "uid",
            "video__scene__slug",
            "video__sha256",
            "position",
            "start_us",
            "cutoff_us",
            "outcome_us",
            "end_us",
            "local_intent",
            "procedural_intent",
            "next_step",
            "plausible_next_steps",
        )
    )
    for row in rows:
        row["uid"] = str(row["uid"])
    rows.sort(key=lambda r: r["uid"])
    sample_list = "".join(r["uid"] + "\n" for r in rows).encode()
    blob = json.dumps(
        {"name": release_name, "samples": rows}, sort_keys=True, ensure_ascii=False
    ).encode()
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "samples.txt").write_bytes(sample_list)
    (out_dir / "manifest.json").write_bytes(blob)
    return hashlib.sha256(sample_list).hexdigest(), hashlib.sha256(blob).hexdigest()


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - start


def child(args) -> None:
    """One measured operation in a fresh process, so its peak RSS is its own."""
    _setup(args.database_url)
    from annotation.models import Release
    from annotation.releases import release_export, release_freeze

    out = Path(args.out)
    if args.child == "idle":
        Release.objects.count()
        seconds = 0.0
    elif args.child == "freeze":
        from media.models import SourceVideo

        videos = SourceVideo.objects.filter(title__startswith="large-")
        _, seconds = timed(release_freeze, name=args.name, author=None, videos=videos)
    elif args.child == "export":
        release = Release.objects.get(name=args.name)
        _, seconds = timed(release_export, release=release, path=out)
    else:  # naive
        _, seconds = timed(naive_export, args.name, out, "large-")
    print(json.dumps({"seconds": seconds, "peak_rss_mb": _peak_rss_mb()}))


def run_child(kind: str, database_url: str, name: str, out: Path) -> dict:
    done = subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            kind,
            "--database-url",
            database_url,
            "--name",
            name,
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    if done.returncode != 0:
        raise SystemExit(f"child {kind} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--large", type=int, default=300_000, help="Synthetic steps in part 2")
    parser.add_argument("--child", choices=["idle", "freeze", "export", "naive"])
    parser.add_argument("--database-url")
    parser.add_argument("--name", default="bench_large")
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    if args.child:
        child(args)
        return

    work = bench_database("manifest-bench-", "bench_manifest")
    _setup()
    from django.db import connection

    from annotation.models import Release
    from annotation.releases import release_export, release_freeze

    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        url = database_url(connection)
        print(f"database: {connection.vendor}")

        # Part 1: the benchmark-sized release.
        _, seconds = timed(build_benchmark_release, None)
        print(f"\n[1] 3,014 steps created through step_create in {seconds:.1f} s (setup)")
        release, freeze_s = timed(release_freeze, name="bench_v1", author=None)
        _, export_s = timed(release_export, release=release, path=work / "bench_v1")
        hashes_ok = (
            release.manifest_sha256
            == hashlib.sha256((work / "bench_v1" / "manifest.json").read_bytes()).hexdigest()
        )
        _, naive_s = timed(naive_export, "bench_v1", work / "naive_v1", "bench-")
        ours = freeze_s + export_s
        print(f"    steps frozen:             {release.sample_count}")
        print(f"    freeze + hash:            {freeze_s * 1000:8.1f} ms")
        print(f"    export bundle (5 files):  {export_s * 1000:8.1f} ms")
        print(
            f"    freeze + export:          {ours * 1000:8.1f} ms   goal <= 1000 ms -> "
            f"{'met' if ours <= 1 else 'MISSED'}"
        )
        print(f"    naive baseline (dumps):   {naive_s * 1000:8.1f} ms")
        print(f"    ratio ours / naive:       {ours / naive_s:8.2f}x")
        print(f"    exported manifest hash = frozen hash: {hashes_ok}")

        # Part 2: many synthetic steps, measured in child processes.
        _, seconds = timed(build_synthetic_steps, args.large)
        print(f"\n[2] {args.large:,} synthetic steps inserted in bulk in {seconds:.1f} s (setup)")
        idle = run_child("idle", url, "", work / "idle")
        freeze = run_child("freeze", url, "bench_large", work / "unused")
        export = run_child("export", url, "bench_large", work / "bench_large")
        naive = run_child("naive", url, "bench_large", work / "naive_large")
        large = Release.objects.get(name="bench_large")
        size_mb = sum(p.stat().st_size for p in (work / "bench_large").iterdir()) / 1e6
        print(f"    steps frozen:             {large.sample_count:,}")
        print(f"    bundle size:              {size_mb:8.1f} MB")
        print(f"    idle Django process:      {idle['peak_rss_mb']:8.1f} MB peak RSS")
        print(
            f"    freeze + hash:            {freeze['seconds']:8.1f} s  "
            f"{freeze['peak_rss_mb']:8.1f} MB peak RSS"
        )
        ok = export["seconds"] <= 60 and export["peak_rss_mb"] <= 300
        print(
            f"    export bundle:            {export['seconds']:8.1f} s  "
            f"{export['peak_rss_mb']:8.1f} MB peak RSS   goal <= 60 s, <= 300 MB -> "
            f"{'met' if ok else 'MISSED'}"
        )
        print(
            f"    naive baseline (dumps):   {naive['seconds']:8.1f} s  "
            f"{naive['peak_rss_mb']:8.1f} MB peak RSS"
        )
        print(
            f"    ratio export / naive:     time {export['seconds'] / naive['seconds']:.2f}x, "
            f"peak RSS {export['peak_rss_mb'] / naive['peak_rss_mb']:.2f}x"
        )
        print(
            f"    export RSS above idle:    {export['peak_rss_mb'] - idle['peak_rss_mb']:8.1f} MB "
            f"(naive: {naive['peak_rss_mb'] - idle['peak_rss_mb']:.1f} MB)"
        )
    finally:
        connection.creation.destroy_test_db(
            connection.settings_dict["NAME"], verbosity=0, keepdb=False
        )
        import shutil

        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
