"""The launcher of ``make run`` supervises its children: a killed worker comes back, the web
server keeps answering meanwhile, and a child that cannot start stops the launcher."""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from studio.launcher import Child, Supervisor
from studio.models import WorkerHeartbeat
from studio.services import now
from tests.conftest import ROOT, free_port


def _children(pid: int) -> dict[int, str]:
    try:
        pids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return {}
    found = {}
    for child in map(int, pids):
        with contextlib.suppress(OSError):
            found[child] = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    return found


def _get(port: int, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def _until(predicate, timeout: float, what: str, *, also=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if also is not None:
            also()
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    pytest.fail(f"timed out waiting for {what}")


def _worker_of(launcher: subprocess.Popen) -> int | None:
    found = [p for p, cmd in _children(launcher.pid).items() if "-Q default,media" in cmd]
    return found[0] if found else None


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _descendants(pid: int) -> dict[int, str]:
    found, todo = {}, [pid]
    while todo:
        for child, cmd in _children(todo.pop()).items():
            found[child] = cmd
            todo.append(child)
    return found


@pytest.fixture
def long_source(scene, tmp_path):
    """A source whose History-15s render lasts seconds, so it can be killed in the middle."""
    from media.services import video_import
    from tests.synth_cache import synth_video

    synth = synth_video(tmp_path / "long.mp4", seconds=20, fps=30, size=(1280, 720), gop=60)
    return video_import(path=synth.path, scene=scene, title="long.mp4")


@pytest.mark.worker
def test_a_worker_killed_mid_render_comes_back_the_web_keeps_answering_and_the_render_ends(
    worker_env, tmp_path, long_source
):
    """Finding 2 of issue 11 as it happened: SIGKILL of the worker's main process under
    ``make run`` in the middle of a render."""
    from django.core.files.storage import default_storage

    from media.models import RenderedMedia
    from media.renders import media_request
    from media.windows import StepTimes

    port = free_port()
    env = {
        **worker_env,
        "LEASE_SECONDS": "3",
        "LEASE_SWEEP_SECONDS": "1",
        "STUDIO_PORT": str(port),
        "STAND_IN_PROVIDER_PORT": str(free_port()),
        "WORKER_CONCURRENCY": "1",
        "MODEL_WORKER_THREADS": "2",
        "MODEL_WORKERS": "1",
        "WORKER_HEARTBEAT_SECONDS": "1",
        # A loaded machine may need more than the default 15 s for the clean stop asserted below.
        "STUDIO_STOP_SECONDS": "120",
    }
    started_at = now()
    log = open(tmp_path / "launcher.log", "w+")  # noqa: SIM115 (read back on failure)
    launcher = subprocess.Popen(
        [sys.executable, "-m", "studio.launcher"], cwd=ROOT, env=env, stdout=log,
        stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        _until(lambda: _get_or_none(port, "/login/") == 200, 90, "the web server")
        names = " ".join(_children(launcher.pid).values())
        assert "gunicorn" in names and "sweep_leases --loop" in names
        worker = _until(lambda: _worker_of(launcher), 90, "the worker")
        _until(lambda: _heartbeat_after(started_at, 0), 60, "the worker's heartbeat")
        web = [p for p, cmd in _children(launcher.pid).items() if "gunicorn" in cmd]

        times = long_source.frame_times_us()
        step = StepTimes(*(int(times[i]) for i in (480, 570, 575, 580)))
        media = media_request(video=long_source, condition="history_15s", step=step)
        tmp_dir = Path(default_storage.path("renders/tmp"))
        _until(lambda: any(tmp_dir.glob(f"{media.key}.*")), 90, "the render to start")
        ffmpeg = _until(
            lambda: [p for p, cmd in _descendants(worker).items() if "ffmpeg" in cmd], 90, "ffmpeg"
        )
        killed_at = now()
        os.kill(worker, signal.SIGKILL)
        answers: list[int | None] = []

        def poll_web():
            answers.append(_get_or_none(port, "/login/"))

        restarted = _until(
            lambda: (w := _worker_of(launcher)) not in (None, worker) and w, 60,
            "the worker to be restarted", also=poll_web,
        )  # fmt: skip
        _until(lambda: _heartbeat_after(killed_at, 2), 90, "the new worker's heartbeat",
               also=poll_web)  # fmt: skip
        assert not any(_running(p) for p in ffmpeg)  # died with the worker
        # The launcher's sweeper hands the dead worker's render to the restarted worker.
        _until(lambda: RenderedMedia.objects.get(pk=media.pk).status in ("ready", "failed"), 180,
               "the render to be done again", also=poll_web)  # fmt: skip
        assert launcher.poll() is None
        assert restarted != worker
        assert len(answers) >= 5 and set(answers) == {200}, answers  # served all along
        assert [p for p, cmd in _children(launcher.pid).items() if "gunicorn" in cmd] == web
    finally:
        os.killpg(launcher.pid, signal.SIGINT)
        try:
            code = launcher.wait(timeout=40)
        except subprocess.TimeoutExpired:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait()
            code = None
        log.seek(0)
        output = log.read()
        log.close()
    assert "worker exited with code -9" in output, output
    assert code == 0, output  # Ctrl-C still stops everything cleanly after a restart
    media.refresh_from_db()
    assert media.status == RenderedMedia.Status.READY, media.error
    assert media.attempts == 2
    assert not list(tmp_dir.iterdir())
    renders = [p for p in Path(default_storage.path("renders")).rglob("*") if p.is_file()]
    assert [str(p) for p in renders] == [default_storage.path(media.path)]


def _get_or_none(port: int, path: str) -> int | None:
    try:
        return _get(port, path)
    except OSError:
        return None


def _heartbeat_after(moment, seconds: float) -> bool:
    """A worker heartbeat written ``seconds`` after ``moment`` (the restarted worker's own)."""
    from datetime import timedelta

    return WorkerHeartbeat.objects.filter(
        hostname__startswith="celery@", last_seen__gt=moment + timedelta(seconds=seconds)
    ).exists()


def _quick(code: int) -> Child:
    return Child("quick", [sys.executable, "-c", f"raise SystemExit({code})"])


def test_a_child_that_cannot_start_stops_the_launcher_with_an_error(capsys):
    steady = Child("steady", [sys.executable, "-c", "import time; time.sleep(60)"])
    supervisor = Supervisor([steady, _quick(3)])
    assert supervisor.run() == 1
    assert steady.proc.returncode is not None  # the others were stopped, not left running
    assert "quick exited with code 3 at start; stopping" in capsys.readouterr().err


def test_restarts_back_off_while_a_child_keeps_dying_and_start_over_once_it_ran_a_while():
    supervisor = Supervisor([child := _quick(1)])
    child.start()
    child.starts = 2  # past its first start: restarted rather than fatal
    delays = []
    for _ in range(7):
        child.proc.wait()
        t = child.started_at + 1  # died one second after it started
        assert supervisor._tick(t)
        delays.append(child.restart_at - t)
        assert supervisor._tick(child.restart_at)  # restarts it
    assert delays == [1, 2, 4, 8, 16, 30, 30]
    child.proc.wait()
    assert supervisor._tick(child.started_at + supervisor.STABLE_SECONDS)
    assert child.restart_at - child.started_at - supervisor.STABLE_SECONDS == pytest.approx(1)


def test_make_run_starts_the_stand_in_whenever_endpoints_point_at_it_whatever_the_broker(
    tmp_path, monkeypatch
):
    """Finding 4 of issue 23: on a Redis broker the launcher left the stand-in out although the
    demo's endpoints point at it (a study's predictions then all ended in api_error)."""
    from studio.launcher import child_commands, stand_in_wanted

    port = free_port()
    # A database of its own (an empty SQLite file), whatever this test runs on.
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'db.sqlite3'}")
    monkeypatch.setenv("STUDIO_VAR_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("STAND_IN_PROVIDER_PORT", str(port))
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")
    monkeypatch.delenv("TEST_DATABASE_NAME", raising=False)

    def manage(*args: str) -> None:
        done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr

    manage("migrate", "--noinput", "-v", "0")
    assert stand_in_wanted(sys.executable) is False  # no endpoint points at it
    assert "stand-in" not in child_commands(sys.executable, stand_in=False)
    manage("endpoint_add", "stand-in-vlm", "--base-url", f"http://127.0.0.1:{port}/v1",
           "--model", "stand-in-vision")  # fmt: skip
    commands = child_commands(sys.executable, stand_in=stand_in_wanted(sys.executable))
    assert commands["stand-in"][2:4] == ["serve_stand_in_provider", "--latency-ms"]
    assert "--rules" not in commands["stand-in"]
    # The demo's scripted answers, when it wrote them, are handed to the stand-in at start.
    rules = tmp_path / "var" / "stand-in-rules.json"
    rules.parent.mkdir(exist_ok=True)
    rules.write_text('{"rules": []}')
    commands = child_commands(sys.executable, stand_in=True)
    assert commands["stand-in"][-2:] == ["--rules", str(rules)]


@pytest.mark.django_db
def test_the_stand_in_is_in_use_when_an_endpoint_has_its_loopback_address(settings):
    import io

    from django.core.management import CommandError, call_command

    from scoring.endpoints import endpoint_create
    from scoring.models import Endpoint

    settings.STAND_IN_PROVIDER_PORT = 8765
    endpoint_create(name="elsewhere", base_url="http://127.0.0.1:8001/v1", model="m")
    with pytest.raises(CommandError, match="no endpoint points at the stand-in") as none:
        call_command("serve_stand_in_provider", "--in-use")
    assert none.value.returncode == 3
    endpoint_create(name="local", base_url="http://localhost:8765/v1", model="stand-in-vision")
    out = io.StringIO()
    call_command("serve_stand_in_provider", "--in-use", stdout=out)
    assert out.getvalue().strip() == "endpoints on the stand-in provider: local"
    Endpoint.objects.filter(name="local").update(base_url="http://127.0.0.1:8766/v1")
    with pytest.raises(CommandError):
        call_command("serve_stand_in_provider", "--in-use")
