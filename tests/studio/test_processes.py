"""Children die with their parent: a SIGKILLed process leaves no ffmpeg (or other child) behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from studio import processes
from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(not processes.supported(), reason="PR_SET_PDEATHSIG is Linux-only")


def alive(pid: int) -> bool:
    """Running, not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _wait_gone(pid: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def _parent(code: str) -> tuple[subprocess.Popen, list[int]]:
    """Start a Python parent that runs ``code`` and prints one child pid per line, then waits."""
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "DJANGO_SETTINGS_MODULE": "studio.settings"},
        stdout=subprocess.PIPE,
        text=True,
    )
    pids = [int(proc.stdout.readline()) for _ in range(code.count("print("))]
    return proc, pids


def test_a_child_started_with_die_with_parent_is_killed_with_its_parent():
    parent, (guarded, unguarded) = _parent(
        """
        import subprocess, time
        from studio.processes import die_with_parent
        a = subprocess.Popen(["sleep", "120"], preexec_fn=die_with_parent())
        b = subprocess.Popen(["sleep", "120"], start_new_session=True)
        print(a.pid, flush=True)
        print(b.pid, flush=True)
        time.sleep(120)
        """
    )
    try:
        assert alive(guarded) and alive(unguarded)
        parent.kill()  # SIGKILL: no clean-up code runs in the parent
        parent.wait(timeout=10)
        assert _wait_gone(guarded), "the guarded child outlived its parent"
        time.sleep(0.5)
        assert alive(unguarded)  # what every child did before: it runs on, re-parented
    finally:
        for pid in (guarded, unguarded):
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_ffmpeg_started_by_the_project_dies_with_its_parent():
    parent, (ffmpeg,) = _parent(
        """
        import django, time
        django.setup()
        from media.ffmpeg import popen_ffmpeg
        proc = popen_ffmpeg(["-re", "-f", "lavfi", "-i", "testsrc=duration=300:size=64x64:rate=10",
                             "-f", "null", "-"])
        print(proc.pid, flush=True)
        time.sleep(120)
        """
    )
    try:
        assert alive(ffmpeg)
        assert "ffmpeg" in Path(f"/proc/{ffmpeg}/cmdline").read_bytes().decode(errors="replace")
        parent.kill()
        parent.wait(timeout=10)
        assert _wait_gone(ffmpeg), "ffmpeg outlived the process that started it"
    finally:
        if alive(ffmpeg):
            os.kill(ffmpeg, signal.SIGKILL)


def test_run_ffmpeg_arms_the_death_signal_too():
    parent, (ffmpeg,) = _parent(
        """
        import django, os, threading, time
        django.setup()
        from media.ffmpeg import run_ffmpeg
        me = os.getpid()
        def report():
            # run_ffmpeg blocks; find its child from a second thread and print its pid (only
            # the long run: finding the binary may run a short `ffmpeg -version` first).
            for _ in range(400):
                for kid in open(f"/proc/{me}/task/{me}/children").read().split():
                    try:
                        cmd = open(f"/proc/{kid}/cmdline", "rb").read()
                    except OSError:
                        continue
                    if b"testsrc" in cmd:
                        print(kid, flush=True)
                        return
                time.sleep(0.05)
        threading.Thread(target=report, daemon=True).start()
        run_ffmpeg(["-re", "-f", "lavfi", "-i", "testsrc=duration=300:size=64x64:rate=10",
                    "-f", "null", "-"], timeout=300)
        """
    )
    try:
        assert alive(ffmpeg)
        parent.kill()
        parent.wait(timeout=10)
        assert _wait_gone(ffmpeg), "ffmpeg outlived the process that started it"
    finally:
        if alive(ffmpeg):
            os.kill(ffmpeg, signal.SIGKILL)
