"""Benchmark: peak memory of every import command on a 1,000,000-line file (goal: <= 200 MB).

Each of the eight import commands (import_steps, import_qa, audit_import_decisions,
boundary_import_decisions, baseline_import_responses, judge_validation_import_ratings,
import_predictions, import_judgements) reads a file of 1,000,000 lines, each a well-formed line
of that command's format that the command refuses (a video, a user or a step that is not there):
every line is read, decoded, parsed and checked, and the file is refused with 100 problems listed
and a count of the rest. Each command runs in its own process, so its peak RSS (VmHWM) is its
own. A line or two with a duplicate key, a bad byte and a NUL are mixed in.

Baselines measured in the same run, each in its own process:
- an idle Django process (what any command costs before it reads a byte);
- the whole-file reading the imports did before (``list`` of every parsed line, as the
  campaign imports did, and ``read_bytes().decode().splitlines()`` as the run imports did).

A second part imports good files: ``import_steps`` with ``--valid`` new steps (default 5,000)
and with a tenth of them, to show that writing does not hold the lines either.

Run (from the repository root):
    .venv/bin/python benchmarks/import_memory.py                    # SQLite
    .venv/bin/python benchmarks/import_memory.py --lines 200000     # a smaller file
    DATABASE_URL=postgres://USER@HOST:5432/postgres TEST_DATABASE_NAME=bench_imports \\
        .venv/bin/python benchmarks/import_memory.py                # PostgreSQL
It creates a throwaway database (SQLite: a temporary file; PostgreSQL: TEST_DATABASE_NAME,
default bench_imports) and drops it, and its files, at the end.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
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
GOAL_MB = 200


def _setup(database_url: str | None = None) -> None:
    if database_url:
        os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
    import django

    django.setup()


def _peak_rss_mb() -> float:
    """Peak resident memory of this process (VmHWM, its own address space since exec)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise SystemExit("VmHWM is not available (Linux only)")


# --- The files -----------------------------------------------------------------------------------


def _uid(n: int) -> str:
    return str(uuid.UUID(int=n + 1))


def _line(command: str, n: int) -> dict:
    """Line ``n`` of a file for ``command``: well formed, refused by what the database holds."""
    uid = _uid(n)
    if command == "import_steps":
        return {
            "uid": uid,
            "video_sha256": f"{n:064x}",
            "start_us": 0,
            "cutoff_us": S,
            "outcome_us": S,
            "end_us": 2 * S,
            "local_intent": f"pick up the cup number {n}",
            "procedural_intent": "to pour tea into it",
            "next_step": "put the cup down",
            "plausible_next_steps": ["wipe the cup", "fill the kettle"],
        }
    if command == "import_qa":
        turn = {"question": f"What is picked up ({n})?", "answer": "the cup", "options": None,
                "depends_on": [], "evidence": [{"start_us": 0, "end_us": S, "modality": "visual",
                                                "description": "the hand takes the cup"}]}  # fmt: skip
        return {
            "uid": uid, "video_sha256": f"{n:064x}", "split": "test", "structure": "node",
            "category": "object", "modality": "visual", "turn_count": 1, "episodes": ["e1"],
            "provenance": {"source_ids": [f"s{n}"], "generator_version": "v1"}, "turns": [turn],
        }  # fmt: skip
    if command in ("audit_import_decisions", "boundary_import_decisions"):
        key = "criterion" if command.startswith("audit") else "window"
        value = "C1" if command.startswith("audit") else "official"
        return {"kind": "decision", "reviewer": f"reviewer-{n}", "step": uid, key: value,
                "label": "valid", "comment": f"looks right to me ({n})"}  # fmt: skip
    if command == "baseline_import_responses":
        answer = {"answerable": True, "answers": [f"answer {n}"], "confidence": 3}
        return {"rater": f"rater-{n}", "step": uid, "local": answer, "procedural": answer,
                "next": answer, "seconds": 12.5}  # fmt: skip
    if command == "judge_validation_import_ratings":
        return {"rater": f"rater-{n}", "step": uid, "run": "p", "local": 80, "procedural": 60,
                "next": 40, "reason": "correct"}  # fmt: skip
    if command == "import_predictions":
        prediction = {"local_intent": f"pick up the cup {n}", "procedural_intent": "tea",
                      "next_step": "pour"}  # fmt: skip
        return {"sample": uid, "outcome": "ok", "prediction": prediction,
                "returned_model": "model-x", "raw_response": json.dumps(prediction)}  # fmt: skip
    if command == "import_judgements":
        return {"subject": {"kind": "prediction", "run": "p", "sample": uid},
                "judgement_outcome": "ok", "scores": {"local": 80, "procedural": 60, "next": 40},
                "justification": f"close to the reference ({n})"}  # fmt: skip
    raise ValueError(command)


