"""Shared helpers: the statistics-engine tests (no Django) and the model-run tests (a stand-in
provider, a frozen release, endpoints and packages)."""

import json
import math
import os
import subprocess
import sys
import uuid

import httpx2
import pytest

TOLERANCE = 1e-9


def _assert_close(ours, ref, context="", tol=TOLERANCE):
    """Both nan, or equal within ``tol`` (absolute)."""
    ours, ref = float(ours), float(ref)
    if math.isnan(ref) or math.isnan(ours):
        assert math.isnan(ref) and math.isnan(ours), f"{context}: ours={ours!r} ref={ref!r}"
        return
    assert abs(ours - ref) <= tol, f"{context}: ours={ours!r} ref={ref!r} diff={ours - ref:.3g}"


@pytest.fixture
def assert_close():
    return _assert_close


# --- Model runs: the stand-in provider, a frozen release, endpoints ---------------------------


S = 1_000_000
LABELS = [
    (
        "Fill the kettle with water",
        "Get water to boil for tea",
        "Put the kettle on its base",
        ["Wipe the kettle dry"],
    ),
    ("Take a mug from the shelf", "A mug is needed to brew in", "Drop a tea bag into the mug", []),
    ("Pour the boiling water", "Brew the tea", "Wait for the tea to steep", ["Add milk"]),
]


class StandIn:
    """A running stand-in provider (``manage.py serve_stand_in_provider``) and its control API."""

    def __init__(self, proc, url):
        self.proc = proc
        self.url = url  # http://127.0.0.1:PORT
        self.base_url = f"{url}/v1"

    def _call(self, path, payload=None):
        if payload is None:
            return httpx2.get(self.url + path, timeout=10).json()
        return httpx2.post(self.url + path, json=payload, timeout=10).json()

    def rules(self, *rules):
        return self._call("/_stand_in/rules", {"rules": list(rules)})

    def stats(self):
        return self._call("/_stand_in/stats")

    def bodies(self, last=10):
        return [json.loads(b) for b in self._call(f"/_stand_in/requests?last={last}")["bodies"]]

    def reset(self):
        return self._call("/_stand_in/reset", {})


def start_stand_in(env=None, latency_ms=0, args=()) -> StandIn:
    from tests.conftest import ROOT

    proc = subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "serve_stand_in_provider",
            "--port",
            "0",
            "--latency-ms",
            str(latency_ms),
            *args,
        ],
        cwd=ROOT,
        env=env or dict(os.environ),
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    line = proc.stdout.readline()
    while line and "http://" not in line and "rule" in line:  # "N scripted rule(s) from ..."
        line = proc.stdout.readline()
    if "http://" not in line:
        proc.kill()
        raise RuntimeError(f"the stand-in did not start: {line!r}")
    url = line.strip().rsplit(" ", 1)[-1].removesuffix("/v1")
    return StandIn(proc, url)


def stop_stand_in(stand_in: StandIn) -> None:
    stand_in.proc.terminate()
    try:
        stand_in.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        stand_in.proc.kill()
        stand_in.proc.wait()


@pytest.fixture(scope="session")
def stand_in_server():
    server = start_stand_in()
    yield server
    stop_stand_in(server)


@pytest.fixture
def stand_in(stand_in_server):
    stand_in_server.reset()
    return stand_in_server


@pytest.fixture(autouse=True)
def _model_settings(settings, tmp_path):
    """Fast retries and limits of this test's own (a fresh file store or Redis key prefix)."""
    settings.MODEL_BACKOFF_BASE_SECONDS = 0.01
    settings.MODEL_BACKOFF_MAX_SECONDS = 0.05
    if not settings.MODEL_LIMITER_URL.startswith("redis"):
        settings.MODEL_LIMITER_URL = f"file://{tmp_path / 'limits'}"
    settings.MODEL_LIMITER_PREFIX = f"test13:{uuid.uuid4().hex}:"


@pytest.fixture
def frozen_release(db, make_video, annotator, admin_user):
    """Three labelled steps of one video (no file behind it), frozen as release ``r1``."""
    from annotation.releases import release_freeze
    from annotation.services import step_create

    video = make_video(title="secret-title-of-the-video.mp4")
    for i, (local, why, nxt, plausible) in enumerate(LABELS):
        step_create(
            video=video,
            author=annotator,
            start_us=i * 3 * S,
            cutoff_us=i * 3 * S + 2 * S,
            outcome_us=i * 3 * S + 2 * S,
            end_us=(i + 1) * 3 * S,
            local_intent=local,
            procedural_intent=why,
            next_step=nxt,
            plausible_next_steps=plausible,
        )
    return release_freeze(name="r1", author=admin_user)


@pytest.fixture
def make_endpoint(db, stand_in):
    from scoring.endpoints import endpoint_create

    def make(name="stand-in-vlm", **fields):
        fields.setdefault("base_url", stand_in.base_url)
        fields.setdefault("model", "stand-in-vision")
        fields.setdefault("json_schema", True)
        fields.setdefault("max_attempts", 3)
        fields.setdefault("timeout_seconds", 10)
        return endpoint_create(name=name, **fields)

    return make


@pytest.fixture
def packages(db):
    from scoring.packages import package_resolve, packages_sync_builtin

    packages_sync_builtin()
    return package_resolve


@pytest.fixture(scope="session")
def synth_file(tmp_path_factory):
    from tests.synth_cache import synth_video

    return synth_video(tmp_path_factory.mktemp("synth") / "clip.mp4", seconds=6, fps=30)


@pytest.fixture
def media_release(db, scene, synth_file, annotator, admin_user):
    """A real frame-numbered video with two labelled steps, frozen as release ``media``."""
    import shutil

    from annotation.releases import release_freeze
    from annotation.services import step_create
    from media.services import video_import
    from media.timebase import snap_to_frame

    copy = synth_file.path.parent / f"copy-{uuid.uuid4().hex}.mp4"
    shutil.copyfile(synth_file.path, copy)
    video = video_import(path=copy, scene=scene, title="secret-title-of-the-video.mp4")
    times = video.frame_times_us()
    for i, (local, why, nxt, plausible) in enumerate(LABELS[:2]):
        marks = [snap_to_frame(times, t) for t in (i * 3 * S, i * 3 * S + 2 * S, i * 3 * S + 2 * S)]
        step_create(
            video=video,
            author=annotator,
            start_us=marks[0],
            cutoff_us=marks[1],
            outcome_us=marks[2],
            end_us=snap_to_frame(times, (i + 1) * 3 * S - 1),
            local_intent=local,
            procedural_intent=why,
            next_step=nxt,
            plausible_next_steps=plausible,
        )
    return release_freeze(name="media", author=admin_user)


def render_run_media(run) -> None:
    """Render, in this process, every medium a run's items wait for."""
    from media.renders import media_render

    for media_id in set(run.items.exclude(media=None).values_list("media_id", flat=True)):
        media_render(media_id=media_id)


# The study tests' release and models (tests/scoring/studies.py).
from tests.scoring.studies import models, study_release  # noqa: E402, F401
