"""The audit pages in Chromium: a reviewer does a whole item from the keyboard (phase 1, reveal,
phase 2, submit, next item), and script payloads in labels and comments stay inert on the review,
adjudication and report pages."""

from __future__ import annotations

import pytest

from review.campaigns.models import Submission
from tests.conftest import _user
from tests.review.audit_world import build_world, render_pending

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PAYLOAD = '<script>window.__xss="script"</script><img src=x onerror="window.__xss=\'img\'">'


@pytest.fixture
def reviewers(auditor, django_user_model):
    return [auditor, _user(django_user_model, "bea", "auditor"),
            _user(django_user_model, "cyd", "auditor")]  # fmt: skip


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    from tests.review.audit_world import synth_source

    return synth_source(tmp_path_factory.mktemp("audit-e2e"))


def _tab_to(page, selector: str) -> None:
    for _ in range(30):
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def test_a_reviewer_does_a_whole_item_from_the_keyboard(
    open_as, reviewers, tmp_path, admin_user, annotator, source
):
    world = build_world(tmp_path=tmp_path, admin=admin_user, annotator=annotator,
                        reviewers=reviewers, source=source)  # fmt: skip
    page = open_as(reviewers[0]).new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"/review/campaigns/{world.campaign.pk}/")
    _tab_to(page, "main button[type=submit]")
    page.keyboard.press("Enter")
    page.wait_for_selector(".criterion.focused", timeout=15_000)
    first_url = page.url
    render_pending()
    # C1 valid, C2 valid, C4 invalid with the first error type, C5 valid, C6 uncertain.
    for key in ("v", "j", "v", "ArrowDown", "i", "1", "j", "v", "j", "u"):
        page.keyboard.press(key)
    page.keyboard.press("c")
    page.keyboard.type("keys v i u j k Enter stay text")
    page.keyboard.press("Escape")
    page.keyboard.press("?")
    assert page.locator("[data-role=help]").is_visible()
    page.keyboard.press("Escape")
    assert not page.locator("[data-role=help]").is_visible()
    page.wait_for_function(
        "() => document.querySelector('[data-role=status]').textContent.includes('saved')"
    )
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-role=next]:not([hidden])", timeout=15_000)
    assert page.locator("[data-role=phase]").text_content().strip() == "· phase 2 of 2"
    assert page.locator(".criterion:not(.locked)").count() == 2
    for key in ("v", "k", "j", "i", "1", "k", "v"):  # C3 valid, C7 invalid + first type, back
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: url != first_url and "/audit/i/" in url, timeout=15_000)
    page.wait_for_selector(".criterion.focused", timeout=15_000)
    assert not errors, errors

    subs = {s.part: s.payload["criteria"] for s in Submission.objects.filter(person=reviewers[0])}
    p1, p2 = subs["phase1"], subs["phase2"]
    assert [p1[c]["label"] for c in ("C1", "C2", "C4", "C5", "C6")] == [
        "valid", "valid", "invalid", "valid", "uncertain"]  # fmt: skip
    assert p1["C4"]["error_types"] == ["local_inaccurate"]  # C4's own first type
    assert p1["C6"]["comment"] == "keys v i u j k Enter stay text"
    assert p2["C3"]["label"] == "valid" and p2["C7"]["label"] == "invalid"
    assert p2["C7"]["error_types"] == ["next_not_immediate"]


