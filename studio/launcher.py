"""``make run``: the web server, real Celery workers and the lease sweeper side by side.

The launcher supervises them: a child that dies is started again (with back-off) while the others
go on, so a killed worker comes back and the web server keeps serving. Ctrl-C (or SIGTERM) stops
them all: the signal is passed on, each child gets 15 s to finish its current request or task,
then it is killed. If the launcher itself is killed, its children get SIGTERM from the kernel.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from studio.processes import die_with_parent

ROOT = Path(__file__).resolve().parent.parent


def _celery_worker(python: str, *options: str) -> list[str]:
    """A Celery worker of the project with ``options`` (queues, pool, concurrency, name)."""
    return [
        python, "-m", "celery", "-A", "studio", "worker", *options,
        "--loglevel", "INFO", "--without-gossip", "--without-mingle",
    ]  # fmt: skip


def stand_in_wanted(python: str) -> bool:
    """Whether endpoints of the database point at the stand-in provider (the demo's do, on any
    broker): asked of ``manage.py``, so the launcher itself loads no Django."""
    check = subprocess.run(
        [python, "manage.py", "serve_stand_in_provider", "--in-use"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    if check.returncode not in (0, 3):
        print(f"could not tell whether endpoints use the stand-in provider; not starting it:\n"
              f"{check.stderr.strip()}", file=sys.stderr, flush=True)  # fmt: skip
    return check.returncode == 0


def child_commands(python: str, *, stand_in: bool) -> dict[str, list[str]]:
    """The command line of every child of ``make run`` (settings from the environment)."""
    host = os.environ.get("STUDIO_HOST", "127.0.0.1")
    port = os.environ.get("STUDIO_PORT", "8000")
    concurrency = os.environ.get("WORKER_CONCURRENCY", str(min(os.cpu_count() or 1, 4)))
    threads = os.environ.get("MODEL_WORKER_THREADS", "24")
    commands = {
        # gunicorn rather than runserver: it stops at once on SIGINT and drains on SIGTERM,
        # where runserver waits for idle keep-alive connections of the video player.
        "web": [
            python,
            "-m",
            "gunicorn",
            "studio.wsgi",
            "--config",
            "python:studio.gunicorn_conf",
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
        "worker": _celery_worker(python, "-Q", "default,media", "-c", concurrency),
        # Model and judge calls wait on the network: many threads (together 48: the 40 drivers
        # of an endpoint at concurrency 32) in two processes, so two cores share the work the
        # GIL would serialise (2,000 judge calls: 95 % of the ideal rate, one process of 48: 91 %;
        # docs/models.md). Two malloc arenas instead of one per thread pair keep the megabyte
        # request bodies of frames calls from fragmenting the heap (MALLOC_ARENA_MAX, set in
        # Child.start).
        **{
            f"models-{n}": _celery_worker(
                python, "-Q", "models", "-P", "threads", "-c", threads, "-n", f"models{n}@%h"
            )
            for n in range(1, int(os.environ.get("MODEL_WORKERS", "2")) + 1)
        },
    }
    if stand_in:
        # The stand-in provider the demo's endpoints point at, whatever the broker; with the
        # scripted answers the demo wrote (scoring/qa/demo.py), when there are any.
        commands["stand-in"] = [
            python, "manage.py", "serve_stand_in_provider", "--latency-ms", "300"
        ]  # fmt: skip
        rules = Path(os.environ.get("STUDIO_VAR_DIR", ROOT / "var")) / "stand-in-rules.json"
        if rules.is_file():
            commands["stand-in"] += ["--rules", str(rules)]
    # The embedded default's scheduler: re-enqueues work whose worker died (studio/leases.py).
    commands["sweeper"] = [python, "manage.py", "sweep_leases", "--loop"]
    return commands


def main() -> int:
    python = sys.executable
    commands = child_commands(python, stand_in=stand_in_wanted(python))
    host = os.environ.get("STUDIO_HOST", "127.0.0.1")
    port = os.environ.get("STUDIO_PORT", "8000")
    print(
        f"Intent Studio on http://{host}:{port}/ (Ctrl-C stops web server and worker)", flush=True
    )
    return Supervisor([Child(name, argv) for name, argv in commands.items()]).run()


@dataclass
class Child:
    """One supervised process and its restart history."""

    name: str
    argv: list[str]
    proc: subprocess.Popen | None = None
    started_at: float = 0.0
    starts: int = 0
    quick_exits: int = 0  # exits in a row, each within STABLE_SECONDS of its start
    restart_at: float | None = None

    def start(self) -> None:
        # SIGTERM rather than SIGKILL when the launcher itself is killed: each child still
        # stops the way it stops on Ctrl-C (gunicorn drains, Celery hands back its messages).
        # Two malloc arenas (unless set): threads' arenas otherwise fragment the heap.
        self.proc = subprocess.Popen(
            self.argv,
            cwd=ROOT,
            env={"MALLOC_ARENA_MAX": "2", **os.environ},
            preexec_fn=die_with_parent(signal.SIGTERM),
        )
        self.started_at = time.monotonic()
        self.starts += 1
        self.restart_at = None

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


class Supervisor:
    """Starts the children, restarts one that dies (with back-off), stops them all together.

    A child that dies while running is restarted: a killed worker comes back and the web server
    goes on serving meanwhile. Back-off doubles from ``BACKOFF_FIRST`` to ``BACKOFF_MAX`` seconds
    while a child keeps dying within ``STABLE_SECONDS`` of its start, and starts over once it ran
    that long. A child that dies within ``STARTUP_GRACE`` seconds of its very first start is a
    set-up problem (a port in use, a database that is not migrated): everything stops, with its
    exit code, rather than restarting in a loop. A child killed by a signal is always restarted.
    """

    STARTUP_GRACE = 10.0
    STABLE_SECONDS = 60.0
    BACKOFF_FIRST = 1.0
    BACKOFF_MAX = 30.0

    def __init__(self, children: list[Child]):
        self.children = children
        self.stopping = False

    def backoff(self, child: Child) -> float:
        return min(self.BACKOFF_FIRST * 2 ** max(child.quick_exits - 1, 0), self.BACKOFF_MAX)

    def _stop(self, signum, _frame=None) -> None:
        if self.stopping:
            return
        self.stopping = True
        for child in self.children:
            if child.running():
                child.proc.send_signal(
                    signal.SIGTERM if signum == signal.SIGTERM else signal.SIGINT
                )

    def _tick(self, now: float) -> bool:
        """One look at every child; False when the launcher must stop."""
        for child in self.children:
            if child.proc is not None and child.proc.poll() is not None:
                ran = now - child.started_at
                code = child.proc.returncode
                child.proc = None
                if child.starts == 1 and ran < self.STARTUP_GRACE and code >= 0:
                    print(f"{child.name} exited with code {code} at start; stopping",
                          file=sys.stderr, flush=True)  # fmt: skip
                    return False
                child.quick_exits = child.quick_exits + 1 if ran < self.STABLE_SECONDS else 1
                delay = self.backoff(child)
                child.restart_at = now + delay
                print(f"{child.name} exited with code {code} after {ran:.0f} s; restarting in "
                      f"{delay:.0f} s", file=sys.stderr, flush=True)  # fmt: skip
            elif child.proc is None and child.restart_at is not None and now >= child.restart_at:
                child.start()
                print(f"{child.name} restarted (pid {child.proc.pid})", file=sys.stderr, flush=True)
        return True

    def run(self) -> int:
        signal.signal(signal.SIGINT, self._stop)
        signal.signal(signal.SIGTERM, self._stop)
        for child in self.children:
            child.start()
        failed = False
        while not self.stopping:
            if not self._tick(time.monotonic()):
                failed = True
                self._stop(signal.SIGTERM)
                break
            time.sleep(0.2)
        return self._wait(failed)

    def _wait(self, failed: bool) -> int:
        # How long the children get to stop after Ctrl-C (a worker finishes its current task).
        grace = float(os.environ.get("STUDIO_STOP_SECONDS", "15"))
        deadline = time.monotonic() + grace
        clean = not failed
        for child in self.children:
            if child.proc is None:
                continue
            try:
                child.proc.wait(timeout=max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                message = f"{child.name} did not stop within {grace:g} s; killed"
                print(message, file=sys.stderr, flush=True)
                child.proc.kill()
                child.proc.wait()
                clean = False
        return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
