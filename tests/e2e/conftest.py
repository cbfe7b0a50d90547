"""Browser fixtures: Debian's Chromium driven by Playwright (sync API) against pytest-django's
live server, users logged in through their session cookie, and real frame-numbered videos
imported through the media pipeline."""

from __future__ import annotations

import os
import subprocess
from types import SimpleNamespace

import numpy as np
import pytest

from tests.conftest import PASSWORD, REQUIRE_BROWSER, chromium_path

LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


# One browser per test module: Playwright's loop (and the flag below) end with the module, so the
# tests that run after the browser tests run without either.
@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    path = chromium_path()
    if path is None:
        if REQUIRE_BROWSER:
            pytest.fail("REQUIRE_BROWSER=1 but no Chromium is on the PATH")
        pytest.skip("needs Chromium on the PATH")
    # Playwright's sync API keeps an event loop running in the test thread; the ORM calls the
    # tests make between browser steps are still plain synchronous code. Only while a browser is
    # up, so no test outside tests/e2e (or subprocess it starts) inherits the flag.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=path, headless=True, args=LAUNCH_ARGS
            )
            yield browser
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def open_as(browser, live_server):
    """open_as(user) -> a new browser context logged in as ``user`` (its own cookies and
    storage, like a second browser). Every dialog any page opens is recorded in ``dialogs``."""
    from django.test import Client

    contexts = []
    dialogs: list[str] = []

    def make(user):
        client = Client()
        client.force_login(user)
        context = browser.new_context(
            base_url=live_server.url, viewport={"width": 1400, "height": 900}
        )
        host = live_server.url.split("://", 1)[1].split(":")[0]
        context.add_cookies(
            [
                {
                    "name": "sessionid",
                    "value": client.cookies["sessionid"].value,
                    "domain": host,
                    "path": "/",
                }
            ]
        )
        context.on(
            "page",
            lambda page: page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss())),
        )
        contexts.append(context)
        return context

    make.dialogs = dialogs
    make.password = PASSWORD
    yield make
    for context in contexts:
        context.close()
    _wait_for_a_quiet_database()


def _wait_for_a_quiet_database(timeout: float = 10.0) -> None:
    """After a live-server test the database is flushed with one TRUNCATE of every table. A
    request the server is still answering (a poll sent just before the browser closed) holds
    locks that TRUNCATE then waits for while the request waits for TRUNCATE's: a deadlock that
    fails the flush. Wait until no other connection is inside a statement or a transaction."""
    import time

    from django.db import connection

    if connection.vendor != "postgresql":
        return
    deadline = time.monotonic() + timeout
    quiet_since = None
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')"
            )
            if cursor.fetchone()[0]:
                quiet_since = None
            elif quiet_since is None:
                quiet_since = time.monotonic()
            # Quiet for a moment, not for one look: a request the server had already taken in
            # (a poll sent just before the browser closed) may reach the database a little later.
            elif time.monotonic() - quiet_since >= 0.5:
                return
            time.sleep(0.05)


def open_workspace(context, video):
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    def on_console(msg):
        if msg.type == "error":
            errors.append(msg.text)

    page.on("console", on_console)
    page.errors = errors
    page.goto(f"/annotate/videos/{video.pk}/")
    page.wait_for_selector("#workspace[data-ready=true]", timeout=15_000)
    return page


def wait_idle(page):
    """Until the player shows a settled frame and the page is not saving."""
    page.wait_for_function(
        "() => document.querySelector('[data-role=video]').dataset.state === 'idle'"
    )