def write_file(path: Path, command: str, lines: int) -> int:
    """The file; a duplicate key, a bad byte and a NUL early on. Returns its size in bytes."""
    with open(path, "wb") as out:
        for n in range(lines):
            text = json.dumps(_line(command, n), ensure_ascii=False).encode("utf-8")
            if n == 1:
                first = json.dumps(next(iter(_line(command, n)))).encode()
                text = text[:-1] + b", " + first + b": 1}"
            elif n == 2:
                text = text.replace(b"e", b"\xe9", 1)
            elif n == 3:
                text = text[:-1] + b', "note": "\\u0000"}'
            out.write(text + b"\n")
    return path.stat().st_size


COMMANDS = {
    "import_steps": lambda f: ["import_steps", f],
    "import_qa": lambda f: ["import_qa", f, "--name", "bench-qa"],
    "audit_import_decisions": lambda f: ["audit_import_decisions", "c-audit", f],
    "boundary_import_decisions": lambda f: ["boundary_import_decisions", "c-boundary", f],
    "baseline_import_responses": lambda f: ["baseline_import_responses", "c-baseline", f],
    "judge_validation_import_ratings": lambda f: [
        "judge_validation_import_ratings",
        "c-judgeval",
        f,
    ],
    "import_predictions": lambda f: [
        "import_predictions",
        "bench-in",
        f,
        "--release",
        "bench_r",
        "--condition",
        "prompt_only",
        "--endpoint",
        "bench-endpoint",
        "--package",
        "frames-prediction",
    ],
    "import_judgements": lambda f: [
        "import_judgements",
        "bench-judged",
        f,
        "--run",
        "p",
        "--endpoint",
        "bench-endpoint",
    ],
}


# --- What each command imports into -----------------------------------------------------------


def build_targets(valid_steps: int) -> None:
    """A release of a few steps, a manifest, one campaign of each kind, an endpoint, a run; and
    videos for ``valid_steps`` good steps."""
    from django.core.management import call_command

    from annotation.releases import release_freeze
    from annotation.services import step_create
    from media.models import Scene
    from review.campaigns.models import Campaign
    from review.models import Manifest
    from scoring.endpoints import endpoint_create
    from scoring.packages import package_resolve, packages_sync_builtin
    from scoring.runs import run_predict
    from tests.review.factories import make_source

    scene = Scene.objects.create(slug="indoor/bench", name="Bench", setting="indoor")
    video = make_source(scene=scene, name="bench-a", seconds=60)
    for i in range(3):
        step_create(video=video, author=None, start_us=i * 3 * S, cutoff_us=i * 3 * S + S,
                    outcome_us=i * 3 * S + S, end_us=i * 3 * S + 2 * S, local_intent=f"s{i}")  # fmt: skip
    release_freeze(name="bench_r", author=None, allow_incomplete=True)
    call_command(
        "freeze_manifest", "bench-m", "--release", "bench_r", "--kind", "audit", "--method",
        "stratified", "--seed", "1", "--params", '{"target_n": 2}', stdout=io.StringIO(),
    )  # fmt: skip
    manifest = Manifest.objects.get(name="bench-m")
    for name, kind in (("c-audit", "audit"), ("c-boundary", "boundary"),
                       ("c-baseline", "human_baseline"), ("c-judgeval", "judge_validation")):  # fmt: skip
        Campaign.objects.create(name=name, kind=kind, manifest=manifest, per_item=1, seed=0)
    packages_sync_builtin()
    endpoint = endpoint_create(name="bench-endpoint", base_url="http://127.0.0.1:9/v1", model="m")
    run_predict(
        name="p", endpoint=endpoint, package=package_resolve("frames-prediction"),
        condition="prompt_only", release=manifest.release,
    )  # fmt: skip
    # Videos for the good steps of part 2 (both sizes): 100 steps each (a 5-minute video).
    for v in range((valid_steps + valid_steps // 10 + 99) // 100 + 1):
        make_source(scene=scene, name=f"bench-valid-{v}", seconds=300)


def valid_steps_file(path: Path, count: int, first_video: int) -> None:
    from tests.review.factories import video_sha

    with open(path, "w", encoding="utf-8") as out:
        for n in range(count):
            video, k = divmod(n, 100)
            video += first_video
            t = k * 3 * S
            out.write(json.dumps({
                "video_sha256": video_sha(f"bench-valid-{video}"), "start_us": t,
                "cutoff_us": t + S, "outcome_us": t + S, "end_us": t + 2 * S,
                "local_intent": f"pick up the cup {n}", "procedural_intent": "to pour tea",
                "next_step": "put it down", "plausible_next_steps": ["wipe it"],
            }) + "\n")  # fmt: skip


# --- Children --------------------------------------------------------------------------------


def child(args) -> None:
    """One measured thing in a fresh process; prints its seconds, peak RSS and output size."""
    _setup(args.database_url)
    from django.core.management import CommandError, call_command

    start = time.perf_counter()
    said = io.StringIO()
    refused = False
    if args.child == "idle":
        from annotation.models import MicroStep

        MicroStep.objects.count()
    elif args.child == "whole-list":  # the campaign imports before: a list of every line
        from studio.jsonl import Problems, json_lines

        lines = list(json_lines(args.file, problems=Problems()))
        said.write(str(len(lines)))
    elif args.child == "whole-text":  # the run imports before: the file as text, split
        raw = Path(args.file).read_bytes()
        lines = [json.loads(x) for x in raw.decode("utf-8", "replace").splitlines()[4:]]
        said.write(str(len(lines)))
    else:
        try:
            call_command(*COMMANDS.get(args.child, lambda f: ["import_steps", f])(args.file),
                         stdout=said, stderr=said)  # fmt: skip
        except CommandError as exc:
            refused = True
            said.write(str(exc))
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "peak_rss_mb": _peak_rss_mb(), "refused": refused,
                      "output_bytes": len(said.getvalue().encode())}))  # fmt: skip


