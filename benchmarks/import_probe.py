"""Import probing of long sources against ffmpeg's own demux of the same file, in one run.

Run from the repository root:  .venv/bin/python benchmarks/import_probe.py [--repeat 3]

Two sources, generated once into --workdir (default var/benchmarks/) and reused:

  tiny  16x16, 120 fps, 14,000 s: 1.68 million frames in about 25 MB (H.264, 2 s GOP), the file
        that once took minutes and gigabytes to import
  hd    1920x1080, 30 fps, 10 minutes (H.264, 2 s GOP, 2 B-frames)

For each, interleaved ``--repeat`` times (the machine may be shared; the median is reported):

  baseline  ``ffmpeg -i FILE -c copy -f null -``: ffmpeg reading every packet and nothing else
  index     ``media.probe.mov_index``: the frame-time index an MP4 import builds, from the
            file's sample tables (``media.isobmff``), without ffmpeg
  listing   ``media.probe.packet_index``: ffmpeg's streaming packet listing, the index of every
            other container and of an MP4 whose tables the reader cannot reproduce exactly
  probe     ``media.probe.probe_file``: everything an import learns about the file (header and
            its limits, one decoded frame, the index, sorted and converted to microseconds)

The index and the listing are also compared: the same frame times, bit for bit.

It also prints the sizes of the frame-times answer for the file: JSON and the compact form.

Each measurement runs in a fresh process. Peak memory: ``python`` is the benchmark's own process
(where the index lives), ``ffmpeg`` the largest ffmpeg child it ran; the baseline's ffmpeg is its
own process. The limits are raised to let these files in (the defaults refuse the tiny one:
MEDIA_MIN_SIDE_PX and MEDIA_MAX_FRAMES), since what is measured is the cost of indexing.

Time is wall-clock seconds (the goal) and CPU seconds of all processes involved (user + system;
steadier than wall time when the machine is shared).

Goals: python peak RSS <= 200 MB for both files; index and probe time <= 1.2 x the baseline
(the listing is reported for comparison).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import django
from django.conf import settings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

if not settings.configured:
    settings.configure(
        FFMPEG_BINARY=os.environ.get("FFMPEG_BINARY", ""),
        FFMPEG_TIMEOUT_SECONDS=3600,
        MEDIA_MAX_DURATION_SECONDS=4 * 3600,
        MEDIA_MAX_PIXELS=4096 * 2160,
        MEDIA_MAX_SIDE_PX=8192,
        MEDIA_MIN_SIDE_PX=1,
        MEDIA_MAX_FPS=1000,
        MEDIA_MAX_FRAMES=10_000_000,
    )
    django.setup()

from media.ffmpeg import ffmpeg_binary, file_url, run_ffmpeg  # noqa: E402

SOURCES = {
    "tiny": {
        "name": "tiny_16x16_120fps_14000s.mp4",
        "args": ["-f", "lavfi", "-i", "testsrc2=s=16x16:r=120:d=14000", "-c:v", "libx264",
                 "-preset", "ultrafast", "-g", "240", "-pix_fmt", "yuv420p"],
    },
    "hd": {
        "name": "hd_1080p30_600s.mp4",
        "args": ["-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=30:d=600", "-c:v", "libx264",
                 "-preset", "ultrafast", "-crf", "30", "-g", "60", "-bf", "2",
                 "-pix_fmt", "yuv420p"],
    },
}  # fmt: skip
GOAL_RSS_MB = 200
GOAL_RATIO = 1.2


def source(workdir: Path, key: str) -> Path:
    spec = SOURCES[key]
    path = workdir / spec["name"]
    if not path.exists():
        partial = path.with_suffix(".part.mp4")
        t0 = time.perf_counter()
        print(f"generating {path.name} (once) ...", flush=True)
        run_ffmpeg([*spec["args"], "-y", file_url(partial)], timeout=7200)
        partial.rename(path)
        print(f"  generated in {time.perf_counter() - t0:.0f} s", flush=True)
    return path


# --- one measurement per process -----------------------------------------------------------------


def _cpu() -> float:
    """CPU seconds (user + system) of this process and of the children it waited for."""
    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def child(kind: str, path: Path) -> None:
    from media.probe import mov_index, packet_index, probe_file, sniff_container

    if kind == "sizes":
        # What the frame-times endpoint sends: its JSON and its compact (stored deltas) form.
        from media.timebase import encode_frame_times

        times = probe_file(path).frame_times_us
        plain = json.dumps({"count": len(times), "frame_times_us": times.tolist()},
                           separators=(",", ":")).encode()  # fmt: skip
        print(json.dumps({
            "json": len(plain), "json_gzip": len(gzip.compress(plain, compresslevel=6)),
            "deltas": len(encode_frame_times(times)),
        }))  # fmt: skip
        return
    if kind == "same":
        # The index and the listing give the same presentation times, bit for bit.
        listing = {"demuxer": "mov", "max_frames": 10_000_000, "timeout": 3600, "progress": None}
        tables, listed = mov_index(path, start_us=0, **listing), packet_index(path, **listing)
        same = tables.time_base == listed.time_base and bool(
            (tables.pts == listed.pts).all() and (tables.keyframe_pts == listed.keyframe_pts).all()
        )
        print(json.dumps({"same": same, "frames": int(tables.pts.size)}))
        return
    cpu0 = _cpu()
    t0 = time.perf_counter()
    if kind in ("index", "listing"):
        demuxer, _ = sniff_container(path)
        build = mov_index if kind == "index" else packet_index
        extra = {"start_us": 0} if kind == "index" else {}
        index = build(path, demuxer=demuxer, max_frames=10_000_000, timeout=3600, progress=None,
                      **extra)  # fmt: skip
        frames = int(index.pts.size)
    else:
        frames = probe_file(path).frame_count
    seconds = time.perf_counter() - t0
    print(json.dumps({
        "seconds": seconds,
        "cpu": _cpu() - cpu0,
        "frames": frames,
        "python_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "ffmpeg_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    }))  # fmt: skip


def measure(kind: str, path: Path) -> dict:
    if kind == "baseline":
        argv = [ffmpeg_binary(), "-hide_banner", "-nostdin", "-loglevel", "error", "-i", str(path),
                "-c", "copy", "-f", "null", "-"]  # fmt: skip
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            raise SystemExit(f"baseline ffmpeg failed on {path}")
        cpu = usage.ru_utime + usage.ru_stime
        return {"seconds": seconds, "cpu": cpu, "ffmpeg_kb": usage.ru_maxrss, "python_kb": 0,
                "frames": None}  # fmt: skip
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind, str(path)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workdir", type=Path, default=ROOT / "var" / "benchmarks")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=sorted(SOURCES), action="append")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]))
        return

    args.workdir.mkdir(parents=True, exist_ok=True)
    ok = True
    for key in args.only or list(SOURCES):
        path = source(args.workdir, key)
        runs: dict[str, list[dict]] = {"baseline": [], "index": [], "listing": [], "probe": []}
        measure("baseline", path)  # warm the page cache: every run then reads from memory
        for _ in range(args.repeat):
            for kind in runs:
                runs[kind].append(measure(kind, path))
        med = {k: statistics.median(r["seconds"] for r in v) for k, v in runs.items()}
        cpu = {k: statistics.median(r["cpu"] for r in v) for k, v in runs.items()}
        peak = {
            k: (max(r["python_kb"] for r in v) / 1024, max(r["ffmpeg_kb"] for r in v) / 1024)
            for k, v in runs.items()
        }
        frames = runs["probe"][0]["frames"]
        size_mb = path.stat().st_size / 1e6
        print(f"\n{key}: {path.name}, {size_mb:.0f} MB, {frames:,} frames "
              f"(median of {args.repeat}, interleaved)")  # fmt: skip
        print(f"  {'':10} {'seconds':>8} {'x baseline':>11} {'CPU s':>7} {'x baseline':>11} "
              f"{'python MB':>10} {'ffmpeg MB':>10}")  # fmt: skip
        for kind in runs:
            ratio, cpu_ratio = med[kind] / med["baseline"], cpu[kind] / cpu["baseline"]
            py = f"{peak[kind][0]:10.0f}" if kind != "baseline" else f"{'-':>10}"
            print(f"  {kind:10} {med[kind]:8.2f} {ratio:11.2f} {cpu[kind]:7.2f} {cpu_ratio:11.2f} "
                  f"{py} {peak[kind][1]:10.0f}")  # fmt: skip
        same = measure("same", path)
        ok &= same["same"]
        print(f"  index = listing, frame for frame: {'yes' if same['same'] else 'NO'} "
              f"({same['frames']:,} frames)")  # fmt: skip
        sizes = measure("sizes", path)
        print(f"  frame-times answer: JSON {sizes['json'] / 1e6:.1f} MB "
              f"({sizes['json_gzip'] / 1e6:.2f} MB gzipped), compact {sizes['deltas'] / 1e3:.1f} kB")  # fmt: skip
        for kind in ("index", "probe"):
            ratio = med[kind] / med["baseline"]
            rss_ok = peak[kind][0] <= GOAL_RSS_MB
            time_ok = ratio <= GOAL_RATIO
            ok &= rss_ok and time_ok
            print(f"  goal {kind}: python peak {peak[kind][0]:.0f} MB <= {GOAL_RSS_MB} MB "
                  f"{'met' if rss_ok else 'MISSED'}; {ratio:.2f} x baseline <= {GOAL_RATIO} "
                  f"{'met' if time_ok else 'MISSED'}")  # fmt: skip
    print("\nall goals met" if ok else "\nsome goals missed")


if __name__ == "__main__":
    main()
