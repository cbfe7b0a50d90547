"""Child processes that die with the process that started them.

A worker killed with SIGKILL runs no clean-up code, so nothing it started would otherwise stop:
ffmpeg would go on writing a temporary file under a re-parented PID, and a Celery pool process
would go on rendering (and renewing its lease) for a main process that no longer exists. On Linux
the kernel can send a signal to a process when its parent dies (``prctl(PR_SET_PDEATHSIG)``);
this module sets that up for every child we spawn (``preexec_fn=die_with_parent()``). Celery's
prefork pool does the same for its pool processes (``celery.concurrency.prefork``), so a SIGKILL
of a worker's main process takes down its pool processes and, through them, their ffmpeg.

Two details of ``PR_SET_PDEATHSIG`` matter:

- it fires when the *thread* that forked the child ends, not only the process. Our spawners
  (Celery pool processes, gunicorn's and Celery's pool threads, management commands) are threads
  that live as long as the process, so this is the same thing for us;
- a parent that dies before the child has called ``prctl`` sends nothing, so after the call the
  child checks that its parent is still the one that forked it, and stops itself if not.

On other systems ``die_with_parent`` does nothing (there is no such call); the lease sweeper still
recovers the work, and the temporary files are removed by age.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
from collections.abc import Callable

PR_SET_PDEATHSIG = 1


def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    except OSError:
        return None
    return libc.prctl


_PRCTL = _prctl()


def supported() -> bool:
    """True where the kernel can stop a child when its parent dies (Linux)."""
    return _PRCTL is not None


def _arm(sig: int, expected_parent: int) -> None:
    if _PRCTL is None:
        return
    if _PRCTL(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != expected_parent:
        # The parent died between fork and prctl: the signal will never come.
        os.kill(os.getpid(), sig)


def die_with_parent(sig: int = signal.SIGKILL) -> Callable[[], None] | None:
    """A ``preexec_fn`` for ``subprocess``: the child receives ``sig`` when this process dies.

    Returns None where unsupported, which ``subprocess`` takes as "no preexec_fn". Runs in the
    forked child before exec, so it only calls async-signal-safe things (prctl, getppid, kill).
    """
    if _PRCTL is None:
        return None
    parent = os.getpid()
    return lambda: _arm(sig, parent)
