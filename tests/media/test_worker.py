"""Rendering on a real Celery worker process, including one killed in the middle of a render."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.files.storage import default_storage

from media.batches import RenderJob, batch_create, batch_progress
from media.models import RenderedMedia, SourceVideo, VideoImport
from media.renders import media_request
from media.synth import read_frame_numbers
from studio.leases import leases_sweep
from studio.services import now
from tests.conftest import ROOT
from tests.media.conftest import expected_frames, step_at

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _start_worker(env) -> subprocess.Popen:
    from studio.services import live_workers

    hostname = f"media-test-{os.getpid()}-{time.monotonic_ns()}@localhost"
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "studio", "worker", "-Q", "media", "-c", "1",
         "-P", "prefork", "-n", hostname, "--loglevel", "WARNING", "--without-gossip",
         "--without-mingle"],
        cwd=ROOT, env=env, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"celery worker exited early with code {proc.returncode}")
        if any(w.hostname == hostname for w in live_workers()):
            return proc
        time.sleep(0.3)
    os.killpg(proc.pid, signal.SIGKILL)
    pytest.fail("celery worker did not report a heartbeat within 60 s")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _wait(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


@pytest.fixture(scope="session")
def long_video(synth_dir):
    """Large enough that a render lasts seconds, so the worker can be killed in the middle."""
    from tests.synth_cache import synth_video

    return synth_video(synth_dir / "long.mp4", seconds=20, fps=30, size=(1280, 720), gop=60)


def test_batch_renders_on_the_media_queue(celery_worker_process, import_source, vfr_video):
    video = import_source(vfr_video)
    times = video.frame_times_us()
    jobs = [
        RenderJob(subject="a", video_id=video.pk, step=step_at(times, 40, 77, 85, 90)),
        RenderJob(subject="b", video_id=video.pk, step=step_at(times, 95, 120, 125, 130)),
    ]
    batch = batch_create(jobs=jobs, conditions=["official"], profiles=["clip", "frames16"])
    progress = _wait(lambda: (p := batch_progress(batch))["finished"] and p, 120, "the batch")
    assert (progress["ready"], progress["failed"]) == (4, 0)
    clip = batch.items.get(subject="a", profile="clip").media
    assert read_frame_numbers(default_storage.path(clip.path)) == list(range(40, 77))


def test_killed_worker_leaves_nothing_ready_and_the_sweeper_renders_it_once(
    worker_env, import_source, long_video
):
    worker_env["LEASE_SECONDS"] = "3"
    video = import_source(long_video)
    times = video.frame_times_us()
    step = step_at(times, 480, 570, 575, 580)  # History-15s: frames 30-569, 540 frames of 720p
    tmp_dir = Path(default_storage.path("renders/tmp"))

    first = _start_worker(worker_env)
    try:
        media = media_request(video=video, condition="history_15s", step=step)  # queued now
        _wait(lambda: any(tmp_dir.glob(f"{media.key}.*")), 60, "the render to start writing")
        media.refresh_from_db()
        assert media.status == RenderedMedia.Status.RENDERING
        os.killpg(first.pid, signal.SIGKILL)  # the worker, its pool and its ffmpeg: all gone
        first.wait(timeout=20)
    finally:
        _stop(first)

    media.refresh_from_db()
    assert media.status == RenderedMedia.Status.RENDERING  # not ready, and not lying about it
    assert not RenderedMedia.objects.filter(status=RenderedMedia.Status.READY).exists()
    final = Path(default_storage.path(f"renders/{media.key[:2]}/{media.key}.mp4"))
    assert not final.exists()

    # Nobody renews the dead worker's lease: once it runs out, the sweeper queues the medium again.
    _wait(lambda: RenderedMedia.objects.get(pk=media.pk).lease_expires_at < now(), 30,
          "the lease to run out")  # fmt: skip
    second = _start_worker(worker_env)
    try:
        assert leases_sweep()["media.render"] == {"requeued": 1, "failed": 0}
        _wait(lambda: RenderedMedia.objects.get(pk=media.pk).status in ("ready", "failed"), 180,
              "the re-run")  # fmt: skip
    finally:
        _stop(second)

    media.refresh_from_db()
    assert media.status == RenderedMedia.Status.READY, media.error
    assert media.attempts == 2
    assert media.path == f"renders/{media.key[:2]}/{media.key}.mp4"
    renders = [p for p in Path(default_storage.path("renders")).rglob("*") if p.is_file()]
    assert renders == [final]  # one file; the dead worker's temporary output was cleared away
    numbers = read_frame_numbers(final)
    window = expected_frames(times, [(max(0, step.start_us - 15_000_000), step.cutoff_us)])
    assert numbers == window and numbers[0] == 30 and numbers[-1] == 569


def _children(pid: int) -> list[int]:
    try:
        found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [int(p) for p in found]


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        for child in _children(todo.pop()):
            out.append(child)
            todo.append(child)
    return out


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _start_sweeper(env) -> subprocess.Popen:
    """``manage.py sweep_leases --loop``: what the launcher runs on the embedded default."""
    return subprocess.Popen(
        [sys.executable, "manage.py", "sweep_leases", "--loop", "1"],
        cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip


def test_sigkill_of_the_main_worker_process_mid_render_recovers_without_an_operator(
    worker_env, import_source, long_video
):
    """The main process only (not its process group): its pool process and that one's ffmpeg
    must die with it; after a restart the medium is rendered once more, by itself. Runs on the
    broker of the environment: Redis in the PostgreSQL run, the filesystem transport on SQLite."""
    worker_env["LEASE_SECONDS"] = "3"
    video = import_source(long_video)
    times = video.frame_times_us()
    step = step_at(times, 480, 570, 575, 580)
    tmp_dir = Path(default_storage.path("renders/tmp"))
    final = Path(default_storage.path("renders"))

    first = _start_worker(worker_env)
    try:
        media = media_request(video=video, condition="history_15s", step=step)
        _wait(lambda: any(tmp_dir.glob(f"{media.key}.*")), 60, "the render to start writing")
        ffmpeg = _wait(
            lambda: [p for p in _descendants(first.pid) if "ffmpeg" in _cmdline(p)], 30, "ffmpeg"
        )
        pool = _children(first.pid)
        assert pool and ffmpeg
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=20)
        # Nothing of the dead worker goes on: no pool process, no ffmpeg writing a temp file.
        _wait(lambda: not any(_running(p) for p in pool + ffmpeg), 15, "its children to die")
    finally:
        _stop(first)

    media.refresh_from_db()
    assert media.status == RenderedMedia.Status.RENDERING
    assert not RenderedMedia.objects.filter(status=RenderedMedia.Status.READY).exists()
    assert not [p for p in final.rglob("*.mp4") if tmp_dir not in p.parents]

    # A restart, as the launcher or an init system would do it, and the sweeper: no operator.
    second = _start_worker(worker_env)
    sweeper = _start_sweeper(worker_env)
    try:
        _wait(lambda: RenderedMedia.objects.get(pk=media.pk).status in ("ready", "failed"), 240,
              "the medium to be rendered again")  # fmt: skip
        media.refresh_from_db()
        ready_at = media.ready_at
        time.sleep(3)  # long enough for a second sweep or a redelivered message to do harm
        media.refresh_from_db()
    finally:
        sweeper.terminate()
        sweeper.wait(timeout=20)
        _stop(second)

    assert media.status == RenderedMedia.Status.READY, media.error
    assert media.attempts == 2 and media.ready_at == ready_at  # rendered once more, once
    assert not list(tmp_dir.iterdir())  # the dead attempt's temp file was swept away
    renders = [p for p in final.rglob("*") if p.is_file()]
    assert [str(p) for p in renders] == [default_storage.path(media.path)]
    numbers = read_frame_numbers(renders[0])  # the ready row is a whole file, not a partial one
    assert numbers[0] == 30 and numbers[-1] == 569 and len(numbers) == 540


def test_a_render_past_the_soft_time_limit_fails_at_once_with_the_reason(
    worker_env, import_source, long_video
):
    from media.renders import media_for_window
    from media.tasks import render_medium
    from media.windows import condition_window

    worker_env.update({"CELERY_TASK_TIME_LIMIT": "120", "CELERY_TASK_SOFT_TIME_LIMIT": "1"})
    video = import_source(long_video)
    times = video.frame_times_us()
    tmp_dir = Path(default_storage.path("renders/tmp"))
    window = condition_window("history_15s", step=step_at(times, 480, 570, 575, 580))
    worker = _start_worker(worker_env)
    try:
        media = media_for_window(video=video, window=window, enqueue=False)
        # The limits travel in the message, set by the process that sends it (from its settings,
        # or per message as here). 1 s: past the claim (a limit that strikes before it leaves
        # nothing to fail), far inside the render of 540 frames of 720p (about 10 s of CPU).
        render_medium.apply_async(args=[media.pk], time_limit=120, soft_time_limit=1)
        _wait(lambda: RenderedMedia.objects.get(pk=media.pk).status == "failed", 120,
              "the render to be stopped")  # fmt: skip
        _wait(lambda: not [p for p in _descendants(worker.pid) if "ffmpeg" in _cmdline(p)], 10,
              "ffmpeg to be stopped")  # fmt: skip
        assert worker.poll() is None  # the soft limit stops the task, not the worker
    finally:
        _stop(worker)
    media.refresh_from_db()
    assert "soft time limit of 1 s (CELERY_TASK_SOFT_TIME_LIMIT)" in media.error
    assert media.attempts == 1 and media.lease_owner == ""  # not left for the sweeper to retry
    assert not list(tmp_dir.iterdir())


# --- imports on the media worker ------------------------------------------------------------------


@pytest.fixture(scope="session")
def many_frames_video(synth_dir):
    """180,000 frames of 16x16 (120 fps, 25 min, about 2 MB): indexing it takes long enough to
    stop a worker in the middle. Matroska, so the index is ffmpeg's streaming packet listing (an
    MP4's sample tables are read in milliseconds). Imported with MEDIA_MIN_SIDE_PX lowered."""
    from media.ffmpeg import run_ffmpeg

    path = synth_dir / "many-frames.mkv"
    run_ffmpeg(["-f", "lavfi", "-i", "color=c=gray:s=16x16:r=120:d=1500", "-c:v", "libx264",
                "-preset", "ultrafast", "-g", "1200", "-pix_fmt", "yuv420p", "-f", "matroska",
                "-y", f"file:{path}"], timeout=600)  # fmt: skip
    return path