def shown_frame_number(page, selector: str = "[data-role=video]") -> int:
    """The burned-in number of the picture a <video> element shows now, read from its pixels."""
    from media.synth import READ_SIZE, read_barcodes

    width, height = READ_SIZE
    grey = page.evaluate(
        """([w, h, sel]) => {
            const video = document.querySelector(sel);
            const canvas = document.createElement('canvas');
            canvas.width = w; canvas.height = h;
            const ctx = canvas.getContext('2d', { willReadFrequently: true });
            ctx.drawImage(video, 0, 0, w, h);
            const rgba = ctx.getImageData(0, 0, w, h).data;
            const out = new Array(w * h);
            for (let i = 0; i < w * h; i++) {
                out[i] = Math.round(0.299 * rgba[4*i] + 0.587 * rgba[4*i+1] + 0.114 * rgba[4*i+2]);
            }
            return out;
        }""",
        [width, height, selector],
    )
    frames = np.array(grey, dtype=np.uint8).reshape(1, height, width)
    return read_barcodes(frames)[0]


@pytest.fixture(scope="session")
def synth_files(tmp_path_factory):
    """Short frame-numbered videos: constant and variable frame rate, and two containers whose
    timeline does not start at the first frame."""
    from media.ffmpeg import ffmpeg_binary
    from tests.synth_cache import synth_video

    folder = tmp_path_factory.mktemp("synth")
    files = {
        "cfr": synth_video(folder / "cfr.mp4", seconds=6, fps=30, size=(320, 180)),
        "vfr": synth_video(folder / "vfr.mp4", seconds=6, fps=30, size=(320, 180), vfr=True),
    }
    # The same pictures in containers whose timeline does not start at the first frame: an MP4
    # without an edit list (its first picture comes after B-frame reordering) and a Matroska
    # file that starts at 1.5 s. Browsers and ffmpeg disagree on where such files start.
    for name, args in (
        ("mp4-no-editlist.mp4", ["-use_editlist", "0"]),
        ("mkv-offset.mkv", ["-output_ts_offset", "1.5"]),
    ):
        subprocess.run(
            [ffmpeg_binary(), "-v", "error", "-i", str(files["cfr"].path), "-c", "copy", *args,
             "-y", str(folder / name)],
            check=True,
        )  # fmt: skip
        files[name.split(".")[0]] = SimpleNamespace(path=folder / name)
    return files


@pytest.fixture
def import_video(scene, synth_files, admin_user):
    """import_video("cfr"|"vfr", assign_to=user) -> a SourceVideo imported from a real file."""
    from annotation.models import VideoAssignment
    from media.services import video_import

    def make(kind: str, *, assign_to=None):
        video = video_import(
            path=synth_files[kind].path, scene=scene, title=f"{kind}.mp4", user=admin_user
        )
        if assign_to is not None:
            VideoAssignment.objects.create(video=video, annotator=assign_to)
        return video

    return make


def clip_frame_number(page, selector: str, seconds: float) -> int:
    """Seek the <video> at ``selector`` to ``seconds`` and read the burned-in frame number."""
    page.evaluate(
        """([sel, t]) => new Promise((resolve, reject) => {
            const v = document.querySelector(sel);
            v.scrollIntoView();
            setTimeout(() => reject(new Error(`no frame: readyState ${v.readyState}`)), 10000);
            const go = () => {
                // A seek that lands on the picture already shown presents no new frame, so
                // requestVideoFrameCallback may never fire; "seeked" plus a moment is enough.
                v.addEventListener('seeked', () => {
                    v.requestVideoFrameCallback(() => resolve());
                    setTimeout(resolve, 500);
                }, { once: true });
                v.currentTime = t;
            };
            if (v.readyState >= 2) go(); else v.addEventListener('loadeddata', go, { once: true });
        })""",
        [selector, seconds],
    )
    return shown_frame_number(page, selector)


def step_on_frames(video, author, frames=(10, 30, 35, 50), **labels):
    """A step of ``video`` whose start, cutoff, outcome and end are these frames' times."""
    from annotation.services import step_create

    times = video.frame_times_us().tolist()
    start, cutoff, outcome, end = (times[i] for i in frames)
    return step_create(
        video=video,
        author=author,
        start_us=start,
        cutoff_us=cutoff,
        outcome_us=outcome,
        end_us=end,
        **labels,
    )
