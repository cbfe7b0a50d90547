"""Tags in the workspace's step panel: chips added and removed from the keyboard, normalised as
the server stores them, a bad tag refused in the server's words with nothing sent, saved through
the autosave with the other fields (another tab's edit opens the conflict view), payload text
shown inert, and read-only chips without an editor."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError

from annotation.models import MicroStep, StepRevision
from annotation.tags import clean_tags
from tests.e2e.conftest import open_workspace, step_on_frames, wait_idle
from tests.e2e.test_workspace_focus import page_marks
from tests.e2e.test_workspace_xss import ONERROR, SCRIPT, assert_inert

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

INPUT = "[data-role=tag-input]"
ERROR = "[data-role=tag-error]"


def server_message(tags: list[str]) -> str:
    with pytest.raises(ValidationError) as refused:
        clean_tags(tags)
    return refused.value.message_dict["tags"][0]


def chips(page) -> list[str]:
    return page.eval_on_selector_all(
        "[data-role=tag-chips] .tag-chip", "els => els.map(e => e.dataset.tag)"
    )


def saved(page, timeout=10_000):
    page.wait_for_selector("[data-role=save-state][data-state=saved]", timeout=timeout)


def step_tags(step) -> list[str]:
    step.refresh_from_db()
    return step.tags


@pytest.fixture
def tagged(import_video, annotator):
    video = import_video("cfr", assign_to=annotator)
    step = step_on_frames(video, annotator, local_intent="Pick up the cup")
    other = step_on_frames(video, annotator, frames=(60, 70, 72, 80), tags=["action:stir", "wet"])
    return video, step, other


def sent_bodies(page) -> list[dict]:
    bodies: list[dict] = []
    page.on(
        "request",
        lambda r: bodies.append(json.loads(r.post_data or "{}")) if r.method != "GET" else None,
    )
    return bodies


def test_tags_are_added_and_removed_from_the_keyboard_and_persist(open_as, annotator, tagged):
    video, step, _ = tagged
    page = open_workspace(open_as(annotator), video)
    bodies = sent_bodies(page)
    wait_idle(page)
    before = page_marks(page)
    assert chips(page) == []
    # The suggestions are the tags used in this video.
    options = page.eval_on_selector_all("#tag-suggestions option", "els => els.map(e => e.value)")
    assert options == ["action:stir", "wet"]

    page.keyboard.press("?")
    assert "tags: focus the tag input" in page.inner_text("[data-role=help]")
    page.keyboard.press("Escape")
    page.keyboard.press("t")  # from the page: the tag input gets the focus
    assert page.evaluate("document.activeElement.dataset.role") == "tag-input"
    page.keyboard.type("Action:Pour")
    page.keyboard.press("Enter")
    assert chips(page) == ["action:pour"]  # normalised at once, as the server stores it
    page.keyboard.type(" Hand:Left,")  # a comma adds too
    assert chips(page) == ["action:pour", "hand:left"]
    assert page.input_value(INPUT) == ""
    saved(page)
    assert step_tags(step) == ["action:pour", "hand:left"]
    assert page_marks(page) == before  # typing "s", "c", "e"… set no mark

    # A bad tag: the server's message, the text kept to fix, nothing sent.
    sent = len(bodies)
    page.keyboard.type("two words")
    page.keyboard.press("Enter")
    assert page.inner_text(ERROR) == server_message(["two words"])
    assert page.input_value(INPUT) == "two words"
    assert chips(page) == ["action:pour", "hand:left"]
    page.fill(INPUT, "action:cut")
    assert page.is_hidden(ERROR)  # typing clears the message
    page.keyboard.press("Enter")
    assert page.inner_text(ERROR) == server_message(["action:pour", "action:cut"])
    page.wait_for_timeout(1000)  # longer than the autosave's pause
    saved(page)
    assert bodies[sent:] == []
    assert step_tags(step) == ["action:pour", "hand:left"]

    # Removing: Backspace in the empty input takes the last chip; a chip's button from the
    # keyboard takes its own and moves the focus on.
    page.fill(INPUT, "")
    page.keyboard.press("Backspace")
    assert chips(page) == ["action:pour"]
    page.keyboard.type("occluded")
    page.keyboard.press("Enter")
    page.focus("[data-remove-tag='action:pour']")
    page.keyboard.press("Enter")
    assert chips(page) == ["occluded"]
    assert page.evaluate("document.activeElement.dataset.removeTag") == "occluded"
    saved(page)
    assert step_tags(step) == ["occluded"]
    assert all("two words" not in json.dumps(b) for b in bodies)
    # Ctrl+S from the input adds what was typed, then saves.
    page.focus(INPUT)
    page.keyboard.type("wet")
    page.keyboard.press("Control+s")
    saved(page)
    assert step_tags(step) == ["occluded", "wet"]

    page.reload()
    page.wait_for_selector("#workspace[data-ready=true]")
    assert chips(page) == ["occluded", "wet"]
    assert not page.errors


def test_a_tag_edit_saves_with_the_text_typed_meanwhile_and_conflicts_like_a_label(
    open_as, annotator, admin_user, tagged
):
    video, step, _ = tagged
    mine = open_workspace(open_as(annotator), video)
    theirs = open_workspace(open_as(admin_user), video)
    wait_idle(mine)
    wait_idle(theirs)
    # Text typed and a tag added right after it: both are saved.
    mine.fill("[name=local_intent]", "Lift the cup")
    mine.keyboard.press("Escape")
    mine.keyboard.press("t")
    mine.keyboard.type("hand:left\n")
    saved(mine)
    step.refresh_from_db()
    assert (step.local_intent, step.tags) == ("Lift the cup", ["hand:left"])

    # Another tab changes the tags of the version this one still edits.
    theirs.reload()
    theirs.wait_for_selector("#workspace[data-ready=true]")
    theirs.keyboard.press("t")
    theirs.keyboard.type("occluded\n")
    saved(theirs)
    assert step_tags(step) == ["hand:left", "occluded"]

    mine.fill("[name=next_step]", "Drink")
    mine.keyboard.press("Escape")
    mine.keyboard.press("t")
    mine.keyboard.type("wet\n")
    mine.wait_for_selector("[data-role=save-state][data-state=conflict]", timeout=15_000)
    row = mine.locator("[data-role=conflict] .conflict-row[data-field=tags]")
    assert row.locator("[data-role=stored]").inner_text() == "hand:left\noccluded"
    assert row.locator("[data-role=mine]").inner_text() == "hand:left\nwet"
    # Both sets by default; a merged tag that breaks a rule is refused in the row.
    assert row.locator("textarea").input_value() == "hand:left\noccluded\nwet"
    row.locator("textarea").fill("hand:left\nhand:right")
    mine.click("[data-action=save-merged]")
    assert row.locator("[data-role=merge-error]").inner_text() == server_message(
        ["hand:left", "hand:right"]
    )
    row.locator("button[data-choice=keep-both]").click()
    mine.click("[data-action=save-merged]")
    saved(mine)
    step.refresh_from_db()
    assert (step.local_intent, step.next_step) == ("Lift the cup", "Drink")
    assert step.tags == ["hand:left", "occluded", "wet"]
    assert chips(mine) == ["hand:left", "occluded", "wet"]
    authors = StepRevision.objects.filter(step=step).order_by("-version")
    assert [r.author.username for r in authors[:2]] == ["anna", "ada"]
    assert [e for e in mine.errors if "409 (Conflict)" not in e] == [] and not theirs.errors


def test_tag_payloads_are_refused_and_shown_as_text(open_as, annotator, tagged):
    video, step, _ = tagged
    page = open_workspace(open_as(annotator), video)
    bodies = sent_bodies(page)
    wait_idle(page)
    dialogs = open_as.dialogs
    page.keyboard.press("t")
    for payload in (SCRIPT, ONERROR):
        page.fill(INPUT, payload)
        page.keyboard.press("Enter")
        message = page.inner_text(ERROR)
        assert message == server_message([payload])  # the payload's text, as text
        assert payload[:12] in message
        assert_inert(page, dialogs)
    assert bodies == [] and chips(page) == []
    assert not page.errors
    # The server refuses the same text sent past the page: 400 naming it, nothing written.
    answer = page.evaluate(
        """async ([url, tag]) => {
            const token = document.cookie.match(/csrftoken=([^;]+)/)[1];
            const r = await fetch(url, {method: 'PATCH', headers: {'Content-Type':
              'application/json', 'X-CSRFToken': token}, body: JSON.stringify({version: 1,
              tags: [tag]})});
            return [r.status, await r.json()];
        }""",
        [f"/api/annotation/steps/{step.pk}/", ONERROR],
    )
    assert answer == [
        400,
        {"detail": server_message([ONERROR]), "errors": {"tags": [server_message([ONERROR])]}},
    ]
    step.refresh_from_db()
    assert (step.version, step.tags) == (1, [])
    assert_inert(page, dialogs)


def test_a_value_the_server_refuses_is_not_sent_again_and_the_tags_still_save(
    open_as, annotator, tagged
):
    video, step, _ = tagged
    page = open_workspace(open_as(annotator), video)
    bodies = sent_bodies(page)
    wait_idle(page)
    page.fill("[name=local_intent]", "x" * 5001)  # longer than a label may be: the server's 400
    page.wait_for_selector("[data-error-for=local_intent]:not([hidden])", timeout=10_000)
    assert "5000" in page.inner_text("[data-error-for=local_intent]")
    page.wait_for_timeout(1000)
    assert len(bodies) == 1  # refused once, not sent again in a loop
    page.keyboard.press("Escape")
    page.keyboard.press("t")
    with page.expect_response(lambda r: r.request.method == "PATCH") as answer:
        page.keyboard.type("occluded\n")
    assert answer.value.status == 200
    page.wait_for_selector("[data-role=save-state][data-state=unsaved]")
    assert step_tags(step) == ["occluded"]
    assert bodies[1:] == [{"version": 1, "tags": ["occluded"]}]
    assert page.input_value("[name=local_intent]") == "x" * 5001  # kept on the page to fix
    assert "5000" in page.inner_text("[data-error-for=local_intent]")
    page.fill("[name=local_intent]", "Lift the cup")
    saved(page)
    step.refresh_from_db()
    assert (step.local_intent, step.tags, step.version) == ("Lift the cup", ["occluded"], 3)


def test_read_only_shows_the_chips_without_an_editor(open_as, annotator, adjudicator, tagged):
    video, _, other = tagged
    page = open_workspace(open_as(adjudicator), video)
    writes = []
    page.on("request", lambda r: writes.append(r.url) if r.method != "GET" else None)
    wait_idle(page)
    page.keyboard.press("ArrowDown")  # to the tagged step
    page.wait_for_function(
        f"() => document.getElementById('workspace').dataset.current === '{other.pk}'"
    )
    assert chips(page) == ["action:stir", "wet"]
    assert page.locator(f"{INPUT}, [data-remove-tag], #tag-suggestions").count() == 0
    page.keyboard.press("t")
    assert "Read-only" in page.inner_text("[data-role=message]")
    page.keyboard.press("Backspace")
    assert chips(page) == ["action:stir", "wet"]
    assert writes == [] and MicroStep.objects.get(pk=other.pk).version == 1
    assert not page.errors
