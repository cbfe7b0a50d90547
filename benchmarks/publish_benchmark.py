"""Benchmark: publishing a frozen release with its media (docs/publishing.md, "Sizes and times").

1. The demo release (``seed_demo``: two generated one-minute videos, 12 steps).
2. A 300-step release: generated videos (640x360, 30 fps, one of them with a variable frame
   rate), steps of 1 to 5 s created through ``annotation.services.step_create``.

For each, with ``--conditions official,ordered`` (the Official clip and the 16 Ordered frames of
every step): ``publish_benchmark`` cold (every medium rendered by the command) and warm (the
media are ready: rows, copies, hashes, card, checks), each in its own process; the folder's size
and file count; ``verify_manifest`` on it; ``import_benchmark`` into an empty database. The
baseline, measured in the same run on the same files: copying the published media files and
hashing them (``shutil.copyfile`` + ``hashlib.sha256``), the least any publisher of these bytes
does once they are rendered. Ratios printed: warm publish / baseline.

Run (from the repository root):
    .venv/bin/python benchmarks/publish_benchmark.py [--steps 300] [--skip-demo]
It works in a temporary folder (SQLite databases, media) removed at the end.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
S = 1_000_000


def _env(work: Path, name: str) -> dict:
    """An embedded-default instance of its own: database, media and broker under one folder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "CELERY_"))}
    env.pop("MEDIA_ROOT", None)
    env.update(STUDIO_VAR_DIR=str(work / name), STUDIO_DEMO_PASSWORD="benchmark-only")  # noqa: S106
    return env


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # finished children and their ffmpeg
    return usage.ru_utime + usage.ru_stime


def _manage(env: dict, *args: str) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the process and its children, stdout) of one command."""
    started, cpu = time.perf_counter(), _cpu()
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return seconds, _cpu() - cpu, done.stdout


def _peak_children_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def _size(folder: Path) -> tuple[int, int, int]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    media = [p for p in files if p.parent.name == "media"]
    return len(files), sum(p.stat().st_size for p in files), sum(p.stat().st_size for p in media)


def _baseline(folder: Path, work: Path) -> tuple[float, float]:
    """Copy and hash the published media files: the floor of publishing rendered bytes.
    (wall seconds, CPU seconds)."""
    target = work / "baseline-copy"
    target.mkdir()
    started, cpu = time.perf_counter(), time.process_time()
    for path in sorted((folder / "media").iterdir()):
        shutil.copyfile(path, target / path.name)
        hashlib.sha256((target / path.name).read_bytes()).hexdigest()
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    shutil.rmtree(target)
    return seconds, cpu


SETUP_300 = """
import random
from django.contrib.auth import get_user_model
from annotation.releases import release_freeze
from annotation.services import step_create
from media.models import Scene
from media.services import video_import
from media.synth import synth_video
from media.timebase import snap_to_frame

rng = random.Random(20261202)
user = get_user_model().objects.create_user(username="bench")
scene = Scene.objects.create(slug="indoor/kitchen", name="Kitchen", setting="indoor")
per_video = {per_video}
for v in range({videos}):
    # a second longer each: generated videos of equal length are the same bytes
    path = synth_video(r"{work}/v{{v}}.mp4", seconds={seconds} + v, fps=30, size=(640, 360), vfr=v == 0).path
    video = video_import(path=path, scene=scene, title=f"bench-{{v}}.mp4")
    times = video.frame_times_us()
    t = 500_000
    for i in range(per_video):
        length = rng.randint(1_000_000, 4_000_000)
        start, cutoff = snap_to_frame(times, t), snap_to_frame(times, t + length - 300_000)
        end = snap_to_frame(times, t + length)
        step_create(video=video, author=user, start_us=start, cutoff_us=cutoff, outcome_us=cutoff,
                    end_us=end, local_intent=f"Do step {{i}}", procedural_intent="For the task",
                    next_step=f"Do step {{i + 1}}", plausible_next_steps=[])
        t += length + 200_000
