"""The Celery settings that crash safety rests on, as written in docs/architecture.md."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from studio.celery import app
from tests.conftest import ROOT


def _project_tasks():
    app.loader.import_default_modules()
    return {name: task for name, task in app.tasks.items() if not name.startswith("celery.")}


def test_every_project_task_says_whether_it_is_idempotent():
    tasks = _project_tasks()
    assert {"media.render_medium", "studio.ping", "studio.sweep_leases"} <= set(tasks)
    for name, task in tasks.items():
        assert isinstance(task.idempotent, bool), name


def test_only_idempotent_tasks_are_acknowledged_late_and_rejected_when_their_worker_is_lost():
    assert app.conf.task_acks_late is False
    assert app.conf.task_reject_on_worker_lost is False
    for name, task in _project_tasks().items():
        assert task.acks_late is task.idempotent, name
        # Without reject_on_worker_lost a late-acknowledged message of a killed pool process is
        # acknowledged as failed instead of delivered again.
        assert bool(task.reject_on_worker_lost) is task.idempotent, name


def test_the_render_tasks_are_idempotent_and_late_acknowledged():
    tasks = _project_tasks()
    for name in ("media.render_medium", "media.render_media_group", "scoring.models.drive_run"):
        assert tasks[name].idempotent and tasks[name].acks_late, name


def test_media_work_is_prefetched_one_message_per_process_on_its_own_queue():
    assert app.conf.worker_prefetch_multiplier == 1
    route = app.amqp.router.route({}, "media.render_medium")
    assert route["queue"].name == "media"


def test_time_limits_soft_below_hard_and_above_the_ffmpeg_timeout(settings):
    conf = app.conf
    assert conf.task_soft_time_limit < conf.task_time_limit
    # A render group may run ffmpeg a few times; one ffmpeg run alone must fit well inside.
    assert conf.task_soft_time_limit >= settings.FFMPEG_TIMEOUT_SECONDS * 2


def _settings_in_subprocess(env: dict, expression: str) -> subprocess.CompletedProcess:
    code = f"import django; django.setup(); from django.conf import settings; print({expression})"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "studio.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_redis_visibility_timeout_outlasts_the_longest_task():
    result = _settings_in_subprocess(
        {"CELERY_BROKER_URL": "redis://127.0.0.1:6379/0", "CELERY_TASK_TIME_LIMIT": "7200"},
        "settings.CELERY_BROKER_TRANSPORT_OPTIONS['visibility_timeout'], "
        "settings.CELERY_TASK_TIME_LIMIT, settings.CELERY_TASK_SOFT_TIME_LIMIT",
    )
    assert result.returncode == 0, result.stderr
    visibility, hard, soft = map(int, result.stdout.split())
    assert (hard, soft) == (7200, 7140)
    assert visibility > hard


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"CELERY_TASK_TIME_LIMIT": "600", "CELERY_TASK_SOFT_TIME_LIMIT": "600"},
            "CELERY_TASK_SOFT_TIME_LIMIT=600 must be below CELERY_TASK_TIME_LIMIT=600",
        ),
        (
            {"CELERY_TASK_TIME_LIMIT": "3600", "REDIS_VISIBILITY_TIMEOUT": "3600"},
            "REDIS_VISIBILITY_TIMEOUT=3600 must be longer than the longest task",
        ),
    ],
)
def test_limits_that_contradict_each_other_refuse_to_start(env, message):
    result = _settings_in_subprocess(env, "1")
    assert result.returncode != 0
    assert message in result.stderr


def test_redis_broker_settings_reach_the_celery_app():
    result = subprocess.run(
        [sys.executable, "-c", "from studio.celery import app; "
         "print(app.conf.broker_transport_options['visibility_timeout'])"],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "studio.settings",
             "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0", "CELERY_TASK_TIME_LIMIT": "100"},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) == 700


def test_the_queue_namespace_prefixes_redis_keys_and_gets_its_own_broker_folder(tmp_path):
    """Two instances (or two parallel test processes) on one Redis database or one var/ never
    take each other's tasks."""
    redis = _settings_in_subprocess(
        {"CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
         "CELERY_RESULT_BACKEND": "redis://127.0.0.1:6379/1", "STUDIO_QUEUE_NAMESPACE": "one"},
        "settings.CELERY_BROKER_TRANSPORT_OPTIONS['global_keyprefix'], "
        "settings.CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS['global_keyprefix']",
    )  # fmt: skip
    assert redis.returncode == 0, redis.stderr
    assert redis.stdout.split() == ["one:", "one:"]
    folder = _settings_in_subprocess(
        {"CELERY_BROKER_URL": "", "STUDIO_VAR_DIR": str(tmp_path), "STUDIO_QUEUE_NAMESPACE": "two"},
        "settings.CELERY_BROKER_TRANSPORT_OPTIONS['data_folder_in']",
    )
    assert folder.returncode == 0, folder.stderr
    assert folder.stdout.strip() == str(tmp_path / "broker" / "two" / "queue")
    assert (tmp_path / "broker" / "two" / "queue").is_dir()
    # Under pytest-xdist the test process's id is the default, inherited by every worker it starts.
    xdist = _settings_in_subprocess(
        {"CELERY_BROKER_URL": "", "STUDIO_VAR_DIR": str(tmp_path), "STUDIO_QUEUE_NAMESPACE": "",
         "PYTEST_XDIST_WORKER": "gw7"},
        "settings.QUEUE_NAMESPACE",
    )  # fmt: skip
    assert xdist.stdout.strip() == "gw7"


def test_a_queue_namespace_that_is_no_name_refuses_to_start():
    result = _settings_in_subprocess({"STUDIO_QUEUE_NAMESPACE": "../elsewhere"}, "1")
    assert result.returncode != 0
    assert "STUDIO_QUEUE_NAMESPACE='../elsewhere'" in result.stderr


def test_every_file_of_the_sqlite_pass_and_the_slow_first_list_exists():
    """CI's SQLite pass runs the files listed in tests/conftest.py; a renamed file must not drop
    out of it (or out of the slow files started first) unnoticed."""
    from tests.conftest import SLOW_FIRST, SQLITE_PASS

    missing = [name for name in SQLITE_PASS + SLOW_FIRST if not (ROOT / name).is_file()]
    assert missing == []
