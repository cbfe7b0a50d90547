"""A progress bar for the run commands (drawn on stderr, one line)."""

from __future__ import annotations

import sys
import time

from scoring.models import Run, RunStatus
from scoring.runs.progress import run_progress


def bar(progress: dict, width: int = 30) -> str:
    total = progress["items"] or 1
    filled = int(width * progress["done"] / total)
    o = progress["outcomes"]
    eta = progress["eta_seconds"]
    return (
        f"[{'#' * filled}{'.' * (width - filled)}] {progress['done']}/{progress['items']} "
        f"ok {o['ok']} parse {o['parse_failure']} refusal {o['refusal']} "
        f"api {o['api_error']}"
        + (f" not asked {o['not_asked']}" if o.get("not_asked") else "")
        + f" | {progress['requests']} requests, "
        f"{progress['items_per_second']}/s" + (f", ETA {eta} s" if eta else "")
    )


def wait(run: Run, *, poll: float = 1.0, stream=None) -> dict:
    """Draw the bar until the run is no longer running; returns the last progress."""
    stream = stream or sys.stderr
    while True:
        run.refresh_from_db()
        progress = run_progress(run)
        stream.write("\r" + bar(progress))
        stream.flush()
        if run.status != RunStatus.RUNNING:
            stream.write("\n")
            return progress
        time.sleep(poll)


def report_started(run: Run, *, wait_for_it: bool, stdout, stderr) -> None:
    """What a command that started (or resumed) ``run`` prints: its bar, then either the bar
    drawn until it ends (``--wait``) or how to follow it."""
    stdout.write(f"run {run.name}: {bar(run_progress(run))}")
    if wait_for_it:
        progress = wait(run, stream=stderr)
        stdout.write(f"run {run.name} {progress['status']}: {bar(progress)}")
    else:
        stdout.write(f"follow it with: manage.py run_show {run.name}")
