"""A virtual environment with the real harness packages (datasets, lmms-eval, inspect_ai), built
by the tests from PyPI and kept between runs.

Installing costs minutes (torch alone is hundreds of megabytes), so the environment is cached
outside the repository, in ``$HARNESS_VENV_CACHE`` (default ``~/.cache/intent-studio/
harness-venvs``), under a key that is the SHA-256 of the two requirement files and the Python
version: a changed pin builds a new one, the same pins reuse it. It is built in place under a
lock and marked complete only when both installs succeeded; an interrupted build is removed and
built again. The time the build took is kept in ``install-seconds``.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "harness-requirements.txt"
NO_DEPS = HERE / "harness-requirements-nodeps.txt"
MARK = ".complete"


def cache_root() -> Path:
    default = Path.home() / ".cache" / "intent-studio" / "harness-venvs"
    return Path(os.environ.get("HARNESS_VENV_CACHE") or default)


def cache_key() -> str:
    digest = hashlib.sha256()
    digest.update(sys.version.encode())
    for path in (REQUIREMENTS, NO_DEPS):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _run(args: list[str], log) -> None:
    result = subprocess.run(args, stdout=log, stderr=subprocess.STDOUT, timeout=3600)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed with code {result.returncode}")


def harness_python() -> Path:
    """The Python of the harness environment, built first if it is not in the cache."""
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    target = root / cache_key()
    python = target / "bin" / "python"
    if (target / MARK).is_file():
        return python
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (target / MARK).is_file():
            return python
        shutil.rmtree(target, ignore_errors=True)
        started = time.monotonic()
        target.mkdir(parents=True)
        with open(target / "install.log", "w") as log:
            _run([sys.executable, "-m", "venv", str(target)], log)
            pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check"]
            _run([*pip, "-r", str(REQUIREMENTS)], log)
            _run([*pip, "--no-deps", "-r", str(NO_DEPS)], log)
        (target / "install-seconds").write_text(f"{time.monotonic() - started:.1f}\n")
        (target / MARK).write_text("")
    return python
