"""Runs on real Celery worker processes (threads pool, the ``models`` queue): the per-endpoint
concurrency limit holds across two processes, and a worker killed mid-run loses at most the calls
it had in flight (its items come back through the lease sweeper)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from scoring.models import Run
from scoring.runs import run_predict
from studio.leases import leases_sweep
from tests.conftest import ROOT
from tests.scoring.conftest import S, start_stand_in, stop_stand_in

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _release(make_video, annotator, admin_user, steps: int):
    from annotation.releases import release_freeze
    from annotation.services import step_create

    video = make_video(seconds=steps * 3 + 5)
    for i in range(steps):
        step_create(
            video=video,
            author=annotator,
            start_us=i * 3 * S,
            cutoff_us=i * 3 * S + S,
            outcome_us=i * 3 * S + S,
            end_us=i * 3 * S + 2 * S,
            local_intent=f"do {i}",
            procedural_intent="why",
            next_step="next",
        )
    return release_freeze(name="workers", author=admin_user)


def _worker(env, threads: int) -> subprocess.Popen:
    from studio.services import live_workers

    name = f"models-test-{os.getpid()}-{time.monotonic_ns()}@localhost"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "studio",
            "worker",
            "-Q",
            "models",
            "-P",
            "threads",
            "-c",
            str(threads),
            "-n",
            name,
            "--loglevel",
            "WARNING",
            "--without-gossip",
            "--without-mingle",
        ],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not any(w.hostname == name for w in live_workers()):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the models worker did not start")
        time.sleep(0.3)
    return proc


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture
def env(worker_env, settings):
    worker_env |= {
        "MODEL_LIMITER_URL": settings.MODEL_LIMITER_URL,
        "MODEL_LIMITER_PREFIX": settings.MODEL_LIMITER_PREFIX,
        "MODEL_BACKOFF_BASE_SECONDS": "0.05",
        "MODEL_BACKOFF_MAX_SECONDS": "0.2",
        "LEASE_SECONDS": "3",
    }
    return worker_env


@pytest.fixture
def slow_stand_in():
    server = start_stand_in(latency_ms=300)
    yield server
    stop_stand_in(server)


def _wait_finished(run: Run, seconds: float, sweep: bool = False) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if sweep:
            leases_sweep()
        run.refresh_from_db()
        if run.status == "finished":
            return
        time.sleep(0.5)
    pytest.fail(f"run did not finish: {run.items.values_list('state', 'outcome')}")


def _endpoint(stand_in, concurrency):
    from scoring.endpoints import endpoint_create

    return endpoint_create(
        name="limited",
        base_url=stand_in.base_url,
        model="stand-in-vision",
        json_schema=True,
        max_concurrency=concurrency,
        timeout_seconds=10,
    )


def _predict(release, endpoint, packages):
    return run_predict(
        name="w",
        endpoint=endpoint,
        package=packages("frames-prediction"),
        condition="prompt_only",
        release=release,
    )


def test_the_concurrency_limit_holds_across_two_worker_processes(
    env, slow_stand_in, make_video, annotator, admin_user, packages
):
    release = _release(make_video, annotator, admin_user, steps=24)
    workers = [_worker(env, threads=3), _worker(env, threads=3)]
    try:
        run = _predict(release, _endpoint(slow_stand_in, 3), packages)  # six drivers
        _wait_finished(run, 120)
    finally:
        for proc in workers:
            _stop(proc)
    stats = slow_stand_in.stats()
    assert set(run.items.values_list("outcome", flat=True)) == {"ok"}
    assert stats["requests"] == 24
    assert stats["peak_concurrency"] == 3  # never above the limit, and the limit was reached


def test_a_killed_worker_loses_at_most_its_calls_in_flight(
    env, make_video, annotator, admin_user, packages
):
    stand_in = start_stand_in(latency_ms=1000)
    release = _release(make_video, annotator, admin_user, steps=10)
    doomed, survivor = _worker(env, threads=2), None
    try:
        run = _predict(release, _endpoint(stand_in, 2), packages)
        # A time-out, not a timing: on a loaded machine the first call may take a while.
        deadline = time.monotonic() + 120
        while not run.items.filter(state="done").exists():
            assert time.monotonic() < deadline, "nothing finished"
            time.sleep(0.2)
        os.killpg(doomed.pid, signal.SIGKILL)
        doomed.wait()
        survivor = _worker(env, threads=2)
        _wait_finished(run, 120, sweep=True)
    finally:
        _stop(doomed)
        if survivor is not None:
            _stop(survivor)
        requests = stand_in.stats()["requests"]
        stop_stand_in(stand_in)
    assert set(run.items.values_list("outcome", flat=True)) == {"ok"}
    assert 10 <= requests <= 10 + 2, requests  # at most the two calls in flight were lost


@pytest.mark.postgres
def test_a_nul_in_every_reply_never_wedges_a_run(
    env, stand_in, make_video, annotator, admin_user, packages
):
    """The finding replayed on PostgreSQL with a real worker: every reply holds a NUL (the JSON
    escape ``\\u0000``, which PostgreSQL refuses in JSON) and its model id a raw one. Before, the
    driver crashed and was requeued, and 14 of 15 items stayed pending; now each item ends as a
    parse failure saying why, and the run finishes."""
    reply = '{"local_intent": "pick up\\u0000", "procedural_intent": "x", "next_step": "y"}'
    stand_in.rules({"times": -1, "action": {"content": reply}})
    release = _release(make_video, annotator, admin_user, steps=15)
    worker = _worker(env, threads=3)
    try:
        run = _predict(release, _endpoint(stand_in, 3), packages)
        _wait_finished(run, 120)
    finally:
        _stop(worker)
    details = set(run.items.values_list("state", "outcome", "detail"))
    assert details == {
        (
            "done",
            "parse_failure",
            "reply.local_intent holds a NUL character (U+0000) at character 8; it cannot be stored",
        )
    }
    assert run.items.count() == 15 and stand_in.stats()["requests"] == 15