def run_child(kind: str, database_url: str, file: Path | None = None) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--child", kind, "--database-url", database_url,
         "--file", str(file or "")],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"child {kind} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--valid", type=int, default=5_000, help="good steps in part 2")
    parser.add_argument("--only", help="comma-separated commands (default: all eight)")
    parser.add_argument("--child")
    parser.add_argument("--database-url")
    parser.add_argument("--file")
    args = parser.parse_args()
    if args.child:
        child(args)
        return

    work = bench_database("import-bench-", "bench_imports")
    _setup()
    from django.db import connection

    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        url = database_url(connection)
        build_targets(args.valid)
        connection.close()
        print(f"database: {connection.vendor}; load average: {os.getloadavg()[0]:.1f}")
        idle = run_child("idle", url)
        print(f"idle Django process: peak RSS {idle['peak_rss_mb']:.0f} MB\n")
        commands = args.only.split(",") if args.only else list(COMMANDS)
        print(f"[1] {args.lines:,}-line files, every line refused (goal: peak <= {GOAL_MB} MB)")
        print(f"    {'command':34} {'file MB':>8} {'peak MB':>8} {'seconds':>8} {'output':>8}")
        worst = 0.0
        for command in commands:
            path = work / f"{command}.jsonl"
            size = write_file(path, command, args.lines)
            got = run_child(command, url, path)
            worst = max(worst, got["peak_rss_mb"])
            assert got["refused"], command
            print(f"    {command:34} {size / 2**20:8.0f} {got['peak_rss_mb']:8.0f} "
                  f"{got['seconds']:8.1f} {got['output_bytes']:7,}B")  # fmt: skip
            if command == "audit_import_decisions":
                whole = run_child("whole-list", url, path)
                text = run_child("whole-text", url, path)
            path.unlink()
        print(f"    worst peak: {worst:.0f} MB -> goal {'met' if worst <= GOAL_MB else 'MISSED'}")
        if "audit_import_decisions" in commands:
            print(
                f"    baseline, a list of every parsed line (campaign imports before): "
                f"{whole['peak_rss_mb']:.0f} MB; ours / baseline {worst / whole['peak_rss_mb']:.2f}x"
            )
            print(
                f"    baseline, the file as text, split (run imports before):         "
                f"{text['peak_rss_mb']:.0f} MB; ours / baseline {worst / text['peak_rss_mb']:.2f}x"
            )
            print(f"    ours above an idle process: {worst - idle['peak_rss_mb']:.0f} MB")  # fmt: skip

        if args.valid:
            print("\n[2] good steps written by import_steps (two passes, one transaction)")
            first_video = 0
            for count in (args.valid // 10, args.valid):
                path = work / f"valid-{count}.jsonl"
                valid_steps_file(path, count, first_video)
                first_video += (count + 99) // 100
                got = run_child(f"valid-{count}", url, path)
                assert not got["refused"], got
                print(f"    {count:>8,} steps: peak {got['peak_rss_mb']:.0f} MB in "
                      f"{got['seconds']:.0f} s")  # fmt: skip
                path.unlink()
    finally:
        connection.creation.destroy_test_db(
            os.environ["TEST_DATABASE_NAME"], verbosity=0, keepdb=False
        )
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
