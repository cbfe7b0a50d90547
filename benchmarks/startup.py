"""Start-up cost of a command: ``manage.py help`` and ``manage.py check`` against a bare Django.

Run from the repository root:  .venv/bin/python benchmarks/startup.py [--repeat 7]

The baseline, measured in the same run: a bare Django set up with ``settings.configure(...)``
and nothing of ours: the same contrib apps (admin, auth, contenttypes, sessions, messages,
staticfiles, postgres), Django REST framework, the same Django middleware, SQLite and a URL
configuration of the admin alone. It runs the same two commands (``help`` and ``check``), so
each of ours is compared with the very same work done by Django alone.

Every run is a fresh process (what a script calling a command, or a restarted worker, pays),
interleaved with the others, ``--repeat`` times after one warm-up round (the machine may be
shared; the median is reported). Time is wall-clock seconds from the start of the process to its
exit; memory is the process's peak resident set, the ``ru_maxrss`` the kernel reports for a
finished child (``os.wait4``, the same figure as ``resource.getrusage(RUSAGE_CHILDREN)``); CPU
seconds (user + system) are printed too, steadier than wall time on a shared machine.

Goals: ``help`` <= 2.5 x the baseline's time and <= 1.8 x its memory; ``check`` <= 3 x and
<= 2 x.
"""

from __future__ import annotations

import sys

ADMIN_ONLY_URLS = "__main__"  # this module: see __getattr__ below


def bare(command: str) -> None:
    """The baseline process: Django, its contrib apps and DRF, nothing of this project."""
    import tempfile

    from django.conf import settings

    folder = tempfile.gettempdir()
    settings.configure(
        DEBUG=True,
        SECRET_KEY="bare-django-startup-benchmark-" + "x" * 40,
        ALLOWED_HOSTS=["127.0.0.1"],
        INSTALLED_APPS=[
            "django.contrib.admin",
            "django.contrib.auth",
            "django.contrib.contenttypes",
            "django.contrib.sessions",
            "django.contrib.messages",
            "django.contrib.staticfiles",
            "django.contrib.postgres",
            "rest_framework",
        ],
        MIDDLEWARE=[
            "django.middleware.security.SecurityMiddleware",
            "django.contrib.sessions.middleware.SessionMiddleware",
            "django.middleware.common.CommonMiddleware",
            "django.middleware.csrf.CsrfViewMiddleware",
            "django.contrib.auth.middleware.AuthenticationMiddleware",
            "django.contrib.messages.middleware.MessageMiddleware",
            "django.middleware.clickjacking.XFrameOptionsMiddleware",
        ],
        ROOT_URLCONF=ADMIN_ONLY_URLS,
        TEMPLATES=[{
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "APP_DIRS": True,
            "OPTIONS": {"context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]},
        }],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3",
                               "NAME": f"{folder}/bare-django-startup.sqlite3"}},
        DEFAULT_AUTO_FIELD="django.db.models.BigAutoField",
        STATIC_URL="static/",
        USE_TZ=True,
    )  # fmt: skip
    from django.core.management import execute_from_command_line

    execute_from_command_line(["manage.py", command])


def __getattr__(name: str):
    """The baseline's URL configuration (this module, read by Django once it is configured):
    the admin alone."""
    if name != "urlpatterns":
        raise AttributeError(name)
    from django.contrib import admin
    from django.urls import path

    return [path("admin/", admin.site.urls)]


if __name__ == "__main__" and sys.argv[1:2] == ["--bare"]:
    # The baseline child: nothing imported before Django (no argparse, no statistics).
    bare(sys.argv[2])
    raise SystemExit(0)


import argparse  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GOALS = {"help": (2.5, 1.8), "check": (3.0, 2.0)}


def run_once(argv: list[str], env: dict) -> tuple[float, float, float]:
    """(wall seconds, peak RSS in MB, CPU seconds) of one fresh process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode("utf-8", "replace")
    proc.stderr.close()
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv)} failed:\n{err}")
    return seconds, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    env = dict(os.environ)
    var = tempfile.mkdtemp(prefix="startup-bench-")
    env.setdefault("STUDIO_VAR_DIR", var)  # the development settings create files there
    env.setdefault("DATABASE_URL", f"sqlite:///{var}/db.sqlite3")
    python = sys.executable
    try:
        ok = measure(python, env, args.repeat)
    finally:
        shutil.rmtree(var, ignore_errors=True)
    print("all goals met" if ok else "some goals missed")


def measure(python: str, env: dict, repeat: int) -> bool:
    runs = {
        ("bare", "help"): [python, __file__, "--bare", "help"],
        ("ours", "help"): [python, "manage.py", "help"],
        ("bare", "check"): [python, __file__, "--bare", "check"],
        ("ours", "check"): [python, "manage.py", "check"],
    }
    got: dict[tuple[str, str], list[tuple[float, float, float]]] = {key: [] for key in runs}
    for argv in runs.values():  # warm-up: files in the page cache, bytecode compiled
        run_once(argv, env)
    for _ in range(repeat):
        for key, argv in runs.items():
            got[key].append(run_once(argv, env))

    print(f"start-up, median of {repeat} fresh processes (interleaved); "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    print(f"  {'':18} {'seconds':>8} {'peak MB':>8} {'CPU s':>8}")
    med = {}
    for key, values in got.items():
        med[key] = tuple(statistics.median(v[i] for v in values) for i in range(3))
        print(f"  {key[0] + ' ' + key[1]:18} {med[key][0]:8.3f} {med[key][1]:8.1f} "
              f"{med[key][2]:8.3f}")  # fmt: skip
    ok = True
    for command, (time_goal, memory_goal) in GOALS.items():
        (t, m, c), (bt, bm, bc) = med[("ours", command)], med[("bare", command)]
        time_ok, memory_ok = t / bt <= time_goal, m / bm <= memory_goal
        ok &= time_ok and memory_ok
        print(f"  goal {command}: time {t / bt:.2f} x bare <= {time_goal} "
              f"{'met' if time_ok else 'MISSED'}; memory {m / bm:.2f} x bare <= {memory_goal} "
              f"{'met' if memory_ok else 'MISSED'} (CPU {c / bc:.2f} x bare)")  # fmt: skip
    return ok


if __name__ == "__main__":
    main()