def _upload(client, admin_user, scene, path) -> VideoImport:
    from django.urls import reverse

    from tests.conftest import PASSWORD

    client.login(username=admin_user.username, password=PASSWORD)
    with open(path, "rb") as handle:
        response = client.post(reverse("admin:media_sourcevideo_import"),
                               {"scene": scene.pk, "file": handle})  # fmt: skip
    assert response.status_code == 302, response.content[:500]
    return VideoImport.objects.get()


def test_admin_upload_is_probed_on_the_media_worker(
    celery_worker_process, client, admin_user, scene, cfr_video, settings
):
    from django.urls import reverse

    started = time.monotonic()
    job = _upload(client, admin_user, scene, cfr_video.path)
    answered = time.monotonic() - started
    progress_url = reverse("admin:media_videoimport_progress", args=[job.pk])
    state = _wait(lambda: (s := client.get(progress_url).json())["finished"] and s, 120,
                  "the import")  # fmt: skip
    assert state["status"] == "done", state["error"]
    video = SourceVideo.objects.get()
    assert state["video"] == video.pk and video.frame_count == len(cfr_video.frame_times_us)
    assert video.imported_by == admin_user
    files = [p for p in Path(settings.MEDIA_ROOT).rglob("*") if p.is_file()]
    assert files == [Path(default_storage.path(video.file.name))]  # staged copy removed
    assert answered < 30  # the request did not wait for the probe (generous: shared machine)


