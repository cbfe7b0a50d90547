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
