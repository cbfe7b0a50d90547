"""``make run``: the web server and a real Celery worker side by side, stopped together.

Ctrl-C (or SIGTERM) stops both: the signal is passed on, each child gets 15 s to finish its
current request or task, then it is killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    host = os.environ.get("STUDIO_HOST", "127.0.0.1")
    port = os.environ.get("STUDIO_PORT", "8000")
    concurrency = os.environ.get("WORKER_CONCURRENCY", str(min(os.cpu_count() or 1, 4)))
    python = sys.executable
    children = {
        # gunicorn rather than runserver: it stops at once on SIGINT and drains on SIGTERM,
        # where runserver waits for idle keep-alive connections of the video player.
        "web": subprocess.Popen(
            [
                python,
                "-m",
                "gunicorn",
                "studio.wsgi",
                "--bind",
                f"{host}:{port}",
                "--workers",
                "1",
                "--threads",
                "8",
                "--graceful-timeout",
                "10",
                "--access-logfile",
                "-",
            ],
            cwd=ROOT,
        ),
        "worker": subprocess.Popen(
            [
                python,
                "-m",
                "celery",
                "-A",
                "studio",
                "worker",
                "-Q",
                "default,media",
                "-c",
                concurrency,
                "--loglevel",
                "INFO",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
        ),
        # Model and judge calls wait on the network: many threads in one process (48: the 40
        # drivers of an endpoint at concurrency 32). Two malloc arenas instead of one per thread
        # pair keep the megabyte request bodies of frames calls from fragmenting the heap.
        "models": subprocess.Popen(
            [
                python,
                "-m",
                "celery",
                "-A",
                "studio",
                "worker",
                "-Q",
                "models",
                "-P",
                "threads",
                "-c",
                os.environ.get("MODEL_WORKER_THREADS", "48"),
                "-n",
                "models@%h",
                "--loglevel",
                "INFO",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
            env={"MALLOC_ARENA_MAX": "2", **os.environ},
        ),
    }
    if not os.environ.get("CELERY_BROKER_URL", "").startswith(("redis://", "rediss://")):
        # The embedded default also runs the stand-in provider the demo endpoints point at.
        children["stand-in"] = subprocess.Popen(
            [python, "manage.py", "serve_stand_in_provider", "--latency-ms", "300"], cwd=ROOT
        )
    print(
        f"Intent Studio on http://{host}:{port}/ (Ctrl-C stops web server and worker)", flush=True
    )

    stopping = False

    def stop(signum, _frame):
        nonlocal stopping
        if stopping:
            return
        stopping = True
        for child in children.values():
            if child.poll() is None:
                child.send_signal(signal.SIGTERM if signum == signal.SIGTERM else signal.SIGINT)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)

    # Whichever child ends first ends the pair: a worker without a web server is no app.
    while not stopping and all(child.poll() is None for child in children.values()):
        time.sleep(0.2)
    if not stopping:
        for name, child in children.items():
            if child.poll() is not None:
                print(f"{name} exited with code {child.returncode}; stopping", file=sys.stderr)
        stop(signal.SIGTERM, None)

    deadline = time.monotonic() + 15
    clean = True
    for name, child in children.items():
        try:
            child.wait(timeout=max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            print(f"{name} did not stop within 15 s; killed", file=sys.stderr, flush=True)
            child.kill()
            child.wait()
            clean = False
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
