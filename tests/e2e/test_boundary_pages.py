"""The boundary audit pages in Chromium: a boundary reviewer rules all four windows of two steps
from the keyboard, and script payloads in labels, instructions and comments stay inert on the
reviewer's, the adjudicator's and the report pages."""

from __future__ import annotations

import pytest

from review.audit.imports import decisions_load
from review.boundary.kind import SCHEME
from review.boundary.windows import WINDOW_NAMES, window_order
from review.campaigns.models import Submission
from tests.conftest import _user
from tests.review.audit_world import render_pending
from tests.review.boundary_world import build_boundary_world, lines_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PAYLOAD = '<script>window.__xss="script"</script><img src=x onerror="window.__xss=\'img\'">'


@pytest.fixture
def reviewers(auditor, django_user_model):
    return [
        auditor,
        _user(django_user_model, "bea", "auditor"),
        _user(django_user_model, "cyd", "auditor"),
    ]


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    from tests.review.audit_world import synth_source

    return synth_source(tmp_path_factory.mktemp("boundary-e2e"))


def _tab_to(page, selector: str) -> None:
    for _ in range(30):
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def _wait_ready(page):
    render_pending()
    page.wait_for_function(
        "() => document.querySelectorAll('.window:not(.locked) video').length === 4",
        timeout=20_000,
    )


def test_a_boundary_reviewer_rules_all_four_windows_of_two_steps_from_the_keyboard(
    open_as, reviewers, tmp_path, admin_user, annotator, source
):
    world = build_boundary_world(
        tmp_path=tmp_path, admin=admin_user, annotator=annotator, reviewers=reviewers, source=source
    )
    # The video's last step has no Next visible window: the reviewer's ruling of it is loaded,
    # so the two steps they open both have four windows.
    last = world.steps[-1]
    decisions_load(
        campaign=world.campaign,
        scheme=SCHEME,
        lines=lines_for(world, last, reviewers[:1], {w: ["valid"] for w in WINDOW_NAMES[:3]}),
    )
    page = open_as(reviewers[0]).new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"/review/campaigns/{world.campaign.pk}/")
    _tab_to(page, "main button[type=submit]")
    page.keyboard.press("Enter")
    page.wait_for_selector(".window.focused", timeout=15_000)
    first_url = page.url
    shown = page.eval_on_selector_all(".window", "nodes => nodes.map(n => n.dataset.window)")
    # window 1 valid, 2 invalid with a comment (typed while the clips get ready: it keeps its
    # focus), 3 uncertain, then back up to 1 and on to 4
    page.keyboard.press("v")
    page.keyboard.press("j")
    page.keyboard.press("i")
    page.keyboard.press("c")
    page.keyboard.type("v i u j k")
    _wait_ready(page)
    page.keyboard.type(" Enter stays text")
    page.keyboard.press("Escape")
    for key in ("ArrowDown", "u", "k", "k", "j", "j", "j", "v", "Space"):
        page.keyboard.press(key)
    page.keyboard.press("?")
    assert page.locator("[data-role=help]").is_visible()
    page.keyboard.press("Escape")
    page.wait_for_function(
        "() => document.querySelector('[data-role=status]').textContent.includes('saved')"
    )
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: url != first_url and "/boundary/i/" in url, timeout=15_000)
    page.wait_for_selector(".window.focused", timeout=15_000)
    _wait_ready(page)
    second = page.eval_on_selector_all(".window", "nodes => nodes.map(n => n.dataset.window)")
    second_url = page.url
    for key in ("v", "j", "v", "j", "v", "j", "i"):
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: url != second_url, timeout=15_000)  # the page moves on
    page.wait_for_timeout(500)
    assert not errors, errors

    subs = list(
        Submission.objects.filter(person=reviewers[0], campaign=world.campaign)
        .exclude(item__sample__sample_id=last.uid)
        .order_by("id")
    )
    assert len(subs) == 2
    for sub, order in zip(subs, (shown, second), strict=True):
        assert order == window_order(reviewers[0].pk, sub.item.sample.sample_id, 13)
    first, then = subs[0].payload["windows"], subs[1].payload["windows"]
    assert [first[w]["label"] for w in shown] == ["valid", "invalid", "uncertain", "valid"]
    assert first[shown[1]]["comment"] == "v i u j k Enter stays text"
    assert [then[w]["label"] for w in second] == ["valid", "valid", "valid", "invalid"]


def test_script_in_labels_and_comments_stays_inert_on_every_boundary_page(
    open_as, reviewers, tmp_path, admin_user, annotator, adjudicator, source
):
    world = build_boundary_world(
        tmp_path=tmp_path,
        admin=admin_user,
        annotator=annotator,
        reviewers=reviewers,
        source=source,
        extra=PAYLOAD,
    )
    step = world.steps[0]
    split = {w: ["valid", "invalid"] for w in WINDOW_NAMES}
    decisions_load(
        campaign=world.campaign,
        scheme=SCHEME,
        lines=lines_for(world, step, reviewers[1:], split, comment=PAYLOAD),
    )
    render_pending()

    def check(page, url, wait, shown=True):
        page.goto(url)
        page.wait_for_selector(wait, timeout=15_000)
        page.wait_for_timeout(300)
        assert page.evaluate("window.__xss") is None, url
        if shown:
            assert "window.__xss" in page.locator("main").inner_text(), url

    reviewer = open_as(reviewers[0]).new_page()
    reviewer.goto(f"/review/campaigns/{world.campaign.pk}/")
    reviewer.click("main button[type=submit]")
    reviewer.wait_for_selector(".window.focused", timeout=15_000)
    check(reviewer, reviewer.url, ".window.focused")
    assert PAYLOAD in reviewer.locator("[data-role=local]").text_content()
    assert PAYLOAD in reviewer.locator("[data-role=instructions]").text_content()
    reviewer.keyboard.press("v")
    reviewer.keyboard.press("c")
    reviewer.keyboard.type(PAYLOAD)
    reviewer.keyboard.press("Escape")
    reviewer.wait_for_timeout(1000)
    assert reviewer.evaluate("window.__xss") is None

    item = world.campaign.items.get(sample__sample_id=step.uid)
    adj = open_as(adjudicator).new_page()
    check(adj, "/boundary/adjudicate/", "main h1", False)
    # Two of three rulings are in: every window is shown, none disputed yet.
    check(adj, f"/boundary/adjudicate/{world.campaign.pk}/{item.pk}/", ".settled-window")
    boss = open_as(admin_user).new_page()
    check(boss, f"/boundary/campaigns/{world.campaign.pk}/report/", "table.report-table", False)
    check(boss, "/boundary/campaigns/", "table.grid", False)
    assert not open_as.dialogs
