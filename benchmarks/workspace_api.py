"""Benchmark: the annotation workspace API under 50 concurrent annotators (issue 4).

A video with 300 steps on PostgreSQL, served by gunicorn on 127.0.0.1. Concurrent clients, each
with its own logged-in session, loop for a bounded time over a mix of
  - workspace loads   GET  /api/annotation/videos/<id>/workspace/   (video + 300 steps),
  - autosaves         PATCH /api/annotation/steps/<id>/             (a label, with the version),
  - frame-time index  GET  /api/annotation/videos/<id>/frame-times/ (first visit, no ETag),
  - a trivial request GET  /api/annotation/ping/                    (the same session auth and
    middleware stack, no query of its own): the baseline measured in the same run,
with a think time between requests (an annotator's autosave is debounced; ``--think 0`` turns
every client into a closed loop at full speed). Each client edits its own share of the steps.

Printed: p50 / p95 / max per request kind, the ratios to the trivial request, throughput, and
the check that nothing was lost: every acknowledged save must be exactly one revision row whose
values hold the text that was sent, and the revision count must equal the acknowledged saves.

Goals: autosave p95 <= 50 ms and <= 3x the trivial request; workspace load p95 <= 300 ms; zero
lost writes.

Run from the repository root (PostgreSQL must be reachable; the database named by --database is
created and dropped):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/workspace_api.py
Options: --clients 50 --seconds 20 --warmup 3 --think 0.5 --workers 3 --threads 8 --steps 300
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
S = 1_000_000
PASSWORD = "bench-" + secrets.token_urlsafe(12)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument(
        "--think",
        type=float,
        default=0.5,
        help="mean pause between a client's requests, seconds (uniform 0..2x)",
    )
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument(
        "--warmup", type=float, default=3.0, help="seconds of load before measuring starts"
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=5,
        help="client processes the clients are spread over (one Python process "
        "with 50 threads would measure its own GIL, not the server)",
    )
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--database", default=f"bench_workspace_{os.getpid()}")
    parser.add_argument(
        "--mix",
        default="load=1,frames=0.5,save=6,ping=3",
        help="relative weights of the request kinds",
    )
    return parser.parse_args()


def admin_url(base: str, database: str) -> str:
    parsed = urlparse(base)
    return urlunparse(parsed._replace(path=f"/{database}"))


def create_database(base_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin_url(base_url, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')


def drop_database(base_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin_url(base_url, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def shut_down(server: subprocess.Popen | None, base_url: str, database: str) -> None:
    """Stop the benchmark's gunicorn (its whole process group), close this process's
    connections and drop the throwaway database."""
    if server is not None and server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
    if "django" in sys.modules and sys.modules["django"].apps.apps.ready:
        from django.db import connections

        connections.close_all()
    drop_database(base_url, database)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def seed(n_steps: int, n_sessions: int):
    """A scene, a 20-minute 30 fps video row with its frame-time index, an annotator with the
    video assigned, ``n_steps`` labelled steps created through the services, and sessions."""
    import hashlib

    from django.contrib.auth import get_user_model
    from django.test import Client

    from annotation.models import VideoAssignment
    from annotation.services import step_create
    from media.models import Scene, SourceVideo
    from studio.roles import ANNOTATOR, sync_role_groups

    sync_role_groups()
    from django.contrib.auth.models import Group

    scene = Scene.objects.create(slug="indoor/kitchen", name="Kitchen", setting="indoor")
    seconds, fps = 20 * 60, 30
    video = SourceVideo(
        scene=scene, title="bench.mp4", file="sources/bench.mp4",
        sha256=hashlib.sha256(b"bench").hexdigest(), size_bytes=1, container="mov,mp4",
        codec="h264", width=1280, height=720, fps_num=fps, duration_us=seconds * S,
    )  # fmt: skip
    video.set_frame_times_us([round(i * S / fps) for i in range(seconds * fps)])
    video.save()
    user = get_user_model().objects.create_user(username="bench-annotator", password=PASSWORD)
    user.groups.add(Group.objects.get(name=ANNOTATOR))
    VideoAssignment.objects.create(video=video, annotator=user)
    span = video.duration_us // n_steps
    steps = []
    for i in range(n_steps):
        start = i * span
        step = step_create(
            video=video, author=user, start_us=start, cutoff_us=start + span // 2,
            outcome_us=start + span // 2, end_us=start + span - S // 30,
            local_intent=f"step {i}", procedural_intent="why", next_step="next",
            plausible_next_steps=["one", "two"],
        )  # fmt: skip
        steps.append((step.pk, step.version))
    sessions = []
    for _ in range(n_sessions):
        client = Client()
        client.force_login(user)
        sessions.append(client.cookies["sessionid"].value)
    return video.pk, steps, sessions


class Recorder:
    def __init__(self):
        self.lock = threading.Lock()
        self.times: dict[str, list[float]] = {"load": [], "frames": [], "save": [], "ping": []}
        self.acks: list[tuple[int, int, str]] = []  # (step id, version, text)
        self.conflicts = 0
        self.errors: list[str] = []


def client_loop(k, args, port, video_id, my_steps, session, stop_at, rec: Recorder, weights):
    csrf = secrets.token_hex(16)  # a 32-character secret, sent as cookie and header
    cookie = f"sessionid={session}; csrftoken={csrf}"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    rng = random.Random(k)
    versions = dict(my_steps)
    ids = list(versions)
    kinds, wts = zip(*weights.items(), strict=True)
    # Latencies count from the end of the warm-up (every client connected, every server thread
    # holding its database connection); saves are checked for loss from the very first one.
    measure_from = stop_at - args.seconds
    time.sleep(rng.uniform(0, 2 * args.think))  # clients do not all start in the same instant
    n = 0
    while time.monotonic() < stop_at:
        kind = rng.choices(kinds, wts)[0]
        headers = {"Cookie": cookie, "Accept": "application/json"}
        body = None
        if kind == "load":
            method, url = "GET", f"/api/annotation/videos/{video_id}/workspace/"
        elif kind == "frames":  # without If-None-Match: the first visit, the worst case
            method, url = "GET", f"/api/annotation/videos/{video_id}/frame-times/"
        elif kind == "ping":
            method, url = "GET", "/api/annotation/ping/"
        else:
            step_id = rng.choice(ids)
            n += 1
            text = f"client {k} edit {n}"
            method, url = "PATCH", f"/api/annotation/steps/{step_id}/"
            body = json.dumps({"version": versions[step_id], "local_intent": text})
            headers.update({"Content-Type": "application/json", "X-CSRFToken": csrf})
        t0 = time.perf_counter()
        try:
            conn.request(method, url, body=body, headers=headers)
            response = conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as exc:
            with rec.lock:
                rec.errors.append(f"{kind}: {exc!r}")
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            continue
        elapsed = time.perf_counter() - t0
        with rec.lock:
            if response.status == 200:
                if time.monotonic() - elapsed >= measure_from:
                    rec.times[kind].append(elapsed)
                if kind == "save":  # only small answers are parsed; a load is just read
                    saved = json.loads(data)["steps"][0]
                    versions[step_id] = saved["version"]
                    rec.acks.append((step_id, saved["version"], text))
            elif kind == "save" and response.status == 409:
                rec.conflicts += 1
                versions[step_id] = json.loads(data)["stored"]["version"]
            else:
                rec.errors.append(f"{kind} {url}: HTTP {response.status} {data[:200]!r}")
        if args.think:
            time.sleep(rng.uniform(0, 2 * args.think))
    conn.close()


def client_process(group, args, port, video_id, shares, sessions, stop_at, weights, queue):
    """One client process: its clients as threads; sends what it measured back as one message."""
    rec = Recorder()
    threads = [
        threading.Thread(target=client_loop, args=(k, args, port, video_id, share, session,
                                                   stop_at, rec, weights))
        for k, share, session in zip(group, shares, sessions, strict=True)
    ]  # fmt: skip
    while time.monotonic() < stop_at - args.seconds - args.warmup:
        time.sleep(0.01)
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    queue.put({"times": rec.times, "acks": rec.acks, "conflicts": rec.conflicts,
               "errors": rec.errors})  # fmt: skip


def pct(values, q):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    args = parse_args()
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith(("postgres://", "postgresql://")):
        print("DATABASE_URL must point at a PostgreSQL server (any database on it).")
        return 2
    bench_url = admin_url(base, args.database)
    create_database(base, args.database)
    env = dict(os.environ, DATABASE_URL=bench_url, DJANGO_DEBUG="false", LOG_LEVEL="WARNING",
               PYTHONPATH=str(ROOT), DJANGO_SETTINGS_MODULE="studio.settings")  # fmt: skip
    os.environ.update(env)
    server = None
    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env,
                       check=True)  # fmt: skip
        import django

        django.setup()
        from django.db import connection

        t0 = time.perf_counter()
        video_id, steps, sessions = seed(args.steps, args.clients)
        print(f"seeded {len(steps)} steps through the services in {time.perf_counter() - t0:.1f} s")

        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "studio.wsgi", "-b", f"127.0.0.1:{port}",
             "-w", str(args.workers), "-k", "gthread", "--threads", str(args.threads),
             "--log-level", "warning"],
            cwd=ROOT, env=env, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.2)
        weights = {k: float(v) for k, v in (p.split("=") for p in args.mix.split(","))}

        # Warm every worker (imports, first connections) outside the measurement.

        shares = [steps[k :: args.clients] for k in range(args.clients)]
        connection.close()  # the client processes are forked: they must not share it
        ctx = multiprocessing.get_context("fork")
        load_before = os.getloadavg()[0]
        queue = ctx.Queue()
        groups = [list(range(args.clients))[p :: args.processes] for p in range(args.processes)]
        # Everyone starts together once every process is up, warms up, then is measured.
        stop_at = time.monotonic() + 1.0 + args.warmup + args.seconds
        procs = [
            ctx.Process(target=client_process, args=(group, args, port, video_id,
                                                     [shares[k] for k in group],
                                                     [sessions[k] for k in group],
                                                     stop_at, weights, queue))
            for group in groups if group
        ]  # fmt: skip
        for proc in procs:
            proc.start()
        rec = Recorder()
        for _ in procs:
            part = queue.get(timeout=args.seconds + 120)
            for kind, values in part["times"].items():
                rec.times[kind].extend(values)
            rec.acks.extend(tuple(a) for a in part["acks"])
            rec.conflicts += part["conflicts"]
            rec.errors.extend(part["errors"])
        for proc in procs:
            proc.join()
        wall = args.seconds

        # Zero lost writes: every acknowledged save is exactly one revision holding its text.
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
        print(f"\n{args.clients} clients, {args.seconds:.0f} s measured after {args.warmup:.0f} s "
              f"of warm-up, think {args.think} s mean, "
              f"gunicorn {args.workers} workers x {args.threads} threads, PostgreSQL, "
              f"{os.cpu_count()} CPUs")  # fmt: skip
        print(f"throughput {total / wall:.0f} req/s ({total} answered requests); machine load "
              f"average before/after: {load_before:.1f} / {os.getloadavg()[0]:.1f}")  # fmt: skip
        print(f"{'request':<30}{'n':>7}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}")
        names = {"ping": "trivial (ping)", "save": "autosave (PATCH step)",
                 "load": "workspace load (300 steps)",
                 "frames": "frame times (36,000 frames)"}  # fmt: skip
        for kind in ("ping", "save", "load", "frames"):
            values = rec.times[kind]
            print(f"{names[kind]:<30}{len(values):>7}{pct(values, .5) * 1e3:>9.1f}"
                  f"{pct(values, .95) * 1e3:>9.1f}{max(values, default=float('nan')) * 1e3:>9.1f}")  # fmt: skip
        ping95 = pct(rec.times["ping"], 0.95)
        save95 = pct(rec.times["save"], 0.95)
        load95 = pct(rec.times["load"], 0.95)
        print(f"ratio autosave p95 / trivial p95 = {save95 / ping95:.2f}  (goal <= 3)")
        print(f"ratio autosave p50 / trivial p50 = "
              f"{pct(rec.times['save'], .5) / pct(rec.times['ping'], .5):.2f}")  # fmt: skip
        print(f"ratio workspace load p95 / trivial p95 = {load95 / ping95:.2f}")
        print(f"acknowledged saves {len(rec.acks)}, revision rows {len(rows)}, "
              f"lost {len(lost)}, conflicts (409, not acknowledged) {rec.conflicts}, "
              f"errors {len(rec.errors)}")  # fmt: skip
        for line in rec.errors[:5]:
            print("  error:", line)
        goals = {
            "autosave p95 <= 50 ms": save95 <= 0.050,
            "autosave p95 <= 3x trivial p95": save95 <= 3 * ping95,
            "workspace load p95 <= 300 ms": load95 <= 0.300,
            "zero lost writes": not lost and len(rows) == len(rec.acks),
        }
        for goal, ok in goals.items():
            print(f"{'PASS' if ok else 'FAIL'}  {goal}")
        return 0 if all(goals.values()) else 1
    finally:
        shut_down(server, base, args.database)


if __name__ == "__main__":
    sys.exit(main())
