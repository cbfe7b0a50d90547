"""The cutoff placed on a frame is the last frame of the rendered Official clip: the annotator
places it from the keyboard, the real media worker renders the clip, and both the file and the
clip as the browser plays it end on exactly that frame (burned-in numbers), on constant and on
variable frame rate."""

from __future__ import annotations

import pytest
from django.core.files.storage import default_storage

from annotation.models import MicroStep
from media.models import RenderedMedia
from media.synth import read_frame_numbers
from tests.e2e.conftest import clip_frame_number, open_workspace, wait_idle
from tests.e2e.test_workspace_keyboard import go_to, wait_saved

pytestmark = [pytest.mark.e2e, pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_the_cutoff_frame_is_the_last_frame_of_the_official_clip(
    celery_worker_process, open_as, import_video, annotator
):
    context = open_as(annotator)
    for kind, (first, last_shown, outcome, last) in {
        "cfr": (4, 21, 24, 30),
        "vfr": (7, 26, 27, 33),
    }.items():
        video = import_video(kind, assign_to=annotator)
        page = open_workspace(context, video)
        wait_idle(page)
        go_to(page, first)
        page.keyboard.press("n")
        page.wait_for_function("() => document.getElementById('workspace').dataset.current")
        go_to(page, last)
        page.keyboard.press("e")
        go_to(page, last_shown)
        page.keyboard.press("c")
        go_to(page, outcome)
        page.keyboard.press("o")
        wait_saved(page)
        step = MicroStep.objects.get(video=video)
        times = video.frame_times_us().tolist()
        assert (step.start_us, step.cutoff_us) == (times[first], times[last_shown + 1])

        page.keyboard.press("v")
        page.wait_for_selector("[data-role=preview][data-state=ready]", timeout=120_000)
        assert page.get_attribute("[data-role=preview]", "data-last-frame") == str(last_shown)
        media = RenderedMedia.objects.get(video=video, status="ready")
        numbers = read_frame_numbers(default_storage.path(media.path))
        assert numbers == list(range(first, last_shown + 1)), kind
        # The clip as the browser plays it from its opaque URL ends on the same frame.
        src = page.get_attribute("[data-role=preview-video]", "src")
        assert src.startswith("/m/") and src.count("/") == 2  # an opaque token, nothing else
        last_time = media.output_times_us[-1] / 1e6 + 0.001
        assert clip_frame_number(page, "[data-role=preview-video]", last_time) == last_shown, kind
        assert clip_frame_number(page, "[data-role=preview-video]", 0) == first, kind
        page.close()
