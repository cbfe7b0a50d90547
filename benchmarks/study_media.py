"""A controlled study's media: every video condition of the paper's studies for 100 steps,
rendered three ways in one run.

Run from the repository root:  .venv/bin/python benchmarks/study_media.py [--steps 100]

Source: the generated 10-minute H.264 1080p30 video of benchmarks/media_render.py (2-second GOP,
frame numbers burned in), cached in --workdir. Steps: runs of five consecutive micro-steps (the
way a video is annotated: each starts 0-1 s after the previous one ends; observation 0.2-4 s,
outcome 0.3 s later, end 0.5 s after that), spread over the video, seeded. Each step needs the
media of every video condition of the studies (docs/reports.md): the clips of Official (Step
only is the same medium), Early, Outcome visible, Next visible, 5 s and 15 s of history and
Previous step at 720p (the ``clip`` profile: x264 veryfast CRF 20), and the 16-frame sets of
Frames in order, Frames shuffled, Last frame and First frame. Each approach renders with
media.ffrender on 2 worker processes and verifies every output (frame count, times, sizes):

  groups  decode groups (``plan`` below: windows of the source that overlap or lie within 2 s,
          at most --max-outputs outputs per ffmpeg process), one ffmpeg per group
  (a)     one ffmpeg per medium, as the studio renders a study's conditions: each decodes its
          window again from its keyframe
  floor   one ffmpeg per step writing all its media: one decode of the step's union window plus
          the same output work

The goals of the issue were groups <= 1.2x the floor, (a) / groups >= 3 and a worker's peak
memory <= 500 MB; (a) / floor bounds what any sharing of the decode can save. docs/media.md has
the figures and why the studio keeps rendering each medium on its own.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import media_render as base

from media.ffrender import (
    ClipOutput,
    FramesOutput,
    output_size,
    render,
    verify_clip,
    verify_frames,
)
from media.synth import read_frame_numbers
from media.windows import (
    FRAME_BUDGET,
    StepTimes,
    WindowUnavailable,
    condition_window,
    frame_set,
    window_frames,
)

SEED = 20261202
WORKERS = 2
CLIPS = ["official", "early", "outcome_visible", "next_visible", "history_5s", "history_15s",
         "previous_step"]  # fmt: skip
FRAME_SETS = ["ordered", "shuffled", "last_frame", "first_frame"]
RUN = 5  # consecutive steps per stretch
# The decode groups tried: windows of the source that overlap or lie within GAP_US share one
# ffmpeg process, up to --max-outputs outputs and MAX_SPAN_US of source each.
GAP_US = 2_000_000
MAX_SPAN_US = 60_000_000


def plan(spans, *, max_outputs: int) -> list[list]:
    """Keys in decode groups, from ``(first µs, end µs, key)`` spans of one source taken in the
    order of their start: a span joins the current group when it starts at most GAP_US after
    the group's end and the group stays within ``max_outputs`` and MAX_SPAN_US."""
    groups, group, start, end = [], [], 0, 0
    for a, b, key in sorted(spans, key=lambda s: (s[0], s[1])):
        if group and (a > end + GAP_US or len(group) >= max_outputs or b - start > MAX_SPAN_US):
            groups.append(group)
            group = []
        if not group:
            start, end = a, b
        group.append(key)
        end = max(end, b)
    return [*groups, group] if group else groups


def frames_span(times: np.ndarray, frames) -> tuple[int, int]:
    first, last = min(frames), max(frames)
    end = int(times[last + 1]) if last + 1 < len(times) else int(times[last]) + 1
    return int(times[first]), end


