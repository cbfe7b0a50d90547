"""Saving from the browser: two people on one step get the conflict view and both texts end up
in the history; an edit made offline, or whose answer was lost, reaches the server exactly once;
a draft survives a reload."""

from __future__ import annotations

import pytest

from annotation.models import StepRevision
from annotation.services import step_create
from tests.e2e.conftest import open_workspace, wait_idle

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
S = 1_000_000


@pytest.fixture
def video(import_video, annotator):
    return import_video("cfr", assign_to=annotator)


@pytest.fixture
def step(video, annotator):
    times = video.frame_times_us().tolist()
    return step_create(
        video=video,
        author=annotator,
        start_us=times[3],
        cutoff_us=times[20],
        outcome_us=times[22],
        end_us=times[40],
        local_intent="Open the box",
    )


def state(page, name, timeout=15_000):
    page.wait_for_selector(f"[data-role=save-state][data-state={name}]", timeout=timeout)


def texts(step):
    return [
        v["local_intent"]
        for v in StepRevision.objects.filter(step=step)
        .order_by("version")
        .values_list("values", flat=True)
    ]


def test_two_editors_get_the_conflict_view_and_both_texts_survive(
    open_as, annotator, admin_user, video, step
):
    mine = open_workspace(open_as(annotator), video)
    theirs = open_workspace(open_as(admin_user), video)
    wait_idle(mine)
    wait_idle(theirs)
    theirs.fill("[name=local_intent]", "Open the box with a knife")
    state(theirs, "saved")
    assert texts(step)[-1] == "Open the box with a knife"

    mine.fill("[name=local_intent]", "Lift the lid of the box")
    state(mine, "conflict")
    conflict = mine.locator("[data-role=conflict]")
    assert conflict.is_visible()
    row = conflict.locator(".conflict-row[data-field=local_intent]")
    assert row.locator("[data-role=stored]").inner_text() == "Open the box with a knife"
    assert row.locator("[data-role=mine]").inner_text() == "Lift the lid of the box"
    row.locator("button[data-choice=keep-both]").click()
    conflict.locator("[data-action=save-merged]").click()
    state(mine, "saved")
    assert not conflict.is_visible()
    assert texts(step) == [
        "Open the box",
        "Open the box with a knife",
        "Open the box with a knife / Lift the lid of the box",
    ]
    revision = StepRevision.objects.filter(step=step).latest("version")
    assert revision.author == annotator and revision.previous["local_intent"] == (
        "Open the box with a knife"
    )
    # The history panel shows both edits: who, and the diff of each.
    mine.keyboard.press("h")
    mine.wait_for_selector("[data-role=history] .revision[data-version='3']")
    latest = mine.locator("[data-role=history] .revision[data-version='3']")
    assert "anna" in latest.locator(".revision-head").inner_text()
    row = latest.locator("tr[data-field=local_intent]")
    assert row.locator(".before").inner_text() == "Open the box with a knife"
    assert row.locator(".after").inner_text() == (
        "Open the box with a knife / Lift the lid of the box"
    )
    theirs_row = mine.locator(
        "[data-role=history] .revision[data-version='2'] tr[data-field=local_intent] .after"
    )
    assert theirs_row.inner_text() == "Open the box with a knife"
    assert "ada" in mine.inner_text("[data-role=history] .revision[data-version='2']")


def test_an_edit_made_offline_reaches_the_server_once_when_it_is_back(
    open_as, annotator, video, step
):
    context = open_as(annotator)
    page = open_workspace(context, video)
    wait_idle(page)
    context.set_offline(True)
    page.fill("[name=procedural_intent]", "To take out what is inside")
    state(page, "offline")
    assert len(texts(step)) == 1
    # Still offline, the draft is on this device.
    drafts = page.evaluate(
        "() => Object.keys(localStorage).filter(k => k.startsWith('studio:draft:'))"
    )
    assert drafts and drafts[0].endswith(f":{step.uid}:1")
    context.set_offline(False)
    state(page, "saved")
    revisions = list(StepRevision.objects.filter(step=step).order_by("version"))
    assert len(revisions) == 2
    assert revisions[1].values["procedural_intent"] == "To take out what is inside"
    assert (
        page.evaluate(
            "() => Object.keys(localStorage).filter(k => k.startsWith('studio:draft:')).length"
        )
        == 0
    )


def test_a_save_whose_answer_is_lost_is_sent_again_and_stored_once(open_as, annotator, video, step):
    page = open_workspace(open_as(annotator), video)
    wait_idle(page)
    lost = []

    def drop_the_answer(route):
        # The request reaches the server and is applied; the answer never reaches the page.
        if route.request.method == "PATCH" and not lost:
            route.fetch()
            lost.append(route.request.post_data)
            route.abort("connectionreset")
        else:
            route.continue_()

    page.route("**/api/annotation/steps/*/", drop_the_answer)
    page.fill("[name=next_step]", "Take out the scissors")
    state(page, "saved")
    assert lost, "the first answer was not dropped"
    revisions = list(StepRevision.objects.filter(step=step).order_by("version"))
    assert [r.values["next_step"] for r in revisions] == ["", "Take out the scissors"]


def test_an_unsaved_draft_survives_closing_the_page_and_is_then_saved(
    open_as, annotator, video, step
):
    context = open_as(annotator)
    page = open_workspace(context, video)
    wait_idle(page)
    context.set_offline(True)
    page.fill("[name=local_intent]", "Open the box slowly")
    state(page, "offline")
    page.close()  # the tab is gone with the edit unsent; only the local draft holds it
    context.set_offline(False)
    assert texts(step) == ["Open the box"]
    page = open_workspace(context, video)
    state(page, "saved")
    assert page.input_value("[name=local_intent]") == "Open the box slowly"
    assert texts(step) == ["Open the box", "Open the box slowly"]


def test_a_conflict_on_other_fields_keeps_both_sides_without_a_question(
    open_as, annotator, admin_user, video, step
):
    mine = open_workspace(open_as(annotator), video)
    theirs = open_workspace(open_as(admin_user), video)
    wait_idle(mine)
    wait_idle(theirs)
    theirs.fill("[name=next_step]", "Cut the tape")
    state(theirs, "saved")
    mine.fill("[name=procedural_intent]", "To get at the contents")
    state(mine, "conflict")
    conflict = mine.locator("[data-role=conflict]")
    assert conflict.locator(".conflict-row").count() == 0
    assert "Taken from the stored version: Next step." in conflict.inner_text()
    mine.fill("[name=local_intent]", "Open the box now")  # typed while the view is open
    conflict.locator("[data-action=save-merged]").click()
    state(mine, "saved")
    step.refresh_from_db()
    assert (step.local_intent, step.procedural_intent, step.next_step) == (
        "Open the box now",
        "To get at the contents",
        "Cut the tape",
    )
    assert mine.input_value("[name=next_step]") == "Cut the tape"
