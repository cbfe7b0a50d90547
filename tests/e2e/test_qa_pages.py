"""The QA review page in Chromium: a reviewer reviews a multi-turn group from the keyboard, jumps
to each evidence interval (the player lands on the interval's first frame, read from the
picture's burned-in number), proposes an edit and decides; the original stays unchanged and the
edit is listed; script payloads in questions and answers stay inert here and on the admin's
edits page."""

from __future__ import annotations

import pytest

from review.campaigns.models import Submission
from review.qa.models import QaEdit, QaTurn
from tests.e2e.conftest import shown_frame_number
from tests.e2e.test_workspace_xss import ONERROR, SCRIPT, SVG, assert_inert
from tests.review.audit_world import render_pending
from tests.review.qa.world import build_qa_world

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PAYLOAD = f" {SCRIPT}{ONERROR}{SVG}"
# The Chain group's evidence intervals, in source frames [a, b) (tests/review/qa/world.py).
INTERVALS = [(15, 30), (40, 55), (70, 90), (100, 130)]


def _tab_to(page, selector: str) -> None:
    for _ in range(30):
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def _idle(page):
    page.wait_for_function(
        "() => { const v = document.querySelector('#qa video'); "
        "return v && v.paused && v.dataset.state === 'idle'; }"
    )


def test_a_reviewer_reviews_a_multi_turn_group_from_the_keyboard(
    open_as, auditor, admin_user, tmp_path
):
    world = build_qa_world(
        tmp_path=tmp_path, admin=admin_user, reviewers=[auditor], extra=PAYLOAD,
        params={"n_groups": 1, "by": "structure", "quotas": {"chain": 1}},
    )  # fmt: skip
    chain = world.group_set.groups.get(structure="chain")
    answers_before = list(QaTurn.objects.filter(group=chain).values_list("answer", flat=True))

    context = open_as(auditor)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"/review/campaigns/{world.campaign.pk}/")
    _tab_to(page, "main button[type=submit]")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-role=turns] > li", timeout=15_000)
    render_pending()  # the clip was asked for by the first state (a worker renders it)
    page.wait_for_selector("#qa[data-ready='1']", timeout=20_000)
    assert page.locator("[data-role=turns] > li").count() == 3
    assert page.locator("[data-role=timeline] .interval").count() == 4
    # The third turn is predictive: its cutoff is marked on the timeline and beside the turn.
    assert page.locator("[data-role=timeline] .cutoff[data-turn='3']").count() == 1
    assert "decision cutoff" in page.locator("[data-role=turns] > li").nth(2).text_content()
    assert page.locator("[data-role=structure]").text_content() == "Chain"

    for number, (first, _end) in enumerate(INTERVALS, start=1):
        page.keyboard.press(str(number))
        page.wait_for_function(
            f"() => document.getElementById('qa').dataset.landed === '{number}:{first - 15}'"
        )
        page.keyboard.press("g")  # back to the interval's first frame, paused
        _idle(page)
        assert shown_frame_number(page, "#qa video") == first, number
    # Play the last interval through: it stops on its last frame.
    page.keyboard.press("4")
    page.wait_for_function(
        "() => { const v = document.querySelector('#qa video'); "
        f"return v.paused && v.dataset.state === 'idle' && v.dataset.frame === '{129 - 15}'; }}",
        timeout=20_000,
    )
    assert shown_frame_number(page, "#qa video") == 129

    for n in range(12):  # 3 turns x 4 checks, each pass; p stays on its check, j moves on
        page.keyboard.press("p")
        if n < 11:
            page.keyboard.press("j")
    page.keyboard.press("r")  # request revision
    page.keyboard.press("c")
    page.keyboard.type("turn 2 answer a r x u p f keys stay text")
    page.keyboard.press("Shift+Tab")  # the last reason: other
    page.keyboard.press("Space")
    page.keyboard.press("Escape")

    page.keyboard.press("e")
    page.keyboard.type("Ref")  # field: Reference answer
    page.keyboard.press("Tab")
    page.keyboard.type("Turn 2")
    page.keyboard.press("Tab")  # the evidence select is disabled for an answer edit
    assert page.evaluate("document.activeElement.dataset.role") == "edit-value"
    page.keyboard.type("A corrected answer")
    page.keyboard.press("Tab")
    page.keyboard.type("the bell rings later")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-role=edits] li")
    assert "A corrected answer" in page.locator("[data-role=edits]").text_content()
    page.wait_for_function(
        "() => document.querySelector('[data-role=status]').textContent.includes('saved')"
    )
    item_url = page.url
    page.keyboard.press("Enter")
    # Submitted: the page moves on by itself; the group was the reviewer's only one.
    page.wait_for_url(lambda url: url != item_url, timeout=15_000)
    page.wait_for_selector("[data-role=campaign-done]", timeout=15_000)
    assert_inert(page, context_dialogs(open_as))
    assert not errors, errors

    submission = Submission.objects.get(person=auditor)
    assert submission.payload["decision"] == "revise"
    assert submission.payload["reasons"] == ["other"]
    assert submission.payload["comment"].startswith("turn 2 answer")
    assert all(v == "pass" for t in submission.payload["turns"] for v in t.values())
    edit = QaEdit.objects.get()
    assert (edit.field, edit.turn, edit.proposed) == ("answer", 1, "A corrected answer")
    assert edit.original == answers_before[1] and edit.reason == "the bell rings later"
    # The original is unchanged.
    assert (
        list(QaTurn.objects.filter(group=chain).values_list("answer", flat=True)) == answers_before
    )

    admin_page = open_as(admin_user).new_page()
    admin_page.goto(f"/qa/sets/{world.group_set.pk}/")
    edits = admin_page.locator("[data-role=edits]").text_content()
    assert "A corrected answer" in edits and "the bell rings later" in edits
    assert SCRIPT in edits  # the original answer's payload, shown as text
    assert_inert(admin_page, context_dialogs(open_as))
    for url in ("/qa/sets/", "/qa-reports/", f"/qa-reports/{world.campaign.pk}/"):
        admin_page.goto(url)
        assert_inert(admin_page, context_dialogs(open_as))
    report_edits = admin_page.locator("[data-role=edits]").text_content()
    assert "A corrected answer" in report_edits and SCRIPT in report_edits


def context_dialogs(open_as):
    return open_as.dialogs
