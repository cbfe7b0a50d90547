"""The workspace fits the common laptop windows: at 1440 x 900 and 1280 x 800 the player, the whole
step panel (without scrolling inside it, tags included), the Official clip preview and the
timeline track are inside the window, and the timeline's labels are readable (clamped, full text
on hover)."""

from __future__ import annotations

import pytest

from annotation.services import step_create
from tests.e2e.conftest import open_workspace, wait_idle

pytestmark = [pytest.mark.e2e, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

SIZES = [(1440, 900), (1280, 800)]
LONG = "Lift the lid of the kettle with the left hand while holding the handle steady"
MUST_BE_VISIBLE = {
    "player": "[data-role=video]",
    "transport": ".ws-transport",
    "step panel": "[data-role=panel]",
    "label fields": "[name=next_step]",
    "tag input": "[data-role=tag-input]",
    "step actions": ".step-actions",
    "clip preview": "[data-role=preview]",
    "rendered clip": "[data-role=preview-video]",
    "timeline track": ".tl-track",
    "timeline bar": ".ws-timeline-bar",
}


def outside_the_window(page, width, height) -> dict:
    boxes = {name: page.locator(sel).bounding_box() for name, sel in MUST_BE_VISIBLE.items()}
    return {
        name: box
        for name, box in boxes.items()
        if box is None
        or box["x"] < 0
        or box["y"] < 0
        or box["x"] + min(box["width"], width) > width + 0.5  # the track scrolls sideways
        or box["y"] + box["height"] > height + 0.5
    }


def test_everything_an_annotator_needs_is_inside_the_window_at_both_sizes(
    celery_worker_process, open_as, import_video, annotator, tmp_path
):
    video = import_video("cfr", assign_to=annotator)
    times = video.frame_times_us().tolist()
    for i, (first, cutoff, outcome, end) in enumerate([(3, 20, 24, 30), (40, 55, 58, 64)]):
        step_create(
            video=video,
            author=annotator,
            start_us=times[first],
            cutoff_us=times[cutoff],
            outcome_us=times[outcome],
            end_us=times[end],
            local_intent=LONG if i == 0 else "Pour",
            plausible_next_steps=["Close the lid", "Wipe the spout"],
            tags=["action:pour", "occluded"],
        )
    page = open_workspace(open_as(annotator), video)
    wait_idle(page)
    page.keyboard.press("v")
    page.wait_for_selector("[data-role=preview][data-state=ready]", timeout=120_000)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("window.scrollTo(0, 0)")
        page.keyboard.press("0")  # fit the video into the timeline
        page.wait_for_timeout(100)  # one layout pass after the resize
        assert outside_the_window(page, width, height) == {}, (width, height)
        panel = page.locator("[data-role=panel]")
        page.screenshot(path=tmp_path / f"workspace-{width}x{height}.png")  # kept on failure
        assert panel.evaluate("el => el.scrollHeight <= el.clientHeight + 1"), (width, height)
        # Labels at fit zoom: clamped inside the bar, the full text in the bar's tooltip.
        bar = page.locator(".tl-step").first
        assert LONG in bar.get_attribute("title")
        label = bar.locator(".tl-label").bounding_box()
        outer = bar.bounding_box()
        assert label["y"] + label["height"] <= outer["y"] + outer["height"] + 0.5
    assert not page.errors
