"""Sound cut by the studio's rule against the usual ffmpeg extraction, measured in one run.

Run from the repository root:  .venv/bin/python benchmarks/audio_render.py [--minutes 3]

Source: a generated H.264 640x360 30 fps video (2-second GOP, 2 B-frames) with AAC sound at 48 kHz
that encodes time, a click every 100 ms (media.synth), cached in --workdir. Steps (seeded): a
quarter from each of the paper's duration bins <1 s, 1-2 s, 2-4 s, 4-10 s, frame-snapped. For
each step's Official window:

  wav        ours: the ``audio_wav16k`` rendering (media.ffrender with media.audio), then its
             check (decoded and counted)
  usual wav  ``ffmpeg -ss START -i SRC -t DUR -vn -ac 1 -ar 16000 out.wav``: the usual way
  clip       ours: the silent ``clip`` profile, verified (the cost of a clip without sound)
  clip+sound ours: the ``clip_audio`` profile, verified (pictures and sound from one decode)

Approaches run interleaved, one step at a time, in --rounds rounds, so other load on the machine
falls on all of them alike; wall and CPU (ffmpeg's and ours) are summed per round, the median
round is printed. "exact" = the sound holds the window's number of samples (round(d · rate))
and its clicks sit where the source's clicks are in the window (within 0.2 ms for WAV, 1.5 ms
for the AAC of a clip).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# Django configured for the media modules as benchmarks/media_render.py does it.
sys.path.insert(0, str(Path(__file__).resolve().parent))
import media_render  # noqa: F401

from media.audio import AUDIO_FORMATS, AudioTrack, audio_spans, span_samples
from media.ffmpeg import ffmpeg_binary
from media.ffrender import (
    AudioOutput,
    ClipOutput,
    SourceRef,
    output_size,
    render,
    verify_audio,
    verify_clip,
)
from media.probe import probe_file
from media.synth import CLICK_EVERY_US, read_clicks, synth_video
from media.windows import StepTimes, condition_window, window_frames

SEED = 20261202
BINS_US = [(200_000, 1_000_000), (1_000_000, 2_000_000), (2_000_000, 4_000_000),
           (4_000_000, 10_000_000)]  # fmt: skip


def make_source(workdir: Path, minutes: float) -> Path:
    path = workdir / f"sound-{minutes:g}min-360p30.mp4"
    if not path.exists():
        synth_video(path, seconds=minutes * 60, fps=30, size=(640, 360), audio=True, gop=60)
    return path


def pick_steps(times: np.ndarray, count: int) -> list[StepTimes]:
    rng = random.Random(SEED)
    steps = []
    for k in range(count):
        lo, hi = BINS_US[k % len(BINS_US)]
        start_index = rng.randrange(0, len(times) - 400)
        start = int(times[start_index])
        cut = max(int(np.searchsorted(times, start + rng.randrange(lo, hi))), start_index + 1)
        steps.append(StepTimes(start, int(times[cut]), int(times[cut]), int(times[cut])))
    return steps


def expected_clicks(spans) -> list[int]:
    out, at = [], 0
    for span in spans:
        first = -(-span.start_us // CLICK_EVERY_US) * CLICK_EVERY_US
        out += [at + t - span.start_us for t in range(first, span.sound_stop_us, CLICK_EVERY_US)]
        at += span.duration_us
    return out


def exact(path: Path, demuxer: str, rate: int, spans, tolerance_us: int) -> bool:
    clicks, samples, found_rate = read_clicks(path, demuxer=demuxer)
    want = expected_clicks(spans)
    if found_rate != rate or samples != sum(span_samples(s.duration_us, rate) for s in spans):
        return False
    return len(clicks) == len(want) and all(
        abs(a - b) <= tolerance_us for a, b in zip(clicks, want, strict=True)
    )


class Ours:
    def __init__(self, src: SourceRef, step: StepTimes, out: Path):
        window = condition_window("official", step=step)
        self.sel = window_frames(src.frame_times_us, window)
        self.spans = audio_spans(src.frame_times_us, self.sel.indices, self.sel.segment_starts,
                                 window.segments)  # fmt: skip
        self.src, self.out = src, out

    def wav(self) -> Path:
        output = AudioOutput(self.out.with_suffix(".wav"),
                             AudioTrack(AUDIO_FORMATS["wav16k"], self.spans))  # fmt: skip
        render(self.src, [output])
        verify_audio(output)
        return output.path

    def clip(self, sound: bool) -> Path:
        size = output_size(self.src.width, self.src.height, 720)
        track = AudioTrack(AUDIO_FORMATS["aac48k"], self.spans) if sound else None
        output = ClipOutput(self.out.with_suffix(".a.mp4" if sound else ".mp4"), self.sel.indices,
                            self.sel.segment_starts, size, audio=track)  # fmt: skip
        render(self.src, [output])
        verify_clip(output, self.src.frame_times_us)
        return output.path


def usual_wav(src: SourceRef, step: StepTimes, out: Path) -> Path:
    path = out.with_suffix(".usual.wav")
    subprocess.run([ffmpeg_binary(), "-hide_banner", "-nostdin", "-loglevel", "error",
                    "-ss", f"{step.start_us / 1e6:.6f}", "-i", str(src.path),
                    "-t", f"{(step.cutoff_us - step.start_us) / 1e6:.6f}",
                    "-vn", "-ac", "1", "-ar", "16000", "-y", str(path)], check=True)  # fmt: skip
    return path


def cpu_seconds() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)  # fmt: skip
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=3)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workdir", default="var/bench-audio")
    args = parser.parse_args()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    path = make_source(workdir, args.minutes)
    probe = probe_file(path)
    w, h = probe.display_size
    src = SourceRef(path, probe.demuxer, probe.origin_us, probe.frame_times_us,
                    probe.keyframe_times_us, w, h, probe.has_audio)  # fmt: skip
    steps = pick_steps(probe.frame_times_us, args.steps)
    print(
        f"load average before: {os.getloadavg()[0]:.1f}; {len(steps)} steps, mean "
        f"{np.mean([s.cutoff_us - s.start_us for s in steps]) / 1e6:.2f} s",
        flush=True,
    )
    names = ["wav", "usual wav", "clip", "clip+sound"]
    wall = {n: [] for n in names}
    cpu = {n: [] for n in names}
    for r in range(args.rounds):
        totals = {n: [0.0, 0.0] for n in names}
        for k, step in enumerate(steps):
            ours = Ours(src, step, workdir / f"r{r}-s{k}")
            base = workdir / f"r{r}-s{k}"
            runs = {
                "wav": ours.wav,
                "usual wav": lambda s=step, b=base: usual_wav(src, s, b),
                "clip": lambda o=ours: o.clip(False),
                "clip+sound": lambda o=ours: o.clip(True),
            }
            order = names[k % 4 :] + names[: k % 4]  # rotate who goes first
            for name in order:
                t0, c0 = time.perf_counter(), cpu_seconds()
                runs[name]()
                totals[name][0] += time.perf_counter() - t0
                totals[name][1] += cpu_seconds() - c0
        for n in names:
            wall[n].append(totals[n][0])
            cpu[n].append(totals[n][1])
        print(f"round {r + 1}: " + ", ".join(f"{n} {totals[n][0]:.1f} s" for n in names),
              flush=True)  # fmt: skip
    # Exactness, outside the timing: the last round's files.
    r = args.rounds - 1
    good = {"wav": 0, "usual wav": 0, "clip+sound": 0}
    worst_usual = 0
    for k, step in enumerate(steps):
        ours = Ours(src, step, workdir / f"r{r}-s{k}")
        base = workdir / f"r{r}-s{k}"
        good["wav"] += exact(base.with_suffix(".wav"), "wav", 16_000, ours.spans, 200)
        good["clip+sound"] += exact(base.with_suffix(".a.mp4"), "mov", 48_000, ours.spans, 1_500)
        usual = base.with_suffix(".usual.wav")
        good["usual wav"] += exact(usual, "wav", 16_000, ours.spans, 200)
        _, samples, _ = read_clicks(usual, demuxer="wav")
        worst_usual = max(worst_usual, abs(samples - span_samples(ours.spans[0].duration_us,
                                                                  16_000)))  # fmt: skip
    print("\n| approach | wall (median round) | CPU | exact |\n|---|---:|---:|---:|")
    for n in names:
        ok = f"{good[n]}/{len(steps)}" if n in good else "-"
        print(f"| {n} | {statistics.median(wall[n]):.2f} s | {statistics.median(cpu[n]):.2f} s "
              f"| {ok} |")  # fmt: skip
    med = {n: statistics.median(wall[n]) for n in names}
    print(
        f"\nwav / usual wav: {med['wav'] / med['usual wav']:.2f}x wall; "
        f"clip+sound / clip: {med['clip+sound'] / med['clip']:.2f}x wall; "
        f"the usual wav's sample count off by up to {worst_usual} samples"
    )


if __name__ == "__main__":
    main()