def test_script_in_labels_and_comments_stays_inert_on_every_audit_page(
    open_as, reviewers, tmp_path, admin_user, annotator, adjudicator, source
):
    from review.audit.imports import decisions_load

    world = build_world(tmp_path=tmp_path, admin=admin_user, annotator=annotator,
                        reviewers=reviewers, source=source, extra=PAYLOAD,
                        instructions="Read me " + PAYLOAD)  # fmt: skip
    step = world.steps[0]
    lines = [
        {"kind": "decision", "reviewer": r.username, "step": str(step.uid), "criterion": cid,
         "label": "invalid" if cid == "C1" else label, "comment": f"{r.username} {PAYLOAD}"}
        for r, label in zip(reviewers[1:], ["valid", "invalid"], strict=True)
        for cid in ("C1", "C2", "C3", "C4", "C5", "C6", "C7")
    ]  # fmt: skip
    decisions_load(campaign=world.campaign, lines=lines)
    render_pending()

    def check(page, url, wait, shown=True):
        page.goto(url)
        page.wait_for_selector(wait, timeout=15_000)
        page.wait_for_timeout(300)
        assert page.evaluate("window.__xss") is None, url
        if shown:  # the payload is on the page as text
            assert "window.__xss" in page.locator("main").inner_text(), url

    reviewer = open_as(reviewers[0]).new_page()
    reviewer.goto(f"/review/campaigns/{world.campaign.pk}/")
    reviewer.click("main button[type=submit]")
    reviewer.wait_for_selector(".criterion.focused", timeout=15_000)
    check(reviewer, reviewer.url, "[data-role=local]")
    assert PAYLOAD in reviewer.locator("[data-role=local]").text_content()
    for key in ("v", "j", "v", "j", "v", "j", "v", "j", "u"):
        reviewer.keyboard.press(key)
    reviewer.keyboard.press("c")
    reviewer.keyboard.type(PAYLOAD)
    reviewer.keyboard.press("Escape")
    reviewer.keyboard.press("Enter")
    reviewer.wait_for_selector("[data-role=next]:not([hidden])", timeout=15_000)
    assert reviewer.evaluate("window.__xss") is None
    for key in ("v", "j", "u"):
        reviewer.keyboard.press(key)
    reviewer.keyboard.press("Enter")
    reviewer.wait_for_timeout(1500)
    assert reviewer.evaluate("window.__xss") is None

    item = world.campaign.items.get(sample__sample_id=step.uid)
    adj = open_as(adjudicator).new_page()
    check(adj, f"/audit/adjudicate/{world.campaign.pk}/{item.pk}/", "table.adjudication")
    boss = open_as(admin_user).new_page()
    # The report shows no typed text (codes, counts, scene slugs): nothing may run there either.
    check(boss, f"/audit/campaigns/{world.campaign.pk}/report/", "table.report-table", False)
    check(boss, f"/audit/campaigns/{world.campaign.pk}/corrections/", "table.grid")
    # The editor of a step, with its labels in the page's config (JSON, never run).
    check(boss, f"/audit/campaigns/{world.campaign.pk}/corrections/?item={item.pk}",
          "#corrections-player[data-ready=true]")  # fmt: skip
    check(adj, f"/audit/campaigns/{world.campaign.pk}/corrections/?item={item.pk}",
          "#corrections-player[data-ready=true]")  # fmt: skip
    check(adj, "/audit/corrections/", "table.grid", False)
    assert not open_as.dialogs


def test_answers_and_comments_survive_a_reload_as_a_draft(
    open_as, reviewers, tmp_path, admin_user, annotator, source
):
    world = build_world(tmp_path=tmp_path, admin=admin_user, annotator=annotator,
                        reviewers=reviewers, source=source)  # fmt: skip
    page = open_as(reviewers[0]).new_page()
    page.goto(f"/review/campaigns/{world.campaign.pk}/")
    _tab_to(page, "main button[type=submit]")  # autofocus can land after the load event
    page.keyboard.press("Enter")
    page.wait_for_selector(".criterion.focused", timeout=15_000)
    for key in ("v", "j", "i", "2"):
        page.keyboard.press(key)
    page.keyboard.press("c")
    page.keyboard.type("half-written thought")
    page.wait_for_function(
        "() => document.querySelector('[data-role=status]').textContent === 'Draft saved.'"
    )
    page.reload()
    page.wait_for_selector(".criterion.focused", timeout=15_000)
    c2 = page.locator("[data-criterion=C2]")
    assert c2.locator("[data-label=invalid]").get_attribute("aria-pressed") == "true"
    assert c2.locator("input[value=other]").is_checked()  # C2 offers too_long, other
    assert c2.locator("textarea").input_value() == "half-written thought"
    c1 = page.locator("[data-criterion=C1]")
    assert c1.locator("[data-label=valid]").get_attribute("aria-pressed") == "true"
