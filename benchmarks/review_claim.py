"""Benchmark: 50 concurrent reviewers claiming and submitting campaign items (issue 12).

A frozen manifest of --items steps on PostgreSQL, a campaign asking 3 distinct reviewers per
item, served by gunicorn on 127.0.0.1 (with a benchmark-only campaign kind, see
review_claim_wsgi.py). Each client is its own reviewer with its own logged-in session and loops
for a bounded time:
  - claim        POST /api/review/campaigns/<id>/claim/        (SELECT … FOR UPDATE SKIP LOCKED),
  - submit       POST /api/review/assignments/<token>/submit/  (after a think time),
  - a trivial request GET /api/annotation/ping/ (the same session auth and middleware, no query
    of its own) between them: the baseline measured in the same run.
A claim that finds nothing free for the reviewer right now ("waiting") is timed as a claim too.

Printed: p50 / p95 / max per request kind, ratios to the trivial request, and the checks:
0 double leases (the claim-to-submit spans of one item never overlap between two reviewers,
measured on the clients' shared monotonic clock, and no item has more than 3 reviewers) and 0
lost decisions (every acknowledged submit is exactly one submission row with its payload).

Goals: claim and submit p95 <= 50 ms and <= 3x the trivial request; 0 double leases; 0 lost.

Run from the repository root (the database named by --database is created and dropped):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/review_claim.py
Options: --clients 50 --seconds 20 --warmup 3 --think 0.3 --items 756 --workers 3 --threads 8
         --direct 200 (in-process claim + submit rounds after the load, beside SELECT 1)
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import multiprocessing
import os
import random
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from workspace_api import (  # noqa: E402
    admin_url,
    create_database,
    free_port,
    pct,
    shut_down,
)

S = 1_000_000
PASSWORD = "bench-" + secrets.token_urlsafe(12)
KINDS = ("ping", "claim", "submit")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument(
        "--think", type=float, default=0.3, help="mean pause between requests (uniform 0..2x)"
    )
    parser.add_argument("--items", type=int, default=756)
    parser.add_argument("--per-item", type=int, default=3)
    parser.add_argument("--processes", type=int, default=5)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--direct", type=int, default=200, help="in-process claim+submit rounds")
    parser.add_argument("--explain", action="store_true", help="print the claim query's plan")
    parser.add_argument("--database", default=f"bench_review_{os.getpid()}")
    return parser.parse_args()


def seed(n_items: int, n_clients: int, per_item: int):
    """An annotator's ``n_items`` labelled steps over a few video rows (through the services),
    a frozen release and manifest of all of them, ``n_clients`` reviewers in one campaign."""
    import hashlib

    from django.contrib.auth import get_user_model
    from django.test import Client
    from review_claim_wsgi import register

    from annotation.releases import release_freeze
    from annotation.services import step_create
    from media.models import Scene, SourceVideo
    from review.campaigns.services import campaign_create
    from review.manifests.services import design_create, manifest_freeze
    from studio.roles import sync_role_groups

    register()
    sync_role_groups()
    users = get_user_model().objects
    annotator = users.create_user(username="bench-annotator", password=PASSWORD)
    scene = Scene.objects.create(slug="indoor/kitchen", name="Kitchen", setting="indoor")
    per_video = 300
    for v in range((n_items + per_video - 1) // per_video):
        seconds, fps = 20 * 60, 30
        video = SourceVideo(
            scene=scene, title=f"bench-{v}.mp4", file=f"sources/bench-{v}.mp4",
            sha256=hashlib.sha256(f"bench{v}".encode()).hexdigest(), size_bytes=1,
            container="mov,mp4", codec="h264", width=1280, height=720, fps_num=fps,
            duration_us=seconds * S,
        )  # fmt: skip
        video.set_frame_times_us([round(i * S / fps) for i in range(seconds * fps)])
        video.save()
        span = video.duration_us // per_video
        for i in range(min(per_video, n_items - v * per_video)):
            start = i * span
            step_create(
                video=video, author=annotator, start_us=start, cutoff_us=start + span // 2,
                outcome_us=start + span // 2, end_us=start + span - S // 30,
                local_intent=f"step {i}", procedural_intent="why", next_step="next",
            )  # fmt: skip
    release = release_freeze(name="bench_release", author=annotator)
    design = design_create(
        author=annotator, name="bench_manifest", method="stratified", release=release, seed=1,
        params={"target_n": n_items, "cover": []}, kind="audit",
    )  # fmt: skip
    manifest = manifest_freeze(design=design, author=annotator)
    reviewers = [
        users.create_user(username=f"bench-reviewer-{k:02d}", password=PASSWORD)
        for k in range(n_clients)
    ]
    campaign = campaign_create(
        name="bench", kind="bench", manifest=manifest, people=reviewers, per_item=per_item,
        seed=7,
    )  # fmt: skip
    sessions = []
    for reviewer in reviewers:
        client = Client()
        client.force_login(reviewer)
        sessions.append(client.cookies["sessionid"].value)
    return campaign.pk, manifest.sample_count, sessions


class Recorder:
    def __init__(self):
        self.lock = threading.Lock()
        self.times: dict[str, list[float]] = {k: [] for k in KINDS}
        self.acks: list[tuple[str, str]] = []  # (token, answer) of every 201
        self.spans: list[tuple[str, int, float, float]] = []  # (token, client, held from, to)
        self.waiting = 0
        self.errors: list[str] = []


def client_loop(k, args, port, campaign_id, session, stop_at, rec: Recorder):
    csrf = secrets.token_hex(16)
    headers = {
        "Cookie": f"sessionid={session}; csrftoken={csrf}", "Accept": "application/json",
        "Content-Type": "application/json", "X-CSRFToken": csrf,
    }  # fmt: skip
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    rng = random.Random(k)
    measure_from = stop_at - args.seconds
    token, held_from = None, 0.0
    time.sleep(rng.uniform(0, 2 * args.think))

    def call(kind, method, url, body=None):
        nonlocal conn
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
            return None, None
        elapsed = time.perf_counter() - t0
        if time.monotonic() - elapsed >= measure_from:
            with rec.lock:
                rec.times[kind].append(elapsed)
        return response.status, data

    while time.monotonic() < stop_at:
        if rng.random() < 0.5:
            status, data = call("ping", "GET", "/api/annotation/ping/")
            if status not in (200, None):
                rec.errors.append(f"ping: HTTP {status}")
        elif token is None:
            status, data = call("claim", "POST", f"/api/review/campaigns/{campaign_id}/claim/")
            if status == 200:
                body = json.loads(data)
                token, held_from = body["token"], time.monotonic()
                if token is None:
                    with rec.lock:
                        rec.waiting += 1
            elif status is not None:
                rec.errors.append(f"claim: HTTP {status} {data[:200]!r}")
        else:
            answer = rng.choice(("yes", "no"))
            held_to = time.monotonic()
            payload = json.dumps({"part": "", "payload": {"answer": answer}})
            status, data = call("submit", "POST", f"/api/review/assignments/{token}/submit/",
                                payload)  # fmt: skip
            with rec.lock:
                rec.spans.append((token, k, held_from, held_to))
                if status == 201:
                    rec.acks.append((token, answer))
                elif status is not None:
                    rec.errors.append(f"submit: HTTP {status} {data[:200]!r}")
            token = None
        time.sleep(rng.uniform(0, 2 * args.think))
    conn.close()


def client_process(group, args, port, campaign_id, sessions, stop_at, queue):
    rec = Recorder()
    threads = [
        threading.Thread(target=client_loop, args=(k, args, port, campaign_id, s, stop_at, rec))
        for k, s in zip(group, sessions, strict=True)
    ]
    while time.monotonic() < stop_at - args.seconds - args.warmup:
        time.sleep(0.01)
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    queue.put({"times": rec.times, "acks": rec.acks, "spans": rec.spans,
               "waiting": rec.waiting, "errors": rec.errors})  # fmt: skip


def check(rec: Recorder, per_item: int) -> dict:
    """Double leases and lost decisions, from the database and the clients' records."""
    from review.campaigns.models import Assignment, Submission

    item_of = dict(Assignment.objects.values_list("token", "item_id"))
    by_item = defaultdict(list)
    for token, client, start, end in rec.spans:
        by_item[item_of[token]].append((start, end, client))
    overlaps = 0
    for spans in by_item.values():
        spans.sort()
        for (_, end_a, a), (start_b, _, b) in itertools.pairwise(spans):
            if a != b and start_b < end_a:
                overlaps += 1
    people = defaultdict(set)
    for item_id, person_id in Assignment.objects.filter(committed=True).values_list(
        "item_id", "person_id"
    ):
        people[item_id].add(person_id)
    crowded = sum(1 for p in people.values() if len(p) > per_item)
    rows = {
        token: payload["answer"]
        for token, payload in Submission.objects.values_list("assignment__token", "payload")
    }
    lost = [a for a in rec.acks if rows.get(a[0]) != a[1]]
    return {"overlaps": overlaps, "crowded": crowded, "lost": lost, "rows": len(rows)}