def test_killed_worker_mid_import_is_retried_by_the_sweeper_and_imports_once(
    worker_env, client, admin_user, scene, many_frames_video, settings
):
    worker_env |= {"LEASE_SECONDS": "3", "MEDIA_MIN_SIDE_PX": "16"}
    settings.MEDIA_MIN_SIDE_PX = 16
    first = _start_worker(worker_env)
    try:
        job = _upload(client, admin_user, scene, many_frames_video)
        # Progress is written while the index is built: the worker is in the middle of it.
        _wait(lambda: VideoImport.objects.get(pk=job.pk).progress > 0, 120, "the index to start")
        os.killpg(first.pid, signal.SIGKILL)  # the worker, its pool child and its ffmpeg
        first.wait(timeout=20)
    finally:
        _stop(first)

    job.refresh_from_db()
    assert job.status == "probing" and 0 < job.progress < 1
    assert not SourceVideo.objects.exists()
    _wait(lambda: VideoImport.objects.get(pk=job.pk).lease_expires_at < now(), 30,
          "the lease to run out")  # fmt: skip
    second = _start_worker(worker_env)
    try:
        assert leases_sweep()["media.import"] == {"requeued": 1, "failed": 0}
        _wait(lambda: VideoImport.objects.get(pk=job.pk).finished, 180, "the retried import")
    finally:
        _stop(second)

    job.refresh_from_db()
    assert (job.status, job.attempts, job.error) == ("done", 2, "")
    video = SourceVideo.objects.get()
    assert job.video == video and video.frame_count == 180_000
    files = [p for p in Path(settings.MEDIA_ROOT).rglob("*") if p.is_file()]
    assert files == [Path(default_storage.path(video.file.name))]  # staged copy removed


def test_an_import_whose_workers_keep_dying_fails_with_a_reason(scene, settings):
    from media.imports import IMPORT_WORK

    name = default_storage.save("imports/dead.upload", io.BytesIO(b"x" * 64))
    job = VideoImport.objects.create(
        scene=scene, title="dead.mp4", upload=name, size_bytes=64, status="probing",
        lease_owner="gone:1:abcd", lease_expires_at=now(), attempts=IMPORT_WORK.attempts_allowed,
    )  # fmt: skip
    assert leases_sweep()["media.import"] == {"requeued": 0, "failed": 1}
    job.refresh_from_db()
    assert job.status == "failed" and "gave up after" in job.error
    assert not default_storage.exists(name)  # the last attempt's staged file is removed
