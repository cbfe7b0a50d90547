"""Settings come only from the environment and bad values stop the start-up with a message."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STRONG_KEY = "k3y-" + "x1y2z3w4v5" * 6


def _check(env_overrides: dict, *args: str) -> subprocess.CompletedProcess:
    # DJANGO_ALLOW_ASYNC_UNSAFE is set by the browser tests in this process; no deployment has it.
    dropped = ("STUDIO_MODE", "SECRET_KEY", "DJANGO_ALLOW_ASYNC_UNSAFE")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update(env_overrides)
    return subprocess.run(
        [sys.executable, "manage.py", "check", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("DJANGO_DEBUG", "maybe", "DJANGO_DEBUG='maybe' is not a boolean"),
        ("STUDIO_MODE", "staging", "STUDIO_MODE='staging' is not one of"),
        ("DATABASE_URL", "mysql://x/y", "DATABASE_URL must point at PostgreSQL or SQLite"),
        ("WORKER_HEARTBEAT_SECONDS", "soon", "WORKER_HEARTBEAT_SECONDS='soon' is not an integer"),
        ("LOGIN_FAILURE_LIMIT", "0", "LOGIN_FAILURE_LIMIT=0 is below its minimum of 1"),
        ("LOGIN_THROTTLE", "sometimes", "LOGIN_THROTTLE='sometimes' is not a boolean"),
    ],
)
def test_bad_value_fails_at_start_with_a_clear_message(variable, value, message):
    result = _check({variable: value})
    assert result.returncode != 0
    assert message in result.stderr


@pytest.mark.parametrize("key", [None, "short", "django-insecure-" + "a1" * 30, "a" * 60])
def test_production_refuses_a_missing_or_weak_secret_key(key, tmp_path):
    env = {"STUDIO_MODE": "production", "ALLOWED_HOSTS": "studio.example.org"}
    if key is not None:
        env["SECRET_KEY"] = key
    result = _check(env)
    assert result.returncode != 0
    assert "needs SECRET_KEY" in result.stderr


def test_secret_key_can_come_from_a_file(tmp_path):
    key_file = tmp_path / "key"
    key_file.write_text(STRONG_KEY)
    result = _check(
        {
            "STUDIO_MODE": "production",
            "ALLOWED_HOSTS": "studio.example.org",
            "SECRET_KEY_FILE": str(key_file),
        }
    )
    assert result.returncode == 0, result.stderr


def test_check_deploy_passes_with_production_settings():
    result = _check(
        {
            "STUDIO_MODE": "production",
            "ALLOWED_HOSTS": "studio.example.org",
            "SECRET_KEY": STRONG_KEY,
        },
        "--deploy",
        "--fail-level",
        "WARNING",
    )
    assert result.returncode == 0, result.stdout + result.stderr
