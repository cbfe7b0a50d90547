"""The item client every campaign kind shares (static/js/campaign-item.js), in Chromium on the
rating page: a draft typed while the server cannot be reached says so, stays in the page and
reaches the server by itself once it can; a refused submission shows the server's reasons and
keeps what was typed, naming each field as the page labels it."""

from __future__ import annotations

import pytest

from review.campaigns.models import Assignment, Submission
from tests.conftest import _user
from tests.review.judgeval_world import build_world

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

STATUS = "document.querySelector('[data-role=status]').textContent"


@pytest.fixture
def raters(rater, django_user_model):
    return [rater, *(_user(django_user_model, n, "rater") for n in ("rhea", "ravi"))]


def _open_first_item(context, world):
    page = context.new_page()
    page.goto(f"/review/campaigns/{world.campaign.pk}/")
    page.click("main button[type=submit]")
    page.wait_for_url("**/judgeval/i/**", timeout=15_000)
    page.wait_for_selector("[data-role=position]:has-text('1 of 2')", timeout=15_000)
    return page


def test_a_draft_typed_offline_is_kept_and_saved_once_the_server_answers(
    open_as, raters, make_video, admin_user, annotator
):
    world = build_world(make_video=make_video, admin=admin_user, annotator=annotator, raters=raters)
    context = open_as(raters[0])
    page = _open_first_item(context, world)
    context.set_offline(True)
    page.keyboard.type("72")
    page.wait_for_function(f"() => {STATUS}.includes('kept in this page and sent again')")
    assert page.locator("[data-role=status]").get_attribute("class") == "status error"
    assignment = Assignment.objects.get(person=raters[0], state=Assignment.State.LEASED)
    assert not assignment.draft
    context.set_offline(False)
    page.wait_for_function(f"() => {STATUS} === 'Draft saved.'", timeout=15_000)
    assignment.refresh_from_db()
    assert assignment.draft["first"]["local"] == 72


def test_a_refused_submission_shows_the_reasons_and_keeps_the_draft(
    open_as, raters, make_video, admin_user, annotator
):
    world = build_world(make_video=make_video, admin=admin_user, annotator=annotator, raters=raters)
    page = _open_first_item(open_as(raters[0]), world)
    page.keyboard.type("55")
    page.keyboard.press("Enter")  # procedural and next are missing
    page.wait_for_function(f"() => {STATUS}.startsWith('Not submitted: Procedural intent:')")
    assert page.evaluate("document.activeElement.name") == "procedural"
    assert not Submission.objects.exists()
    assignment = Assignment.objects.get(person=raters[0], state=Assignment.State.LEASED)
    for _ in range(50):
        page.wait_for_timeout(100)
        assignment.refresh_from_db()
        if assignment.draft:
            break
    assert assignment.draft["first"]["local"] == 55
    assert page.evaluate(STATUS).startswith("Not submitted:")  # the quiet save left it shown
