"""Labels are text, never markup: script and onerror payloads typed into labels (and a video
title) show up as literal text and never run on any page that shows them. The pages are served
under an enforced Content-Security-Policy; the test also checks that no payload element entered
the DOM, so it would fail on an innerHTML slip even where the CSP saved the day."""

from __future__ import annotations

import pytest

from annotation.models import MicroStep
from annotation.services import step_create
from tests.e2e.conftest import open_workspace, wait_idle

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SCRIPT = "<script>alert('script')</script>"
ONERROR = "<img src=x onerror=\"alert('onerror')\">"
SVG = "<svg onload=alert('svg')>"


def assert_inert(page, dialogs):
    page.wait_for_timeout(300)  # let any handler that would fire get its chance
    assert dialogs == []
    assert page.locator("img[src=x]").count() == 0
    assert page.locator("svg[onload]").count() == 0
    assert (
        page.evaluate(
            "() => [...document.scripts].filter(s => s.textContent.includes('alert')).length"
        )
        == 0
    )


def test_label_payloads_never_execute_on_any_page(
    open_as, import_video, annotator, admin_user, adjudicator
):
    video = import_video("cfr", assign_to=annotator)
    video.title = f"{ONERROR}.mp4"
    video.save(update_fields=["title"])
    page = open_workspace(open_as(annotator), video)
    response_policy = page.evaluate(
        "async () => (await fetch(location.href)).headers.get('Content-Security-Policy')"
    )
    assert "script-src 'self'" in response_policy and "report-only" not in response_policy
    wait_idle(page)
    page.keyboard.press("n")
    page.wait_for_function("() => document.getElementById('workspace').dataset.current")
    page.fill("[name=local_intent]", SCRIPT)
    page.fill("[name=procedural_intent]", ONERROR)
    page.fill("[name=next_step]", SVG)
    page.click("[data-action=plausible-add]")
    page.fill("[data-role=plausible] input", ONERROR)
    page.wait_for_selector("[data-role=save-state][data-state=saved]", timeout=10_000)
    step = MicroStep.objects.get(video=video)
    assert (step.local_intent, step.procedural_intent, step.next_step) == (SCRIPT, ONERROR, SVG)
    dialogs = open_as.dialogs

    # The workspace after a reload: timeline label, panel, title.
    page.reload()
    page.wait_for_selector("#workspace[data-ready=true]")
    assert SCRIPT in page.inner_text(".tl-step .tl-label")
    assert ONERROR in page.inner_text(".ws-bar h1")
    assert_inert(page, dialogs)
    # The history panel.
    page.keyboard.press("h")
    page.wait_for_selector("[data-role=history] .revision")
    assert SCRIPT in page.inner_text("[data-role=history]")
    assert_inert(page, dialogs)
    # The history page.
    page.goto(f"/annotate/steps/{step.pk}/history/")
    assert SCRIPT in page.inner_text("main")
    assert_inert(page, dialogs)
    # The video list.
    page.goto("/annotate/")
    assert ONERROR in page.inner_text("main")
    assert_inert(page, dialogs)
    # The home page names the first video with an open problem.
    times = video.frame_times_us().tolist()
    step_create(
        video=video, author=annotator, start_us=times[150], cutoff_us=times[160],
        outcome_us=times[160], end_us=times[170],
    )  # fmt: skip
    page.goto("/")
    assert f"Open {ONERROR}.mp4" in page.inner_text("main")
    assert_inert(page, dialogs)
    # The adjudicator's read-only workspace and the list of all videos.
    reader = open_workspace(open_as(adjudicator), video)
    assert SCRIPT in reader.inner_text(".tl-step .tl-label")
    assert reader.input_value("[name=local_intent]") == SCRIPT
    assert_inert(reader, dialogs)
    reader.goto("/annotate/")
    assert ONERROR in reader.inner_text("main")
    assert_inert(reader, dialogs)

    # The admin's change page of the step.
    admin = open_as(admin_user).new_page()
    admin.goto(f"/admin/annotation/microstep/{step.pk}/change/")
    assert SCRIPT in admin.inner_text("#content")
    assert_inert(admin, dialogs)
    # The conflict view shows both versions side by side: make one and look.
    MicroStep.objects.filter(pk=step.pk).update(version=step.version + 1)
    page.goto(f"/annotate/videos/{video.pk}/")
    page.wait_for_selector("#workspace[data-ready=true]")
    MicroStep.objects.filter(pk=step.pk).update(version=step.version + 2, local_intent=ONERROR)
    page.fill("[name=local_intent]", SVG)
    page.wait_for_selector("[data-role=conflict]:not([hidden])", timeout=10_000)
    assert ONERROR in page.inner_text("[data-role=conflict]")
    assert_inert(page, dialogs)
