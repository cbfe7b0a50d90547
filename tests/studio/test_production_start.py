"""Production start-up: static files collected first, the web server refusing to start without
them, and gunicorn trusting X-Forwarded-Proto exactly when the settings do. Real processes:
make, manage.py collectstatic, gunicorn on a free port."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
MAKE = shutil.which("make") or "make"
STRONG_KEY = "k3y-" + "x1y2z3w4v5" * 6


def _production_env(static_root: Path, **overrides: str) -> dict[str, str]:
    dropped = ("SECRET_KEY", "DJANGO_ALLOW_ASYNC_UNSAFE", "TRUST_X_FORWARDED_PROTO")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update(
        {
            "STUDIO_MODE": "production",
            "ALLOWED_HOSTS": "127.0.0.1",
            "SECRET_KEY": STRONG_KEY,
            "STATIC_ROOT": str(static_root),
        }
    )
    env.update(overrides)
    return env


@pytest.fixture(scope="module")
def collected(tmp_path_factory) -> Path:
    """Static files collected by `make static`, the target `make run` runs first in production."""
    static_root = tmp_path_factory.mktemp("static")
    result = subprocess.run(
        [MAKE, "--no-print-directory", "static"],
        cwd=ROOT,
        env=_production_env(static_root),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (static_root / "staticfiles.json").is_file()
    return static_root


def test_make_run_collects_static_first_in_production_only():
    def planned(mode: str) -> list[str]:
        env = {k: v for k, v in os.environ.items() if k != "STUDIO_MODE"}
        if mode:
            env["STUDIO_MODE"] = mode
        result = subprocess.run(
            [MAKE, "--no-print-directory", "-n", "run"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout.splitlines()

    production = planned("production")
    collect = next(i for i, line in enumerate(production) if "collectstatic --noinput" in line)
    launch = next(i for i, line in enumerate(production) if "studio.launcher" in line)
    assert collect < launch
    assert not any("collectstatic" in line for line in planned(""))


def _import_wsgi(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "import studio.wsgi"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_web_server_refuses_to_start_in_production_without_collected_static(tmp_path, collected):
    refused = _import_wsgi(_production_env(tmp_path / "never-collected"))
    assert refused.returncode != 0
    assert "static files are not collected" in refused.stderr
    assert "python manage.py collectstatic --noinput" in refused.stderr
    assert _import_wsgi(_production_env(collected)).returncode == 0, "collected: it starts"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _get_claiming_https(port: int) -> tuple[int, str]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/login/", headers={"X-Forwarded-Proto": "https"}
    )
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(request, timeout=120) as response:  # a time-out, not a timing
            return response.status, ""
    except urllib.error.HTTPError as answer:
        return answer.code, answer.headers.get("Location", "")


def _serve(env: dict[str, str], port: int) -> subprocess.Popen:
    web = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "studio.wsgi",
            "--config",
            "python:studio.gunicorn_conf",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "1",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert web.poll() is None, web.stderr.read().decode()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return web
        except OSError:
            time.sleep(0.2)
    web.kill()
    raise AssertionError("gunicorn did not start")


@pytest.mark.parametrize(("trusted", "redirected"), [("false", True), ("true", False)])
def test_gunicorn_trusts_x_forwarded_proto_only_when_the_settings_do(
    collected, tmp_path, trusted, redirected
):
    port = free_port()
    env = _production_env(
        collected,
        TRUST_X_FORWARDED_PROTO=trusted,
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    )
    env.pop("FORWARDED_ALLOW_IPS", None)
    web = _serve(env, port)
    try:
        status, location = _get_claiming_https(port)
    finally:
        web.terminate()
        web.wait(timeout=30)
    if redirected:  # the claim is ignored: plain http gets the HTTPS redirect
        assert (status, location) == (301, f"https://127.0.0.1:{port}/login/")
    else:  # from the trusted proxy the request counts as https and is served
        assert status == 200


def test_gunicorn_config_follows_the_setting(monkeypatch):
    import importlib

    import studio.gunicorn_conf as conf

    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    monkeypatch.setenv("TRUST_X_FORWARDED_PROTO", "false")
    assert importlib.reload(conf).forwarded_allow_ips == ""
    monkeypatch.setenv("TRUST_X_FORWARDED_PROTO", "true")
    assert importlib.reload(conf).forwarded_allow_ips == "127.0.0.1,::1"
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "10.0.0.0/8")
    assert importlib.reload(conf).forwarded_allow_ips == "10.0.0.0/8"
    monkeypatch.setenv("TRUST_X_FORWARDED_PROTO", "perhaps")
    with pytest.raises(Exception, match="TRUST_X_FORWARDED_PROTO='perhaps' is not a boolean"):
        importlib.reload(conf)
    monkeypatch.delenv("TRUST_X_FORWARDED_PROTO")
    assert importlib.reload(conf).forwarded_allow_ips == ""
