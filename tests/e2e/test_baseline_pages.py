"""The rater page in Chromium: a rater answers three items from the keyboard only (one with Next
unanswerable, one with three Next answers), reloading mid-item without losing the draft; and
script payloads in answers and instructions stay inert on the rater page and the admin's report
pages."""

from __future__ import annotations

import pytest

from review.campaigns.models import Submission
from tests.conftest import _user
from tests.e2e.test_workspace_xss import ONERROR, SCRIPT
from tests.review.audit_world import render_pending
from tests.review.baseline.world import build_world

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def raters(rater, django_user_model):
    return [rater, _user(django_user_model, "rhea", "rater"),
            _user(django_user_model, "ravi", "rater")]  # fmt: skip


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    from tests.review.audit_world import synth_source

    return synth_source(tmp_path_factory.mktemp("baseline-e2e"))


def _tab_to(page, selector: str) -> None:
    for _ in range(30):
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def _keys(page, *keys):
    for key in keys:
        page.keyboard.press(key)


def _write(page, text):
    """The current question is answerable: `a` opens its (next empty) answer; type, leave it."""
    page.keyboard.press("a")
    page.wait_for_function("() => document.activeElement.matches('.answers input')")
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def _saved(page):
    page.wait_for_function(
        "() => document.querySelector('[data-role=status]').textContent.includes('Draft saved')"
    )


def _next_item(page, before):
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: url != before and "/baseline/i/" in url, timeout=15_000)
    page.wait_for_selector(".dimension.focused", timeout=15_000)


def test_a_rater_answers_three_items_from_the_keyboard(
    open_as, raters, tmp_path, admin_user, annotator, source
):
    world = build_world(tmp_path=tmp_path, admin=admin_user, annotator=annotator,
                        raters=raters, source=source)  # fmt: skip
    page = open_as(raters[0]).new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"/review/campaigns/{world.campaign.pk}/")
    _tab_to(page, "main button[type=submit]")
    page.keyboard.press("Enter")
    page.wait_for_selector(".dimension.focused", timeout=15_000)
    render_pending()  # as a worker would: the page asked for the clip
    page.wait_for_selector("[data-role=clip] video", state="attached", timeout=30_000)
    assert page.locator("video[controls]").count() == 0  # no timeline to scrub
    _keys(page, "Space", "ArrowRight", "ArrowLeft", "r", "Space")

    # Item 1: Next unanswerable.
    first = page.url
    page.keyboard.press("y")
    _write(page, "Lift the cup off the table")
    _keys(page, "4", "j", "y")
    _write(page, "Clear the table")
    _keys(page, "3", "j", "n", "2")
    page.keyboard.press("?")
    assert page.locator("[data-role=help]").is_visible()
    page.keyboard.press("Escape")
    _next_item(page, first)

    # Item 2: three Next answers, with a reload in the middle.
    second = page.url
    page.keyboard.press("y")
    _write(page, "Grab the sponge j k y n 5")  # keys typed in a field are only typed
    page.keyboard.press("5")
    _saved(page)
    page.reload()
    page.wait_for_selector(".dimension.focused", timeout=15_000)
    value = page.locator("[data-dimension=local] .answers input").first.input_value()
    assert value == "Grab the sponge j k y n 5"
    _keys(page, "j", "n", "1", "j", "y")
    _write(page, "Wipe the table")
    _write(page, "Rinse the sponge")
    _write(page, "Put the sponge down")
    page.keyboard.press("4")
    _next_item(page, second)

    # Item 3: everything answerable; Enter with a question unanswered is refused.
    third = page.url
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('[data-role=status]').textContent.includes('Still missing')"
    )
    _keys(page, "y")
    _write(page, "Hang the sponge")
    _keys(page, "5", "j", "y")
    _write(page, "Let it dry")
    _keys(page, "5", "j", "y")
    _write(page, "Walk away")
    page.keyboard.press("5")
    _next_item(page, third)
    assert not errors, errors

    subs = list(Submission.objects.filter(person=raters[0]).order_by("id"))
    assert len(subs) == 3
    one, two, three = (s.payload["dimensions"] for s in subs)
    assert one["next"] == {"answerable": False, "answers": [], "confidence": 2}
    assert one["local"] == {"answerable": True, "answers": ["Lift the cup off the table"],
                            "confidence": 4}  # fmt: skip
    assert two["local"]["answers"] == ["Grab the sponge j k y n 5"]
    assert two["procedural"] == {"answerable": False, "answers": [], "confidence": 1}
    assert two["next"]["answers"] == ["Wipe the table", "Rinse the sponge", "Put the sponge down"]
    assert [three[d]["confidence"] for d in ("local", "procedural", "next")] == [5, 5, 5]
    assert all(s.payload["seconds"] is not None for s in subs)


def test_payloads_in_answers_stay_inert_on_the_rater_and_report_pages(
    open_as, raters, tmp_path, admin_user, annotator, source
):
    from review.baseline.imports import responses_load

    world = build_world(tmp_path=tmp_path, admin=admin_user, annotator=annotator,
                        raters=raters, source=source)  # fmt: skip
    world.campaign.instructions = f"Answer {SCRIPT}{ONERROR}"
    world.campaign.save(update_fields=["instructions"])
    render_pending()

    def dim(text):
        return {"answerable": True, "answers": [text], "confidence": 3}

    lines = [
        {"rater": r.username, "step": str(s.uid), "local": dim(f"{r.username} {SCRIPT}"),
         "procedural": dim(ONERROR), "next": {"answerable": True,
                                              "answers": [SCRIPT, ONERROR], "confidence": 2}}
        for r in raters[1:] for s in world.steps
    ]  # fmt: skip
    responses_load(campaign=world.campaign, lines=lines)
    dialogs = []

    def check(page, url, wait):
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(url)
        page.wait_for_selector(wait, timeout=30_000)
        page.wait_for_timeout(300)
        assert dialogs == [], url
        assert page.locator("img[src=x]").count() == 0, url

    rater = open_as(raters[0]).new_page()
    rater.goto(f"/review/campaigns/{world.campaign.pk}/")
    rater.click("main button[type=submit]")
    rater.wait_for_selector(".dimension.focused", timeout=15_000)
    render_pending()
    check(rater, rater.url, ".dimension.focused")
    assert SCRIPT in rater.locator("[data-role=instructions]").text_content()
    rater.keyboard.press("y")
    rater.keyboard.press("a")
    rater.keyboard.type(ONERROR)
    rater.keyboard.press("Enter")
    check(rater, rater.url, ".dimension.focused")  # the draft comes back as text
    admin = open_as(admin_user).new_page()
    check(admin, "/baselines/", "main table")
    url = f"/baselines/{world.campaign.pk}/report/?similarity=lexical"
    check(admin, url, "main details")
    admin.click("main details summary")
    text = admin.locator("main details").inner_text()
    assert SCRIPT in text and ONERROR in text
    assert admin.locator("main details script").count() == 0
