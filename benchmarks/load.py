"""Load: 50 simulated annotators against gunicorn + PostgreSQL on 127.0.0.1 (issue 11, item 9).

Each annotator has its own logged-in session and loops, with a think time between requests, over
what the workspace does while someone works:
  - workspace loads  GET   /api/annotation/videos/<id>/workspace/  (the video and its steps),
  - autosaves        PATCH /api/annotation/steps/<id>/             (a label, with the version),
  - preview polls    POST  /api/annotation/steps/<id>/preview/     (the step's Official clip:
                     status and a fresh opaque URL once it is ready),
  - source reads     GET   /api/annotation/videos/<id>/source/     with Range (the player
                     seeking in the source video), timed to the first byte of the body,
  - clip reads       GET   /m/<token>                              with Range (the preview clip
                     a poll handed out), timed to the first byte of the body,
  - a trivial request GET  /api/annotation/ping/                   (same session auth and
                     middleware, no query of its own): the baseline measured in the same run.
The source is a real video file (generated, frame numbers burned in) imported through the
services; the previews are rendered by real ffmpeg before the load starts, so a poll answers
"ready" and the worker's CPU use does not mix into the figures.

A request that finds its kept-alive connection closed by the server (gunicorn's keep-alive timeout
racing the client's next request) is sent once more on a new connection, as browsers do; such
resends are counted and printed, and a second failure is an error.

Printed: p50 / p95 / max per request kind and the ratio of each p95 to the trivial request's p95;
errors (any answer but 2xx, or a 409 on a save, counted apart); lost writes: every acknowledged
save must be exactly one revision row holding the text that was sent.

Goals: 0 errors, 0 lost writes, autosave p95 <= 50 ms, media first byte p95 <= 50 ms.

Run from the repository root (PostgreSQL must be reachable; the database named by --database is
created and dropped; nothing leaves 127.0.0.1):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/load.py
Options: --clients 50 --seconds 300 --warmup 5 --think 0.5 --workers 3 --threads 8
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import re
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.workspace_api import (  # noqa: E402  (one place for these helpers)
    admin_url,
    create_database,
    free_port,
    pct,
    shut_down,
)

PASSWORD = "bench-" + secrets.token_urlsafe(12)
KINDS = ("ping", "save", "load", "preview", "source", "clip")
NAMES = {
    "ping": "trivial (ping)",
    "save": "autosave (PATCH step)",
    "load": "workspace load",
    "preview": "preview poll (POST)",
    "source": "source Range, 1st byte",
    "clip": "clip Range, 1st byte",
}
RANGE_BYTES = 64 * 1024


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=300.0, help="measured duration")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring")
    parser.add_argument(
        "--think", type=float, default=0.5, help="mean pause between requests (uniform 0..2x)"
    )
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--previews", type=int, default=8, help="steps whose preview is polled")
    parser.add_argument("--processes", type=int, default=5, help="client processes")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--database", default=f"bench_load_{os.getpid()}")
    parser.add_argument(
        "--mix",
        default="load=1,save=6,preview=2,source=4,clip=2,ping=3",
        help="relative weights of the request kinds (clip reads need a polled preview first)",
    )
    return parser.parse_args()


def seed(args, media_root: Path):
    """A real 60 s source video, an annotator with it assigned, ``--steps`` steps created through
    the services, the previews of the first ``--previews`` steps rendered, and one session per
    client."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import Client

    from annotation.models import MicroStep, VideoAssignment
    from annotation.rendering import step_official_preview
    from annotation.services import step_create
    from media.models import RenderedMedia, Scene
    from media.renders import media_render
    from media.services import video_import
    from media.synth import synth_video
    from studio.roles import ANNOTATOR, sync_role_groups

    sync_role_groups()
    scene = Scene.objects.create(slug="indoor/kitchen", name="Kitchen", setting="indoor")
    (media_root / "in").mkdir()
    synth = synth_video(media_root / "in" / "load.mp4", seconds=60, fps=30, size=(640, 360))
    video = video_import(path=synth.path, scene=scene, title="load.mp4")
    user = get_user_model().objects.create_user(username="load-annotator", password=PASSWORD)
    user.groups.add(Group.objects.get(name=ANNOTATOR))
    VideoAssignment.objects.create(video=video, annotator=user)
    times = video.frame_times_us()
    span = len(times) // args.steps
    steps = []
    for i in range(args.steps):
        first = i * span
        step = step_create(
            video=video, author=user, start_us=int(times[first]),
            cutoff_us=int(times[first + span // 2]), outcome_us=int(times[first + span // 2]),
            end_us=int(times[first + span - 1]), local_intent=f"step {i}",
            procedural_intent="why", next_step="next", plausible_next_steps=["one"],
        )  # fmt: skip
        steps.append((step.pk, step.version))
    for pk, _ in steps[: args.previews]:
        step_official_preview(step=MicroStep.objects.get(pk=pk), user=user)  # creates the medium
    for medium in RenderedMedia.objects.all():
        media_render(media_id=medium.pk)
    ready = RenderedMedia.objects.filter(status=RenderedMedia.Status.READY).count()
    if ready != args.previews:
        raise SystemExit(f"only {ready} of {args.previews} previews rendered")
    sessions = []
    for _ in range(args.clients):
        client = Client()
        client.force_login(user)
        sessions.append(client.cookies["sessionid"].value)
    return video.pk, video.size_bytes, steps, sessions


class Recorder:
    def __init__(self):
        self.lock = threading.Lock()
        self.times: dict[str, list[float]] = {k: [] for k in KINDS}
        self.acks: list[tuple[int, int, str]] = []
        self.conflicts = 0
        self.reconnects = 0
        self.errors: list[str] = []


def _whole_part(response, data: bytes) -> bool:
    """A 206 whose body is exactly the range its Content-Range names."""
    found = re.fullmatch(r"bytes (\d+)-(\d+)/\d+", response.getheader("Content-Range") or "")
    return bool(found) and len(data) == int(found[2]) - int(found[1]) + 1


def client_loop(k, args, port, video, share, previews, session, stop_at, rec, weights):
    video_id, size = video
    csrf = secrets.token_hex(16)
    base = {"Cookie": f"sessionid={session}; csrftoken={csrf}"}
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    rng = random.Random(k)
    versions = dict(share)
    ids = list(versions)
    clip_url = None
    kinds, wts = zip(*weights.items(), strict=True)
    measure_from = stop_at - args.seconds
    time.sleep(rng.uniform(0, 2 * args.think))
    n = 0
    while time.monotonic() < stop_at:
        kind = rng.choices(kinds, wts)[0]
        if kind == "clip" and clip_url is None:
            kind = "preview"
        headers = {**base, "Accept": "application/json"}
        body = None
        first_byte = kind in ("source", "clip")
        if kind == "load":
            method, url = "GET", f"/api/annotation/videos/{video_id}/workspace/"
        elif kind == "ping":
            method, url = "GET", "/api/annotation/ping/"
        elif kind == "preview":
            method, url = "POST", f"/api/annotation/steps/{rng.choice(previews)}/preview/"
            headers["X-CSRFToken"] = csrf
        elif kind == "source":
            start = rng.randrange(0, max(size - RANGE_BYTES, 1))
            method, url = "GET", f"/api/annotation/videos/{video_id}/source/"
            headers = {**base, "Range": f"bytes={start}-{start + RANGE_BYTES - 1}"}
        elif kind == "clip":
            method, url = "GET", clip_url
            headers = {**base, "Range": f"bytes=0-{RANGE_BYTES - 1}"}
        else:
            step_id = rng.choice(ids)
            n += 1
            text = f"client {k} edit {n}"
            method, url = "PATCH", f"/api/annotation/steps/{step_id}/"
            body = json.dumps({"version": versions[step_id], "local_intent": text})
            headers.update({"Content-Type": "application/json", "X-CSRFToken": csrf})
        t0 = time.perf_counter()
        try:
            try:
                conn.request(method, url, body=body, headers=headers)
                response = conn.getresponse()
            except (ConnectionResetError, http.client.RemoteDisconnected):
                # The server closed this kept-alive connection as the request went out (its
                # keep-alive timeout); a browser sends the request again on a new connection,
                # and so do we, once. Counted, and a second failure is an error.
                with rec.lock:
                    rec.reconnects += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                t0 = time.perf_counter()
                conn.request(method, url, body=body, headers=headers)
                response = conn.getresponse()
            if first_byte:
                head = response.read(1)
                elapsed = time.perf_counter() - t0
                data = head + response.read()
            else:
                data = response.read()
                elapsed = time.perf_counter() - t0
        except (OSError, http.client.HTTPException) as exc:
            with rec.lock:
                rec.errors.append(f"{kind}: {exc!r}")
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            continue
        status = response.status
        with rec.lock:
            ok = status == 200 or (first_byte and status == 206 and _whole_part(response, data))
            if kind == "save" and status == 409:
                rec.conflicts += 1
                versions[step_id] = json.loads(data)["stored"]["version"]
            elif not ok:
                rec.errors.append(f"{kind} {url}: HTTP {status} {data[:200]!r}")
            else:
                if time.monotonic() - elapsed >= measure_from:
                    rec.times[kind].append(elapsed)
                if kind == "save":
                    saved = json.loads(data)["steps"][0]
                    versions[step_id] = saved["version"]
                    rec.acks.append((step_id, saved["version"], text))
                elif kind == "preview":
                    answer = json.loads(data)
                    if answer["status"] != "ready" or not answer["url"]:
                        rec.errors.append(f"preview not ready: {answer}")
                    else:
                        clip_url = answer["url"]
        if args.think:
            time.sleep(rng.uniform(0, 2 * args.think))
    conn.close()


def client_process(group, args, port, video, shares, previews, sessions, stop_at, weights, queue):
    rec = Recorder()
    threads = [
        threading.Thread(target=client_loop, args=(k, args, port, video, share, previews,
                                                   session, stop_at, rec, weights))
        for k, share, session in zip(group, shares, sessions, strict=True)
    ]  # fmt: skip
    while time.monotonic() < stop_at - args.seconds - args.warmup:
        time.sleep(0.01)
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    queue.put({"times": rec.times, "acks": rec.acks, "conflicts": rec.conflicts,
               "reconnects": rec.reconnects, "errors": rec.errors})  # fmt: skip


def _wait_until_serving(port: int, server: subprocess.Popen, workers: int, session: str) -> None:
    """Until the app answers, then a few rounds more: gunicorn binds the port before its workers
    have imported Django, and a worker's first requests (imports, connections) are not load."""
    deadline = time.monotonic() + 120
    answered = 0
    while time.monotonic() < deadline and answered < 10 * workers:
        if server.poll() is not None:
            raise SystemExit(f"gunicorn exited with code {server.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/api/annotation/ping/", headers={"Cookie": f"sessionid={session}"})
            conn.getresponse().read()
            conn.close()
            answered += 1
        except OSError:
            time.sleep(0.2)
    if answered < 10 * workers:
        raise SystemExit("gunicorn did not answer within 120 s")


def main() -> int:
    args = parse_args()
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith(("postgres://", "postgresql://")):
        print("DATABASE_URL must point at a PostgreSQL server (any database on it).")
        return 2
    weights = {k: float(v) for k, v in (p.split("=") for p in args.mix.split(","))}
    if set(weights) - set(KINDS):
        print(f"--mix knows only {', '.join(KINDS)}")
        return 2
    media_root = Path(tempfile.mkdtemp(prefix="bench-load-"))
    create_database(base, args.database)
    env = dict(
        os.environ, DATABASE_URL=admin_url(base, args.database), DJANGO_DEBUG="false",
        LOG_LEVEL="WARNING", PYTHONPATH=str(ROOT), DJANGO_SETTINGS_MODULE="studio.settings",
        MEDIA_ROOT=str(media_root), STUDIO_VAR_DIR=str(media_root / "var"),
    )  # fmt: skip
    # A broker of its own (the filesystem transport in the temporary folder): the previews are
    # rendered in this process before the load, so the render messages are never consumed.
    env.pop("CELERY_BROKER_URL", None)
    env.pop("CELERY_RESULT_BACKEND", None)
    for name in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"):
        os.environ.pop(name, None)
    os.environ.update(env)
    server = None
    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env,
                       check=True)  # fmt: skip
        import django

        django.setup()
        from django.db import connection

        t0 = time.perf_counter()
        video_id, size, steps, sessions = seed(args, media_root)
        print(f"seeded a 60 s source, {len(steps)} steps and {args.previews} rendered previews "
              f"in {time.perf_counter() - t0:.1f} s")  # fmt: skip
        previews = [pk for pk, _ in steps[: args.previews]]

        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "studio.wsgi", "-b", f"127.0.0.1:{port}",
             "-w", str(args.workers), "-k", "gthread", "--threads", str(args.threads),
             "--log-level", "warning"],
            cwd=ROOT, env=env, start_new_session=True,
        )  # fmt: skip
        _wait_until_serving(port, server, args.workers, sessions[0])
        shares = [steps[k :: args.clients] for k in range(args.clients)]
        connection.close()  # the client processes are forked: they must not share it
        ctx = multiprocessing.get_context("fork")
        queue = ctx.Queue()
        groups = [list(range(args.clients))[p :: args.processes] for p in range(args.processes)]
        stop_at = time.monotonic() + 1.0 + args.warmup + args.seconds
        load_before = os.getloadavg()[0]
        procs = [
            ctx.Process(target=client_process, args=(group, args, port, (video_id, size),
                                                     [shares[k] for k in group], previews,
                                                     [sessions[k] for k in group], stop_at,
                                                     weights, queue))
            for group in groups if group
        ]  # fmt: skip
        for proc in procs:
            proc.start()
        rec = Recorder()
        for _ in procs:
            part = queue.get(timeout=args.seconds + args.warmup + 120)
            for kind, values in part["times"].items():
                rec.times[kind].extend(values)
            rec.acks.extend(tuple(a) for a in part["acks"])
            rec.conflicts += part["conflicts"]
            rec.reconnects += part["reconnects"]
            rec.errors.extend(part["errors"])
        for proc in procs:
            proc.join()

        from annotation.models import StepRevision

        rows = {
            (r["step_id"], r["version"]): r["values"]["local_intent"]
            for r in StepRevision.objects.filter(action="update").values(
                "step_id", "version", "values"
            )
        }
        lost = [a for a in rec.acks if rows.get((a[0], a[1])) != a[2]]
        connection.close()

        total = sum(len(v) for v in rec.times.values())
        print(f"\n{args.clients} annotators, {args.seconds:.0f} s measured after "
              f"{args.warmup:.0f} s of warm-up, think {args.think} s mean, gunicorn "
              f"{args.workers} workers x {args.threads} threads, PostgreSQL, "
              f"{os.cpu_count()} CPUs")  # fmt: skip
        print(f"throughput {total / args.seconds:.0f} req/s ({total} measured answers); load "
              f"average before/after {load_before:.1f} / {os.getloadavg()[0]:.1f}")  # fmt: skip
        ping95 = pct(rec.times["ping"], 0.95)
        print(f"{'request':<26}{'n':>7}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}{'p95/ping':>10}")
        for kind in KINDS:
            v = rec.times[kind]
            p95 = pct(v, 0.95)
            print(f"{NAMES[kind]:<26}{len(v):>7}{pct(v, .5) * 1e3:>9.1f}{p95 * 1e3:>9.1f}"
                  f"{max(v, default=float('nan')) * 1e3:>9.1f}{p95 / ping95:>10.2f}")  # fmt: skip
        print(f"errors {len(rec.errors)}; acknowledged saves {len(rec.acks)}, revision rows "
              f"{len(rows)}, lost {len(lost)}; conflicts (409, not acknowledged) "
              f"{rec.conflicts}; requests sent again after a keep-alive close "
              f"{rec.reconnects}")  # fmt: skip
        for line in rec.errors[:5]:
            print("  error:", re.sub(r"\s+", " ", line)[:300])
        media95 = max(pct(rec.times["source"], 0.95), pct(rec.times["clip"], 0.95))
        goals = {
            "0 errors": not rec.errors,
            "0 lost writes": not lost and len(rows) == len(rec.acks),
            "autosave p95 <= 50 ms": pct(rec.times["save"], 0.95) <= 0.050,
            "media first byte p95 <= 50 ms (source and clip)": media95 <= 0.050,
        }
        for goal, ok in goals.items():
            print(f"{'PASS' if ok else 'FAIL'}  {goal}")
        return 0 if all(goals.values()) else 1
    finally:
        shut_down(server, base, args.database)
        import shutil

        shutil.rmtree(media_root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