def in_process(campaign_id: int, rounds: int, explain: bool) -> dict[str, list[float]]:
    """The same work without HTTP, one caller at a time, after the load: claim_next and submit
    through the services beside ``SELECT 1`` on the same connection (the database's floor)."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from review.campaigns.models import Campaign
    from review.campaigns.services import _candidates, claim_next, submit
    from studio.services import now

    campaign = Campaign.objects.get(pk=campaign_id)
    people = list(get_user_model().objects.filter(campaigns=campaign).order_by("pk"))
    if explain:
        with transaction.atomic(), connection.cursor() as cursor:
            sql, params = _candidates(campaign, people[0], now()).query.sql_with_params()
            cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql} LIMIT 1", params)
            print("the claim's candidate query:")
            print("\n".join("  " + row[0] for row in cursor.fetchall()))
    times: dict[str, list[float]] = {"select 1": [], "claim_next": [], "submit": []}
    for n in range(rounds):
        person = people[n % len(people)]
        t0 = time.perf_counter()
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        t1 = time.perf_counter()
        assignment = claim_next(campaign=campaign, person=person)
        t2 = time.perf_counter()
        if assignment is None:
            continue
        submit(assignment=assignment, person=person, part="", payload={"answer": "yes"})
        t3 = time.perf_counter()
        times["select 1"].append(t1 - t0)
        times["claim_next"].append(t2 - t1)
        times["submit"].append(t3 - t2)
    return times


def main() -> int:
    args = parse_args()
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith(("postgres://", "postgresql://")):
        print("DATABASE_URL must point at a PostgreSQL server (any database on it).")
        return 2
    bench_url = admin_url(base, args.database)
    create_database(base, args.database)
    env = dict(os.environ, DATABASE_URL=bench_url, DJANGO_DEBUG="false", LOG_LEVEL="WARNING",
               PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'benchmarks'}",
               DJANGO_SETTINGS_MODULE="studio.settings")  # fmt: skip
    os.environ.update(env)
    server = None
    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env,
                       check=True)  # fmt: skip
        import django

        django.setup()
        from django.db import connection

        t0 = time.perf_counter()
        campaign_id, items, sessions = seed(args.items, args.clients, args.per_item)
        print(f"seeded {items} items, {args.clients} reviewers in {time.perf_counter() - t0:.1f} s")
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "review_claim_wsgi:application",
             "-b", f"127.0.0.1:{port}", "-w", str(args.workers), "-k", "gthread",
             "--threads", str(args.threads), "--log-level", "warning"],
            cwd=ROOT, env=env, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.2)
        connection.close()  # the client processes are forked: they must not share it
        ctx = multiprocessing.get_context("fork")
        load_before = os.getloadavg()[0]
        queue = ctx.Queue()
        groups = [list(range(args.clients))[p :: args.processes] for p in range(args.processes)]
        stop_at = time.monotonic() + 1.0 + args.warmup + args.seconds
        procs = [
            ctx.Process(target=client_process, args=(group, args, port, campaign_id,
                                                     [sessions[k] for k in group], stop_at,
                                                     queue))
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
            rec.spans.extend(tuple(s) for s in part["spans"])
            rec.waiting += part["waiting"]
            rec.errors.extend(part["errors"])
        for proc in procs:
            proc.join()
        result = check(rec, args.per_item)
        from review_claim_wsgi import register

        register()
        direct = in_process(campaign_id, args.direct, args.explain)
        connection.close()

        total = sum(len(v) for v in rec.times.values())
        print(f"\n{args.clients} reviewers, {args.seconds:.0f} s measured after "
              f"{args.warmup:.0f} s of warm-up, think {args.think} s mean, gunicorn "
              f"{args.workers} workers x {args.threads} threads, PostgreSQL, "
              f"{os.cpu_count()} CPUs")  # fmt: skip
        print(f"throughput {total / args.seconds:.0f} req/s ({total} timed requests); machine "
              f"load average before/after: {load_before:.1f} / {os.getloadavg()[0]:.1f}")  # fmt: skip
        print(f"{'request':<32}{'n':>7}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}")
        names = {"ping": "trivial (ping)", "claim": "claim (POST claim)",
                 "submit": "submit (POST submit)"}  # fmt: skip
        for kind in KINDS:
            values = rec.times[kind]
            print(f"{names[kind]:<32}{len(values):>7}{pct(values, .5) * 1e3:>9.1f}"
                  f"{pct(values, .95) * 1e3:>9.1f}{max(values, default=float('nan')) * 1e3:>9.1f}")  # fmt: skip
        print("in process, one caller, after the load (the database work without HTTP):")
        for kind, values in direct.items():
            print(f"  {kind:<30}{len(values):>7}{pct(values, .5) * 1e3:>9.2f}"
                  f"{pct(values, .95) * 1e3:>9.2f}{max(values, default=float('nan')) * 1e3:>9.2f}")  # fmt: skip
        ping95 = pct(rec.times["ping"], 0.95)
        claim95, submit95 = pct(rec.times["claim"], 0.95), pct(rec.times["submit"], 0.95)
        print(f"ratio claim p95 / trivial p95 = {claim95 / ping95:.2f}  (goal <= 3)")
        print(f"ratio submit p95 / trivial p95 = {submit95 / ping95:.2f}  (goal <= 3)")
        print(f"acknowledged submits {len(rec.acks)}, submission rows {result['rows']}, lost "
              f"{len(result['lost'])}; overlapping holds {result['overlaps']}, items with more "
              f"than {args.per_item} reviewers {result['crowded']}; claims that found nothing "
              f"free {rec.waiting}; errors {len(rec.errors)}")  # fmt: skip
        for line in rec.errors[:5]:
            print("  error:", line)
        goals = {
            "claim p95 <= 50 ms": claim95 <= 0.050,
            "claim p95 <= 3x trivial p95": claim95 <= 3 * ping95,
            "submit p95 <= 50 ms": submit95 <= 0.050,
            "submit p95 <= 3x trivial p95": submit95 <= 3 * ping95,
            "0 double leases": result["overlaps"] == 0 and result["crowded"] == 0,
            "0 lost decisions": not result["lost"] and result["rows"] == len(rec.acks),
            "no errors": not rec.errors,
        }
        for goal, ok in goals.items():
            print(f"{'PASS' if ok else 'FAIL'}  {goal}")
        return 0 if all(goals.values()) else 1
    finally:
        shut_down(server, base, args.database)


if __name__ == "__main__":
    sys.exit(main())
