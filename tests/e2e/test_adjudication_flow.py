"""The adjudication pages in Chromium: an adjudicator decides the disagreements of two audit
items from the keyboard only (v / i, Enter saves and opens the next), with the queue's progress
shown; on the boundary page the disputed window is shown at full size and a clip still being
prepared appears by itself once it is ready, and the queue asks for the clips of what waits."""

from __future__ import annotations

import pytest

from review.audit.models import Adjudication
from review.boundary.kind import SCHEME
from tests.conftest import _user
from tests.review.audit_world import build_world, render_pending
from tests.review.boundary_world import build_boundary_world, lines_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def reviewers(auditor, django_user_model):
    return [auditor, _user(django_user_model, "bea", "auditor"),
            _user(django_user_model, "cyd", "auditor")]  # fmt: skip


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    from tests.review.audit_world import synth_source

    return synth_source(tmp_path_factory.mktemp("adjudication-e2e"))


def _split(world, step, reviewers, criterion="C7"):
    """Every reviewer's decision on ``step``: all valid, but a three-way split on one."""
    splits = dict(zip(reviewers, ("valid", "invalid", "uncertain"), strict=True))
    return [
        {"kind": "decision", "reviewer": r.username, "step": str(step.uid), "criterion": cid,
         "label": splits[r] if cid == criterion else "valid"}
        for r in reviewers for cid in ("C1", "C2", "C3", "C4", "C5", "C6", "C7")
    ]  # fmt: skip


def test_an_adjudicator_decides_two_items_from_the_keyboard(
    open_as, reviewers, tmp_path, admin_user, annotator, adjudicator, source
):
    from review.audit.imports import decisions_load

    world = build_world(tmp_path=tmp_path, admin=admin_user, annotator=annotator,
                        reviewers=reviewers, source=source)  # fmt: skip
    lines = _split(world, world.steps[0], reviewers) + _split(
        world, world.steps[1], reviewers, "C4"
    )
    decisions_load(campaign=world.campaign, lines=lines)
    page = open_as(adjudicator).new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto("/audit/adjudicate/")
    page.click("main a.button")  # the first waiting item
    page.wait_for_selector("[data-question].focused")
    assert (
        page.locator("[data-role=progress]")
        .text_content()
        .startswith("Disagreement 1 of 2 in this campaign · 0:0")
    )
    first = page.url
    decided = {page.get_attribute("[data-question].focused", "data-criterion"): "invalid"}
    page.keyboard.press("i")
    page.keyboard.press("c")
    page.keyboard.type("the next step skips v i j k")
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: url != first, timeout=15_000)
    page.wait_for_selector("[data-question].focused")
    assert (
        page.locator("[data-role=progress]")
        .text_content()
        .startswith("Disagreement 1 of 1 in this campaign")
    )
    page.keyboard.press("?")
    assert page.locator("[data-role=help]").is_visible()
    assert "Decide the current disagreement" in page.locator("[data-role=help]").inner_text()
    page.keyboard.press("Escape")
    decided[page.get_attribute("[data-question].focused", "data-criterion")] = "valid"
    page.keyboard.press("v")
    page.keyboard.press("Enter")
    page.wait_for_url("**/audit/adjudicate/", timeout=15_000)  # nothing waits: the queue
    assert "Nothing waits" in page.locator("main").inner_text()
    assert not errors, errors
    assert set(decided) == {"C7", "C4"}
    rows = {a.criterion: a for a in Adjudication.objects.all()}
    assert {c: a.label for c, a in rows.items()} == decided
    invalid = next(c for c, label in decided.items() if label == "invalid")
    assert rows[invalid].comment == "the next step skips v i j k"


