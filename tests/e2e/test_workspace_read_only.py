"""The adjudicator reads any video's workspace: the player, the timeline, the panel and the
history work; no key, click or drag sends a write, and the fields cannot be typed into."""

from __future__ import annotations

import pytest

from annotation.models import MicroStep, StepRevision
from tests.e2e.conftest import open_workspace, step_on_frames, wait_idle
from tests.e2e.test_workspace_focus import MARKS, page_marks, single_key_bindings

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_adjudicator_reads_everything_and_nothing_they_do_writes(
    open_as, import_video, annotator, adjudicator
):
    video = import_video("cfr", assign_to=annotator)
    step = step_on_frames(
        video, annotator, local_intent="Pick up the cup", plausible_next_steps=["Drink"]
    )
    page = open_workspace(open_as(adjudicator), video)
    writes = []
    page.on("request", lambda r: writes.append(r.url) if r.method != "GET" else None)
    wait_idle(page)
    assert page.inner_text("[data-role=save-state]") == "Read-only"
    assert page.input_value("[name=local_intent]") == "Pick up the cup"
    before = page_marks(page)

    page.keyboard.press("ArrowRight")  # the player works
    wait_idle(page)
    assert page.get_attribute("#workspace", "data-frame") == "11"
    for key in [*single_key_bindings(page), "Delete", "Control+s"]:
        if key == "?":
            continue  # the help overlay is fine, but it would cover the timeline below
        page.keyboard.press(key)
        page.keyboard.press("Escape")  # closes the history overlay that "h" opens
    page.keyboard.press("Enter")  # into Local intent, which is read-only
    page.keyboard.type("typed over")
    assert page.input_value("[name=local_intent]") == "Pick up the cup"
    assert page.evaluate(
        "[...document.querySelectorAll('[data-role=plausible] input')].every((i) => i.readOnly)"
    )
    page.keyboard.press("Escape")

    handle = page.locator(f".tl-step[data-id='{step.pk}'] .tl-cutoff")
    box = handle.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + 120, box["y"] + box["height"] / 2, steps=6)
    page.mouse.up()
    assert page_marks(page) == before

    page.keyboard.press("h")
    page.wait_for_selector("[data-role=history] .revision[data-version='1']")
    assert "Step 1 of cfr.mp4" in page.inner_text("[data-role=history] [data-role=title]")
    assert writes == []
    step.refresh_from_db()
    assert [getattr(step, m) for m in MARKS] == [int(before[m]) for m in MARKS]
    assert (MicroStep.objects.count(), StepRevision.objects.count()) == (1, 1)
    assert not page.errors
