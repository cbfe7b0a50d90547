"""Shared fixtures: named users per role, services that must be real in CI, a real worker.

REQUIRE_SERVICES=1 turns a missing PostgreSQL or Redis into a failure instead of a skip;
REQUIRE_BROWSER=1 does the same for Chromium.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES") == "1"
REQUIRE_BROWSER = os.environ.get("REQUIRE_BROWSER") == "1"


def free_port() -> int:
    """A port nothing listens on now (the system picks it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# Parallel test processes never share the stand-in provider's port: a demo seeded in one process
# drives its QA runs against the stand-in there, and another process's seed must not find it
# (and lose it when that seed ends). Processes a test starts inherit the port.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["STAND_IN_PROVIDER_PORT"] = str(free_port())
PROCESS_STAND_IN_PORT = int(os.environ.get("STAND_IN_PROVIDER_PORT", "0") or 0)


def _reachable(url: str, default_port: int) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection(
            (parsed.hostname or "127.0.0.1", parsed.port or default_port), timeout=2
        ):
            return True
    except OSError:
        return False


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def pytest_sessionstart(session):
    if not REQUIRE_SERVICES:
        return
    problems = []
    db_url = os.environ.get("DATABASE_URL", "")
    if not db_url.startswith(("postgres://", "postgresql://")):
        problems.append("REQUIRE_SERVICES=1 but DATABASE_URL is not a PostgreSQL URL")
    elif not _reachable(db_url, 5432):
        problems.append(f"PostgreSQL at {urlparse(db_url).netloc} is unreachable")
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if not broker.startswith("redis://"):
        problems.append("REQUIRE_SERVICES=1 but CELERY_BROKER_URL is not a Redis URL")
    elif not _reachable(broker, 6379):
        problems.append(f"Redis at {urlparse(broker).netloc} is unreachable")
    if problems:
        pytest.exit("; ".join(problems), returncode=3)


# The test files CI also runs on the embedded SQLite default (`make test-sqlite-pass`, marker
# ``sqlite``): what SQLite can break that PostgreSQL cannot show. The whole suite runs on
# PostgreSQL; docs/testing.md says why each of these runs on both.
SQLITE_PASS = (
    # Settings, migrations and the embedded default as `make run` starts it.
    "tests/studio/test_settings.py",
    "tests/studio/test_celery.py",
    "tests/studio/test_health.py",
    "tests/studio/test_launcher.py",
    "tests/studio/test_processes.py",
    "tests/studio/test_production_start.py",
    "tests/annotation/test_release_bundle.py",
    # Locks and claims: select_for_update / skip_locked and the ORM claim path differ.
    "tests/annotation/test_api_concurrency.py",
    "tests/review/campaigns/test_claims.py",
    "tests/studio/test_leases.py",
    "tests/scoring/test_runs_store.py",
    "tests/scoring/test_runs_outcomes.py",
    "tests/scoring/test_study_integrity.py",
    # Rules PostgreSQL holds in triggers and constraints, SQLite in the services and models.
    "tests/annotation/test_step_rules.py",
    "tests/annotation/test_release_freeze.py",
    "tests/review/test_manifests.py",
    "tests/review/campaigns/test_campaigns.py",
    "tests/scoring/test_names.py",
    # Real workers on the filesystem broker and the file result backend.
    "tests/scoring/test_workers.py",
    "tests/media/test_worker.py",
    "tests/media/test_distributed.py",
)


# The files that take longest, slowest first: they are collected first, so parallel processes
# (--dist loadfile hands out whole files in collection order) start them at once and none of
# them begins last and keeps the others waiting. Order only; every test still runs.
SLOW_FIRST = (
    "tests/scoring/publish/test_harnesses.py",
    "tests/media/test_render.py",
    "tests/annotation/test_release_bundle.py",
    "tests/review/campaigns/test_payload_fuzz.py",
    "tests/media/test_worker.py",
    "tests/studio/test_api_schemathesis.py",
    "tests/studio/test_launcher.py",
    "tests/scoring/test_workers.py",
    "tests/media/test_serving_ranges.py",
    "tests/annotation/test_release_freeze.py",
    "tests/review/baseline/test_blinding.py",
    "tests/media/test_distributed.py",
)


def pytest_collection_modifyitems(config, items):
    from django.db import connection

    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))

    browser = chromium_path()
    broker = os.environ.get("CELERY_BROKER_URL", "")
    for item in items:
        if item.nodeid.split("::", 1)[0] in SQLITE_PASS:
            item.add_marker(pytest.mark.sqlite)
        if (
            "postgres" in item.keywords
            and connection.vendor != "postgresql"
            and not REQUIRE_SERVICES
        ):
            item.add_marker(pytest.mark.skip(reason="needs PostgreSQL (set DATABASE_URL)"))
        if "redis" in item.keywords and not broker.startswith("redis://") and not REQUIRE_SERVICES:
            item.add_marker(pytest.mark.skip(reason="needs Redis (set CELERY_BROKER_URL)"))
        if "e2e" in item.keywords and browser is None and not REQUIRE_BROWSER:
            item.add_marker(pytest.mark.skip(reason="needs Chromium on the PATH"))


def pytest_terminal_summary(terminalreporter, config):
    """One line CI can compare between runs: how many tests this stage ran and how they ended."""
    if config.option.collectonly:
        return
    counts = {
        outcome: len(terminalreporter.stats.get(outcome, []))
        for outcome in ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
    }
    ran = sum(counts.values()) - counts["error"]
    terminalreporter.write_line(
        f"tests in this stage: {ran} ("
        + ", ".join(f"{n} {outcome}" for outcome, n in counts.items() if n)
        + ")"
    )


