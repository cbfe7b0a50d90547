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

The footprint part (``--part footprint``) runs the import command itself, ``manage.py
import_videos``, in a throwaway database and media folder (created under --workdir, removed at
the end), with the default limits:

  long     128x128, 120 fps, 3,000 s: 360,000 frames (H.264, 2 s GOP), imported
  refused  a playlist named ``.mp4``, which the import refuses from its first bytes

and, as the baseline, ffmpeg's demux of the long file (as above). Memory is the resident set of
the command's whole process tree (python and every ffmpeg it starts), sampled from ``/proc`` every
few milliseconds and summed over the processes alive at each sample; the peak of that sum is
reported, with the largest python and ffmpeg figures seen. Goals: the long file <= 200 MB, the
refused one <= 120 MB.
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
LONG = {
    "name": "long_128x128_120fps_3000s.mp4",
    "args": ["-f", "lavfi", "-i", "testsrc2=s=128x128:r=120:d=3000", "-c:v", "libx264",
             "-preset", "ultrafast", "-g", "240", "-pix_fmt", "yuv420p"],
}  # fmt: skip
GOAL_RSS_MB = 200
GOAL_RATIO = 1.2
GOAL_TREE_MB = {"long": 200, "refused": 120}
SAMPLE_SECONDS = 0.004


def source(workdir: Path, key: str) -> Path:
    spec = LONG if key == "long" else SOURCES[key]
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


# --- the import command's process tree -----------------------------------------------------------


def _status_kb(pid: int) -> dict[str, int]:
    values = {}
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith(("PPid:", "VmRSS:", "VmHWM:")):
                    key, value = line.split(":", 1)
                    values[key] = int(value.split()[0])
    except OSError:  # gone meanwhile
        pass
    return values


