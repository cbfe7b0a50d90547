"""The history overlay and the history page read alike: the same title, field names, values and
date format."""

from __future__ import annotations

import pytest

from annotation.services import step_update
from tests.e2e.conftest import open_workspace, step_on_frames, wait_idle

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

REVISIONS = """(root) => [...document.querySelectorAll(root + ' .revision')].map((li) => ({
    head: li.querySelector('.revision-head').textContent.trim().replace(/\\s+/g, ' '),
    time: li.querySelector('time').getAttribute('datetime'),
    shown: li.querySelector('time').textContent,
    rows: [...li.querySelectorAll('tr')].map((tr) =>
        [...tr.children].map((cell) => cell.textContent.trim())),
}))"""


def test_the_overlay_names_the_step_fields_and_dates_as_the_history_page(
    open_as, import_video, annotator
):
    video = import_video("cfr", assign_to=annotator)
    times = video.frame_times_us().tolist()
    step = step_on_frames(video, annotator, local_intent="Pick up the cup")
    step_update(
        step=step,
        author=annotator,
        version=1,
        values={"local_intent": "Lift the cup", "end_us": times[52]},
        reason="closer look",
    )
    context = open_as(annotator)
    page = open_workspace(context, video)
    wait_idle(page)
    page.keyboard.press("h")
    page.wait_for_selector("[data-role=history] .revision[data-version='1']")
    overlay_title = page.inner_text("[data-role=history] [data-role=title]")
    overlay = page.evaluate(REVISIONS, "[data-role=history]")

    history = context.new_page()
    history.goto(f"/annotate/steps/{step.pk}/history/")
    assert overlay_title == history.inner_text("h1") == "Step 1 of cfr.mp4 — history"
    assert overlay == history.evaluate(REVISIONS, "")
    latest = overlay[0]
    assert latest["head"].startswith("v2 · Edited · anna · ")
    # ISO 8601 in the attribute; shown to the second in the browser's zone, with its name
    assert latest["head"].endswith(latest["shown"])
    assert latest["shown"].startswith(latest["time"][:10] + " ")
    assert [row[0] for row in latest["rows"]] == ["End", "Local intent"]
    # The end mark as the workspace's panel names it: the step's last frame is the one before
    assert latest["rows"][0][2] == "0:01.733 · last #51"
    assert times[52] == 1_733_333