def pick_steps(times: np.ndarray, count: int) -> list[tuple[StepTimes, StepTimes | None,
                                                           StepTimes | None]]:  # fmt: skip
    """``count`` steps in stretches of RUN consecutive ones, each with its neighbours."""
    rng = random.Random(SEED)
    duration = int(times[-1])
    stretches = -(-count // RUN)
    out = []
    for s in range(stretches):
        t = int(duration * (s + 0.5) / (stretches + 1)) + rng.randrange(0, 2_000_000)
        line = []
        for _ in range(RUN + 2):  # a neighbour on each side of the stretch
            start = t + rng.randrange(0, 1_000_000)
            cutoff = start + rng.randrange(200_000, 4_000_000)
            outcome = cutoff + 300_000
            end = outcome + 500_000
            line.append(StepTimes(*(_snap(times, x) for x in (start, cutoff, outcome, end))))
            t = end
        for k in range(1, RUN + 1):
            out.append((line[k], line[k - 1], line[k + 1]))
    return out[:count]


def _snap(times: np.ndarray, t: int) -> int:
    return int(times[min(int(np.searchsorted(times, t)), len(times) - 1)])


def outputs_of(src, steps, out_dir: Path) -> list[list]:
    """Per step, its media as renderer outputs (equal media of a step once: Step only)."""
    size = output_size(src.width, src.height, 720)
    times = src.frame_times_us
    per_step = []
    for k, (step, prev, nxt) in enumerate(steps):
        outs, seen = [], set()
        for condition in CLIPS + FRAME_SETS:
            try:
                window = condition_window(condition, step=step, previous=prev, following=nxt)
            except WindowUnavailable:
                continue
            path = out_dir / f"{k:03d}-{condition}"
            if condition in CLIPS:
                sel = window_frames(times, window)
                key = ("clip", tuple(sel.indices))
                output = ClipOutput(path.with_suffix(".mp4"), tuple(sel.indices),
                                    tuple(sel.segment_starts), size)  # fmt: skip
            else:
                indices, _, _ = frame_set(times, window, count=FRAME_BUDGET, seed=k)
                key = ("frames", window.order, tuple(indices))
                output = FramesOutput(path, tuple(indices), size)
            if key not in seen:
                seen.add(key)
                outs.append(output)
        per_step.append(outs)
    return per_step


def _render_verified(job) -> None:
    path, info, outputs = job
    src = base._src(path, info)
    render(src, outputs)
    for output in outputs:
        if isinstance(output, ClipOutput):
            verify_clip(output, src.frame_times_us)
        else:
            verify_frames(output)


def phase(name: str, jobs: list) -> tuple[float, float, float]:
    """Wall, CPU (all processes) and the largest process's peak memory (MB) of ``jobs`` on
    WORKERS processes, measured in a fresh process."""
    result = subprocess.run(
        [sys.executable, __file__, "--phase"],
        input=_pickle(jobs), capture_output=True, check=True,
    )  # fmt: skip
    data = json.loads(result.stdout)
    return data["wall"], data["cpu"], data["peak_mb"]


def _pickle(jobs) -> bytes:
    import pickle

    return pickle.dumps(jobs)


def run_phase() -> None:
    import pickle

    jobs = pickle.loads(sys.stdin.buffer.read())  # noqa: S301 - our own bytes, from our parent
    start = time.perf_counter()
    with ProcessPoolExecutor(WORKERS) as pool:
        list(pool.map(_render_verified, jobs))
    wall = time.perf_counter() - start
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = children.ru_utime + children.ru_stime
    peak_kb = max(children.ru_maxrss, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    print(json.dumps({"wall": wall, "cpu": cpu, "peak_mb": peak_kb / 1024}))


def _retarget(output, directory: Path):
    from dataclasses import replace

    if isinstance(output, ClipOutput):
        return replace(output, path=directory / output.path.name)
    return replace(output, directory=directory / output.directory.name)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--workdir", default=str(Path(__file__).resolve().parents[1] / "var"
                                                 / "bench-media"))  # fmt: skip
    parser.add_argument("--max-outputs", type=int, default=16,
                        help="outputs per ffmpeg process of the decode groups")  # fmt: skip
    parser.add_argument("--phase", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        run_phase()
        return

    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    source, info = base.make_source(workdir, args.minutes)
    src = base._src(str(source), info)
    steps = pick_steps(src.frame_times_us, args.steps)
    out_root = workdir / "study-out"
    shutil.rmtree(out_root, ignore_errors=True)
    per_step = outputs_of(src, steps, out_root / "x")
    media = [o for outs in per_step for o in outs]
    clips = sum(isinstance(o, ClipOutput) for o in media)
    frames_out = sum(len(o.indices) for o in media)
    print(f"source {args.minutes:g} min 1080p30; {len(steps)} steps, {len(media)} media "
          f"({clips} clips, {len(media) - clips} frame sets; {frames_out} output frames), "
          f"{WORKERS} workers", flush=True)  # fmt: skip

    times = src.frame_times_us
    spans = [(*frames_span(times, o.indices), i) for i, o in enumerate(media)]
    groups = plan(spans, max_outputs=args.max_outputs)
    print(f"groups: {len(groups)} decode groups (largest {max(map(len, groups))} media)")

    def jobs_for(name: str, sets: list[list]) -> list:
        directory = out_root / name
        directory.mkdir(parents=True, exist_ok=True)
        return [(str(source), info, [_retarget(o, directory) for o in outs]) for outs in sets]

    figures = {
        "ours": phase("ours", jobs_for("ours", [[media[i] for i in g] for g in groups])),
        "a": phase("a", jobs_for("a", [[o] for o in media])),
        "floor": phase("floor", jobs_for("floor", per_step)),
    }
    exact = 0
    for o in media:
        if isinstance(o, ClipOutput):
            exact += read_frame_numbers(str(out_root / "ours" / o.path.name)) == list(o.indices)
    print(f"\n{'':<46} {'wall':>8}   {'CPU':>8}  peak mem")
    for key, label in (("ours", "groups: one ffmpeg per decode group"),
                       ("a", "(a) one ffmpeg per medium (the studio)"),
                       ("floor", "floor: one ffmpeg per step")):  # fmt: skip
        wall, cpu, peak = figures[key]
        print(f"  {label:<44} {wall:8.2f} s {cpu:8.2f} s {peak:7.1f} MB")
    print("\nratios")

    def ratio(label, num, den, goal):
        n, d = figures[num], figures[den]
        print(f"  {label:<30} wall {n[0] / d[0]:6.2f}x  CPU {n[1] / d[1]:6.2f}x  ({goal})")

    ratio("groups / floor", "ours", "floor", "goal was <= 1.2")
    ratio("(a) / groups  speed-up", "a", "ours", "goal was >= 3")
    ratio("(a) / floor", "a", "floor", "the most a shared decode saves")
    print(f"\nframe-exact clips (groups): {exact}/{clips}; peak memory goal was <= 500 MB")


if __name__ == "__main__":
    main()