def test_the_boundary_adjudication_shows_the_disputed_window_at_full_size(
    open_as, reviewers, tmp_path, admin_user, annotator, adjudicator, source
):
    from media.models import RenderedMedia
    from review.audit.imports import decisions_load

    world = build_boundary_world(tmp_path=tmp_path, admin=admin_user, annotator=annotator,
                                 reviewers=reviewers, source=source)  # fmt: skip
    step = world.steps[0]
    labels = {w: ["valid", "valid", "valid"] for w in ("early", "official", "next_visible")}
    labels["outcome_visible"] = ["valid", "invalid", "uncertain"]
    decisions_load(campaign=world.campaign, scheme=SCHEME,
                   lines=lines_for(world, step, reviewers, labels))  # fmt: skip
    assert not RenderedMedia.objects.exists()
    page = open_as(adjudicator).new_page()
    page.goto("/boundary/adjudicate/")
    # The queue asked for the four clips of the waiting item: a worker prepares them now.
    assert RenderedMedia.objects.count() == 4
    assert page.locator("[data-clips]").get_attribute("data-clips") == "preparing"
    page.click("main a.button")
    page.wait_for_selector("[data-question].focused")
    disputed = page.locator(".disputed-window")
    assert disputed.count() == 1 and disputed.get_attribute("data-window") == "outcome_visible"
    assert disputed.locator("[data-clip-box][data-status=preparing]").count() == 1
    render_pending()
    video = disputed.locator("video")
    video.wait_for(timeout=15_000)  # swapped in by itself, no reload
    width = video.evaluate("v => v.getBoundingClientRect().width")
    page_width = page.evaluate("document.querySelector('main').clientWidth")
    assert width > 0.8 * page_width - 60, (width, page_width)
    assert page.locator(".settled-window video").count() == 3
    page.keyboard.press("v")
    page.keyboard.press("Enter")
    page.wait_for_url("**/boundary/adjudicate/", timeout=15_000)
    adjudication = Adjudication.objects.get()
    assert (adjudication.criterion, adjudication.label) == ("outcome_visible", "valid")


def test_an_adjudicator_moves_a_cutoff_on_the_corrections_page_as_in_the_workspace(
    open_as, reviewers, tmp_path, admin_user, annotator, adjudicator, source
):
    from annotation.models import MicroStep
    from review.audit.imports import decisions_load
    from review.audit.models import Correction

    world = build_world(tmp_path=tmp_path, admin=admin_user, annotator=annotator,
                        reviewers=reviewers, source=source)  # fmt: skip
    step = world.steps[0]
    lines = [
        {"kind": "decision", "reviewer": r.username, "step": str(step.uid), "criterion": cid,
         "label": "invalid" if cid == "C3" and n < 2 else "valid"}
        for n, r in enumerate(reviewers) for cid in ("C1", "C2", "C3", "C4", "C5", "C6", "C7")
    ]  # fmt: skip
    decisions_load(campaign=world.campaign, lines=lines)
    times = world.video.frame_times_us()
    cutoff = int(list(times).index(step.cutoff_us))
    page = open_as(adjudicator).new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto("/")
    page.click("text=Open the corrections")
    page.click("text=Open the corrections")  # the campaign's page
    page.click("text=Correct this step")
    page.wait_for_selector("#corrections-player[data-ready=true]", timeout=20_000)
    # The player opens on the last frame shown; two frames back, the cutoff goes after it.
    assert page.locator("[data-role=readout]").text_content().startswith(f"#{cutoff - 1} ")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    readout = "document.querySelector('[data-role=readout]').textContent"
    page.wait_for_function(f"() => {readout}.startsWith('#{cutoff - 3} ')")
    page.click("text=after the frame on screen")
    assert page.input_value("[data-role=cutoff]") == f"#{cutoff - 2}"
    # Dragging the red cutoff on the timeline writes the frame it lands on.
    handle = page.locator(".tl-cutoff")
    box = handle.bounding_box()
    page.mouse.move(box["x"] + 3, box["y"] + 30)
    page.mouse.down()
    page.mouse.move(box["x"] - 40, box["y"] + 30, steps=5)
    page.mouse.up()
    dragged = page.input_value("[data-role=cutoff]")
    assert dragged.startswith("#") and int(dragged[1:]) < cutoff - 2, dragged
    page.fill("input[name=note]", "the cup is down before the cutoff")
    page.click("text=Apply the correction")
    page.wait_for_selector("text=Correction applied.")
    assert not errors, errors
    step = MicroStep.objects.get(pk=step.pk)
    assert step.cutoff_us == int(times[int(dragged[1:])])
    assert Correction.objects.get().author == adjudicator