release_freeze(name="bench300", author=user)
print("ok")
"""


def _inside(output: str) -> float:
    """The time publish_benchmark reports for its own work ("... in 1.8 s")."""
    return float(re.search(r" in ([0-9.]+) s\n", output)[1])


def _part(label: str, release: str, env: dict, work: Path, empty_env: dict) -> None:
    out_cold, out_warm = work / f"{release}-cold", work / f"{release}-warm"
    conditions = ("--conditions", "official,ordered")
    before = _peak_children_mb()
    start_wall, start_cpu, _ = min(_manage(env, "shell", "-c", "pass") for _ in range(2))
    cold_wall, cold_cpu, text = _manage(
        env, "publish_benchmark", release, str(out_cold), *conditions
    )
    cold = _inside(text)
    warm_wall, warm_cpu, text = _manage(
        env, "publish_benchmark", release, str(out_warm), *conditions
    )
    warm = _inside(text)
    peak = max(before, _peak_children_mb())
    files, size, media = _size(out_warm)
    same = (out_cold / "SHA256SUMS").read_bytes() == (out_warm / "SHA256SUMS").read_bytes()
    verify_wall, verify_cpu, _ = _manage(env, "verify_manifest", str(out_warm))
    _manage(empty_env, "migrate", "--noinput", "-v", "0")
    import_wall, import_cpu, _ = _manage(empty_env, "import_benchmark", str(out_warm))
    base_wall, base_cpu = _baseline(out_warm, work)
    print(f"\n== {label}")
    print(
        f"folder: {files} files, {size / 1e6:.1f} MB ({media / 1e6:.1f} MB media); cold == warm bytes: {same}"
    )
    print(f"a manage.py process doing nothing: {start_wall:.2f} s wall, {start_cpu:.2f} s CPU")
    print("                                       wall (s)  CPU (s), less a process start-up")
    rows = [
        ("publish, cold (renders every medium)", cold_wall, cold_cpu),
        ("publish, warm (media ready)", warm_wall, warm_cpu),
        ("verify_manifest", verify_wall, verify_cpu),
        ("import_benchmark into an empty db", import_wall, import_cpu),
    ]
    for name, wall, cpu in rows:
        print(f"{name:38} {wall - start_wall:8.2f} {cpu - start_cpu:8.2f}")
    print(f"{'baseline: copy + SHA-256 of the media':38} {base_wall:8.2f} {base_cpu:8.2f}")
    print(f"publish's own clock (no start-up): cold {cold:.2f} s, warm {warm:.2f} s")
    print(
        f"ratio warm publish / baseline, CPU: {(warm_cpu - start_cpu) / max(base_cpu, 1e-3):.2f}x"
    )
    print(f"peak RSS of the command processes so far: {peak:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--skip-demo", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"load average before: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    with tempfile.TemporaryDirectory(prefix="bench-publish-") as tmp:
        work = Path(tmp)
        if not args.skip_demo:
            env = _env(work, "demo")
            _manage(env, "migrate", "--noinput", "-v", "0")
            seeded, _cpu_s, _ = _manage(env, "seed_demo")
            print(f"seed_demo: {seeded:.1f} s (not part of the figures)")
            _part("demo release (12 steps)", "demo_models_v1", env, work, _env(work, "demo-empty"))
        env = _env(work, "big")
        _manage(env, "migrate", "--noinput", "-v", "0")
        videos, per_video = 5, -(-args.steps // 5)
        seconds = per_video * 9 // 2 + 10
        code = SETUP_300.format(per_video=per_video, videos=videos, seconds=seconds, work=work)
        started = time.perf_counter()
        _manage(env, "shell", "-c", code)
        print(
            f"\n{videos * per_video}-step release created in {time.perf_counter() - started:.1f} s"
        )
        _part(f"{videos * per_video}-step release", "bench300", env, work, _env(work, "big-empty"))
    load = os.getloadavg()
    print(f"\nload average after: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")


if __name__ == "__main__":
    random.seed(0)
    main()
