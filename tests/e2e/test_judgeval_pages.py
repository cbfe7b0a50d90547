"""The rating page in Chromium: a rater scores three triplets from the keyboard only (digits,
Tab between dimensions, Enter to submit), and script payloads in the reference labels and the
predictions render as text, inert."""

from __future__ import annotations

import pytest

from review.campaigns.models import Submission
from tests.conftest import _user
from tests.review.judgeval_world import build_world

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PAYLOAD = '<script>window.__xss="script"</script><img src=x onerror="window.__xss=\'img\'">'


@pytest.fixture
def raters(rater, django_user_model):
    return [rater, *(_user(django_user_model, n, "rater") for n in ("rhea", "ravi"))]


def _tab_to(page, selector: str) -> None:
    for _ in range(30):
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def _score(page, values) -> None:
    """Type three scores with Tab between them, then Enter."""
    page.wait_for_function(
        "() => document.activeElement && document.activeElement.name === 'local'"
    )
    for i, value in enumerate(values):
        if i:
            page.keyboard.press("Tab")
        page.keyboard.type(str(value))
    page.keyboard.press("Enter")


def test_a_rater_scores_three_triplets_from_the_keyboard(open_as, raters, make_video, admin_user,
                                                         annotator):  # fmt: skip
    world = build_world(make_video=make_video, admin=admin_user, annotator=annotator, raters=raters)
    page = open_as(raters[0]).new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"/review/campaigns/{world.campaign.pk}/")
    _tab_to(page, "main button[type=submit]")
    page.keyboard.press("Enter")
    page.wait_for_url("**/judgeval/i/**", timeout=15_000)
    first_url = page.url
    page.wait_for_selector("[data-role=position]:has-text('1 of 2')", timeout=15_000)
    _score(page, (80, 65, 40))
    page.wait_for_selector("[data-role=position]:has-text('2 of 2')", timeout=15_000)
    _score(page, (30, 20, 10))
    page.wait_for_url(lambda url: url != first_url and "/judgeval/i/" in url, timeout=15_000)
    page.wait_for_selector("[data-role=position]:has-text('1 of 2')", timeout=15_000)
    _score(page, (100, 0, 55))
    page.wait_for_selector("[data-role=position]:has-text('2 of 2')", timeout=15_000)
    assert not errors, errors
    got = sorted(
        (s.payload["local"], s.payload["procedural"], s.payload["next"])
        for s in Submission.objects.filter(person=raters[0])
    )
    assert got == [(30, 20, 10), (80, 65, 40), (100, 0, 55)]


def test_payloads_in_labels_and_predictions_stay_inert(open_as, raters, make_video, admin_user,
                                                       annotator):  # fmt: skip
    world = build_world(make_video=make_video, admin=admin_user, annotator=annotator,
                        raters=raters, extra=PAYLOAD)  # fmt: skip
    page = open_as(raters[0]).new_page()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"/review/campaigns/{world.campaign.pk}/")
    _tab_to(page, "main button[type=submit]")
    page.keyboard.press("Enter")
    page.wait_for_url("**/judgeval/i/**", timeout=15_000)
    page.wait_for_selector("[data-role=pred-local]:has-text('says')", timeout=15_000)
    assert "<script>" in page.locator("[data-role=pred-local]").text_content()
    assert "<script>" in page.locator("[data-role=ref-local]").text_content()
    assert page.evaluate("window.__xss") is None
    assert page.locator("main img").count() == 0
    assert not dialogs