def _tree(root: int) -> dict[int, dict[str, int]]:
    """``/proc/PID/status`` figures of ``root`` and of every process below it."""
    parents, found = {}, {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            values = _status_kb(int(entry.name))
            if "PPid" in values:
                parents[int(entry.name)], found[int(entry.name)] = values["PPid"], values
    tree, grew = {root}, True
    while grew:
        below = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= below
        grew = bool(below)
    return {pid: found[pid] for pid in tree if pid in found and "VmRSS" in found[pid]}


def sampled(argv: list[str], env: dict | None = None, expect_failure: bool = False) -> dict:
    """Run ``argv`` to its end, sampling the resident memory of its process tree."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    peak_sum = peak_python = peak_ffmpeg = 0
    samples = 0
    with proc:
        # Output is small (a line a file), so reading it after the end cannot block the child.
        while proc.poll() is None:
            tree = _tree(proc.pid)
            if tree:
                samples += 1
                peak_sum = max(peak_sum, sum(v["VmRSS"] for v in tree.values()))
                own = tree.get(proc.pid, {})
                peak_python = max(peak_python, own.get("VmHWM", 0))
                others = [v.get("VmHWM", 0) for pid, v in tree.items() if pid != proc.pid]
                peak_ffmpeg = max([peak_ffmpeg, *others])
            time.sleep(SAMPLE_SECONDS)
        out, err = proc.communicate()
    seconds = time.perf_counter() - t0
    if bool(proc.returncode) != expect_failure:
        raise SystemExit(f"{' '.join(map(str, argv))} exited with {proc.returncode}:\n"
                         f"{out.decode()}{err.decode()}")  # fmt: skip
    return {"seconds": seconds, "tree_mb": peak_sum / 1024, "python_mb": peak_python / 1024,
            "ffmpeg_mb": peak_ffmpeg / 1024, "samples": samples,
            "said": (out + err).decode("utf-8", "replace").strip()}  # fmt: skip


def footprint(workdir: Path, repeat: int) -> bool:
    """``manage.py import_videos`` of the long file and of a refused one, against the demux."""
    import shutil
    import tempfile

    long_path = source(workdir, "long")
    refused_path = workdir / "refused_playlist.mp4"
    refused_path.write_text("#EXTM3U\n#EXTINF:10,\nlong_128x128_120fps_3000s.mp4\n")
    var = Path(tempfile.mkdtemp(prefix="import-footprint-", dir=workdir))
    env = {**os.environ, "STUDIO_VAR_DIR": str(var), "DATABASE_URL": f"sqlite:///{var}/db.sqlite3",
           "MEDIA_ROOT": str(var / "media")}  # fmt: skip
    manage = [sys.executable, "manage.py"]
    try:
        subprocess.run([*manage, "migrate", "--noinput"], cwd=ROOT, env=env, check=True,
                       capture_output=True)  # fmt: skip
        subprocess.run([*manage, "shell", "-c", "from media.models import Scene; "
                        "Scene.objects.create(slug='indoor/bench_probe', name='Bench', setting='indoor')"],
                       cwd=ROOT, env=env, check=True, capture_output=True)  # fmt: skip
        forget = ("from media.models import SourceVideo\nfor v in SourceVideo.objects.all():\n"
                  "    v.file.delete(save=False); v.delete()")  # fmt: skip
        runs: dict[str, list[dict]] = {"baseline": [], "long": [], "refused": []}
        demux = [ffmpeg_binary(), "-hide_banner", "-nostdin", "-loglevel", "error", "-i",
                 str(long_path), "-c", "copy", "-f", "null", "-"]  # fmt: skip
        sampled(demux)  # warm the page cache
        for _ in range(repeat):
            runs["baseline"].append(sampled(demux))
            runs["long"].append(sampled(
                [*manage, "import_videos", str(long_path), "--scene", "indoor/bench_probe"], env))  # fmt: skip
            subprocess.run([*manage, "shell", "-c", forget], cwd=ROOT, env=env, check=True,
                           capture_output=True)  # fmt: skip
            runs["refused"].append(sampled(
                [*manage, "import_videos", str(refused_path), "--scene", "indoor/bench_probe"], env,
                expect_failure=True))  # fmt: skip
    finally:
        shutil.rmtree(var, ignore_errors=True)
        refused_path.unlink(missing_ok=True)
    print(f"\nimport_videos footprint: {long_path.name} "
          f"({long_path.stat().st_size / 1e6:.0f} MB); median of {repeat}, interleaved")  # fmt: skip
    for kind in ("long", "refused"):
        said = runs[kind][0]["said"].splitlines()
        print(
            f"  {kind}: {next((x for x in said if x.startswith(('imported', 'FAILED'))), said[0])}"
        )
    print(f"  {'':10} {'seconds':>8} {'tree MB':>8} {'python MB':>10} {'ffmpeg MB':>10} "
          f"{'samples':>8}")  # fmt: skip
    ok = True
    for kind, values in runs.items():
        med = {k: statistics.median(v[k] for v in values)
               for k in ("seconds", "tree_mb", "python_mb", "ffmpeg_mb", "samples")}  # fmt: skip
        if kind == "baseline":  # the process sampled is ffmpeg itself
            med["python_mb"], med["ffmpeg_mb"] = 0, med["python_mb"]
        print(f"  {kind:10} {med['seconds']:8.2f} {med['tree_mb']:8.0f} {med['python_mb']:10.0f} "
              f"{med['ffmpeg_mb']:10.0f} {med['samples']:8.0f}")  # fmt: skip
        if kind in GOAL_TREE_MB:
            worst = max(v["tree_mb"] for v in values)
            met = worst <= GOAL_TREE_MB[kind]
            ok &= met
            print(f"  goal {kind}: process tree peak {worst:.0f} MB (worst run) <= "
                  f"{GOAL_TREE_MB[kind]} MB {'met' if met else 'MISSED'}")  # fmt: skip
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workdir", type=Path, default=ROOT / "var" / "benchmarks")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=sorted(SOURCES), action="append")
    parser.add_argument("--no-listing", action="store_true",
                        help="skip ffmpeg's packet listing and the frame-for-frame comparison "
                             "(the slow part on the tiny file; not a goal)")  # fmt: skip
    parser.add_argument("--part", choices=["all", "probe", "footprint"], default="all",
                        help="the probe of the two sources, the import command's footprint, "
                             "or both")  # fmt: skip
    parser.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]))
        return

    args.workdir.mkdir(parents=True, exist_ok=True)
    ok = True
    if args.part in ("all", "footprint"):
        ok &= footprint(args.workdir, args.repeat)
    for key in [] if args.part == "footprint" else args.only or list(SOURCES):
        path = source(args.workdir, key)
        kinds = ["baseline", "index", "probe"] if args.no_listing else [
            "baseline", "index", "listing", "probe"]  # fmt: skip
        runs: dict[str, list[dict]] = {kind: [] for kind in kinds}
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
        if not args.no_listing:
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
