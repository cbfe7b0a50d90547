"""The distributed topology of README "Distributed set-up", each part its own process against
PostgreSQL and Redis: two media workers, a models worker and Celery beat (the sweeper's clock).
A batch of 20 renders is shared by the two media workers; one is SIGKILLed in the middle of it;
every job still ends ready exactly once, without an operator."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.files.storage import default_storage

from media.batches import RenderJob, batch_create, batch_progress
from media.models import RenderedMedia
from media.synth import read_frame_numbers
from studio.services import live_workers
from tests.conftest import ROOT
from tests.media.conftest import expected_frames, step_at

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
]

JOBS = 20


@pytest.fixture(scope="module")
def batch_video(tmp_path_factory):
    from tests.synth_cache import synth_video

    path = tmp_path_factory.mktemp("distributed") / "batch.mp4"
    return synth_video(path, seconds=24, fps=30, size=(640, 360), gop=30)


def _spawn(env, argv: list[str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "studio", *argv],
        cwd=ROOT, env=env, start_new_session=True,
    )  # fmt: skip


def _worker(env, name: str, *options: str) -> tuple[str, subprocess.Popen]:
    hostname = f"{name}-{os.getpid()}@{socket.gethostname()}"
    argv = ["worker", "-n", hostname, "--loglevel", "WARNING", "--without-gossip",
            "--without-mingle", *options]  # fmt: skip
    return hostname, _spawn(env, argv)


def _wait(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


def _pool_pids(pid: int) -> set[str]:
    try:
        return set(Path(f"/proc/{pid}/task/{pid}/children").read_text().split())
    except OSError:
        return set()


def _stop(procs) -> None:
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_two_media_workers_share_a_batch_and_one_killed_midway_loses_no_job(
    worker_env, import_source, batch_video, tmp_path
):
    from studio.celery import app
    from studio.tasks import ping

    env = {**worker_env, "LEASE_SECONDS": "3", "LEASE_SWEEP_SECONDS": "1"}
    app.control.purge()  # nothing left in this Redis database from an earlier run
    video = import_source(batch_video)
    times = video.frame_times_us()
    jobs = [
        RenderJob(subject=f"job {k}", video_id=video.pk,
                  step=step_at(times, 30 * k + 5, 30 * k + 35, 30 * k + 36, 30 * k + 37))
        for k in range(JOBS)
    ]  # fmt: skip

    # Media workers take the media and default queues, as in docker-compose.yml.
    media_a, a = _worker(env, "media-a", "-Q", "media,default", "-c", "1")
    media_b, b = _worker(env, "media-b", "-Q", "media,default", "-c", "1")
    models, m = _worker(env, "models", "-Q", "models", "-P", "threads", "-c", "4")
    beat = _spawn(env, ["beat", "--loglevel", "WARNING", "-s", str(tmp_path / "schedule")])
    procs = [a, b, m, beat]
    try:
        _wait(lambda: {media_a, media_b, models} <= {w.hostname for w in live_workers()}, 90,
              "three worker heartbeats")  # fmt: skip
        # The models worker is its own process on its own queue.
        assert ping.apply_async(args=["models"], queue="models").get(timeout=60) == "pong:models"

        batch = batch_create(jobs=jobs, conditions=["official"], profiles=["clip"])
        assert batch.items.count() == JOBS

        # Kill media-a's main process (SIGKILL, no clean-up) while its pool process renders.
        def victim_rendering():
            pids = _pool_pids(a.pid)
            return RenderedMedia.objects.filter(
                status=RenderedMedia.Status.RENDERING,
                lease_owner__regex=rf"^[^:]+:({'|'.join(pids) or 'none'}):",
            ).first()

        def some_ready_and_victim_busy():
            ready = RenderedMedia.objects.filter(status=RenderedMedia.Status.READY).count()
            return ready >= 2 and victim_rendering()

        taken = _wait(some_ready_and_victim_busy, 120, "media-a in the middle of a render")
        os.kill(a.pid, signal.SIGKILL)
        a.wait(timeout=20)
        ready_before = RenderedMedia.objects.filter(status=RenderedMedia.Status.READY).count()
        assert ready_before < JOBS  # killed mid-batch

        progress = _wait(lambda: (p := batch_progress(batch))["finished"] and p, 300,
                         "the whole batch")  # fmt: skip
        stamps = dict(RenderedMedia.objects.values_list("pk", "ready_at"))
        time.sleep(4)  # more sweeps and deliveries: nothing may be rendered again
        assert dict(RenderedMedia.objects.values_list("pk", "ready_at")) == stamps
    finally:
        _stop(procs)

    assert (progress["ready"], progress["failed"]) == (JOBS, 0), progress["failures"]
    media = list(RenderedMedia.objects.order_by("pk"))
    assert len(media) == JOBS
    attempts = {m.pk: m.attempts for m in media}
    # Exactly once: one claim per medium, and one more for the one the killed worker held.
    assert attempts.pop(taken.pk) == 2
    assert set(attempts.values()) == {1}
    renders = Path(default_storage.path("renders"))
    finals = sorted(p for p in renders.rglob("*.mp4") if "tmp" not in p.relative_to(renders).parts)
    assert finals == sorted(Path(default_storage.path(m.path)) for m in media)
    assert not list((renders / "tmp").iterdir())  # the dead attempt's temp file swept away
    killed = RenderedMedia.objects.get(pk=taken.pk)
    k = int(batch.items.get(media=killed).subject.split()[1])
    window = expected_frames(times, [(times[30 * k + 5], times[30 * k + 35])])
    assert read_frame_numbers(default_storage.path(killed.path)) == window