@pytest.fixture(autouse=True)
def _postgres_marker_enforced(request):
    """With REQUIRE_SERVICES=1 a postgres test that lands on SQLite fails, never passes."""
    if "postgres" in request.keywords:
        from django.db import connection

        if connection.vendor != "postgresql":
            pytest.fail("this test needs PostgreSQL; DATABASE_URL points elsewhere")


@pytest.fixture(autouse=True)
def _stand_in_port_of_this_process(settings):
    """The settings hold this process's stand-in port, whenever Django read its settings."""
    if PROCESS_STAND_IN_PORT:
        settings.STAND_IN_PROVIDER_PORT = PROCESS_STAND_IN_PORT


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    """A password check costs microseconds in tests, not PBKDF2's half second (a login test of
    twenty failures would otherwise take ten seconds)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _login_throttle_off(settings):
    """Login throttling (django-axes) needs the request of every login, and the test client's
    ``login()`` sends none; tests that are about throttling turn it on (tests/studio/
    test_login_throttle.py)."""
    settings.AXES_ENABLED = False


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path_factory):
    """Each test writes media under its own temporary folder."""
    settings.MEDIA_ROOT = tmp_path_factory.mktemp("media")


# --- Named users, one per role ----------------------------------------------------------------

PASSWORD = "correct-horse-battery-staple"


def _user(django_user_model, username: str, *roles: str):
    from django.contrib.auth.models import Group

    from studio.roles import ADMIN, sync_role_groups

    if not Group.objects.filter(name=ADMIN).exists():
        sync_role_groups()
    user = django_user_model.objects.create_user(username=username, password=PASSWORD)
    for role in roles:
        user.groups.add(Group.objects.get(name=role))
    if ADMIN in roles:
        user.is_staff = True
        user.save(update_fields=["is_staff"])
    return user


@pytest.fixture
def annotator(db, django_user_model):
    return _user(django_user_model, "anna", "annotator")


@pytest.fixture
def other_annotator(db, django_user_model):
    return _user(django_user_model, "otto", "annotator")


@pytest.fixture
def auditor(db, django_user_model):
    return _user(django_user_model, "aude", "auditor")


@pytest.fixture
def rater(db, django_user_model):
    return _user(django_user_model, "rita", "rater")


@pytest.fixture
def adjudicator(db, django_user_model):
    return _user(django_user_model, "adam", "adjudicator")


@pytest.fixture
def admin_user(db, django_user_model):
    return _user(django_user_model, "ada", "admin")


# --- Rows without files (for model and service tests) -----------------------------------------


@pytest.fixture
def scene(db):
    from media.models import Scene

    return Scene.objects.create(slug="indoor/kitchen", name="Kitchen", setting="indoor")


@pytest.fixture
def make_video(db, scene):
    """A SourceVideo row at 30 fps with a frame-time index and no file behind it."""
    import hashlib

    from media.models import SourceVideo

    counter = {"n": 0}

    def make(*, seconds: int = 60, fps: int = 30, **fields) -> SourceVideo:
        counter["n"] += 1
        frames = seconds * fps
        video = SourceVideo(
            scene=fields.pop("scene", scene),
            title=fields.pop("title", f"video-{counter['n']}.mp4"),
            file=f"sources/none-{counter['n']}.mp4",
            sha256=hashlib.sha256(f"video-{counter['n']}".encode()).hexdigest(),
            size_bytes=1,
            container="mov,mp4,m4a,3gp,3g2,mj2",
            codec="h264",
            width=640,
            height=360,
            fps_num=fps,
            duration_us=seconds * 1_000_000,
            **fields,
        )
        video.set_frame_times_us([round(i * 1_000_000 / fps) for i in range(frames)])
        video.save()
        return video

    return make


# --- A real Celery worker process -------------------------------------------------------------


def _database_url_for_subprocess() -> str:
    from django.db import connection

    cfg = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{cfg['NAME']}"
    user = cfg.get("USER") or ""
    auth = f"{user}:{cfg['PASSWORD']}@" if cfg.get("PASSWORD") else (f"{user}@" if user else "")
    return (
        f"postgres://{auth}{cfg.get('HOST') or '127.0.0.1'}:{cfg.get('PORT') or 5432}/{cfg['NAME']}"
    )


@pytest.fixture
def worker_env(transactional_db, settings):
    """Environment for a subprocess that must see this test's database and media folder."""
    env = dict(os.environ)
    env["DATABASE_URL"] = _database_url_for_subprocess()
    env["MEDIA_ROOT"] = str(settings.MEDIA_ROOT)
    env["PYTHONPATH"] = str(ROOT)
    return env


@pytest.fixture
def celery_worker_process(worker_env):
    """Starts ``celery worker`` for the test's database; yields the Popen; stops it after."""
    from studio.services import live_workers

    hostname = f"test-{os.getpid()}-{time.monotonic_ns()}@localhost"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "studio",
            "worker",
            "-Q",
            "default,media,models",
            "-c",
            "2",
            "-P",
            "prefork",
            "-n",
            hostname,
            "--loglevel",
            "WARNING",
            "--without-gossip",
            "--without-mingle",
        ],
        cwd=ROOT,
        env=worker_env,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"celery worker exited early with code {proc.returncode}")
        if any(w.hostname == hostname for w in live_workers()):
            break
        time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail("celery worker did not report a heartbeat within 60 s")
    yield proc
    if proc.poll() is None:
        os.killpg(proc.pid, 15)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
