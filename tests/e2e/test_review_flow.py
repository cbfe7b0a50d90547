"""The flow every review page shares (static/js/campaign-item.js, review-keys.js), in Chromium:
for each of the five campaign kinds a reviewer does three items from the keyboard only, and
after each submit the page moves on by itself (to the next item, or to the campaign's done page)
and says "item n of N" with the time spent; a box clicked with the mouse gives the keys back, so
a comment typed after it is stored whole; the audit's phase-2 question opens in view (1440x900
and 1280x800) and a key never answers a question out of view."""

from __future__ import annotations

import re

import pytest

from review.campaigns.models import Submission
from tests.conftest import _user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PROGRESS = re.compile(r"^Item (\d+) of (\d+) · \d+:\d\d on this item$")


@pytest.fixture
def auditors(auditor, django_user_model):
    return [auditor, _user(django_user_model, "bea", "auditor"),
            _user(django_user_model, "cyd", "auditor")]  # fmt: skip


@pytest.fixture
def raters(rater, django_user_model):
    return [rater, _user(django_user_model, "rhea", "rater"),
            _user(django_user_model, "ravi", "rater")]  # fmt: skip


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    from tests.review.audit_world import synth_source

    return synth_source(tmp_path_factory.mktemp("flow-e2e"))


def _keys(page, *keys):
    for key in keys:
        page.keyboard.press(key)


def _tab_to(page, selector: str) -> None:
    for _ in range(30):
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def _start(context, campaign, item_path: str):
    """The campaign's page, its Start button reached and pressed from the keyboard."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    page.goto(f"/review/campaigns/{campaign.pk}/")
    _tab_to(page, "main button[type=submit]")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/{item_path}/i/**", timeout=15_000)
    return page


def _at_item(page, n: int, of: int) -> None:
    """The page shows item n of N, the time spent ticking, and a question is current."""
    page.wait_for_selector("[data-question].focused", timeout=15_000)
    page.wait_for_function(
        f"() => document.querySelector('[data-role=progress]').textContent.startsWith('Item {n} ')"
    )
    text = page.locator("[data-role=progress]").text_content()
    match = PROGRESS.match(text)
    assert match and (int(match[1]), int(match[2])) == (n, of), text


def _moves_on(page, before: str, item_path: str | None) -> None:
    """After a submit the page leaves the item by itself: to the next item, or (None) to the
    campaign's page, which says the campaign is done."""
    page.wait_for_url(lambda url: url != before, timeout=15_000)
    if item_path is None:
        page.wait_for_selector("[data-role=campaign-done]", timeout=15_000)
        assert "/review/campaigns/" in page.url
    else:
        assert f"/{item_path}/i/" in page.url, page.url


def _leave(page) -> None:
    """Off the item page (it polls while a clip is prepared) before the test's data goes."""
    page.goto("about:blank")
    page.wait_for_timeout(300)


def _each_question(page, key: str, move: str = "j") -> None:
    """``key`` on every question of the page, moving on with ``move`` (j or Tab; the answer
    never moves)."""
    count = page.locator("[data-question]").count()
    for n in range(count):
        if n:
            page.keyboard.press(move)
        page.keyboard.press(key)
        focused = page.evaluate(
            "[...document.querySelectorAll('[data-question]')]"
            ".findIndex((q) => q.classList.contains('focused'))"
        )
        assert focused == n, f"{key} moved the focus from question {n} to {focused}"


def test_audit_three_items_from_the_keyboard(open_as, auditors, tmp_path, admin_user, annotator,
                                             source):  # fmt: skip
    from tests.review.audit_world import build_world

    world = build_world(tmp_path=tmp_path, admin=admin_user, annotator=annotator,
                        reviewers=auditors, source=source)  # fmt: skip
    page = _start(open_as(auditors[0]), world.campaign, "audit")
    for n in (1, 2, 3):
        _at_item(page, n, 4)
        before = page.url
        _each_question(page, "v", move="Tab" if n == 2 else "j")  # Tab moves as j does
        page.keyboard.press("Enter")
        page.wait_for_selector("[data-role=phase]:has-text('phase 2 of 2')", timeout=15_000)
        _each_question(page, "i", move="Tab" if n == 2 else "j")
        page.keyboard.press("1")  # C7's first error type
        page.keyboard.press("Enter")
        _moves_on(page, before, "audit")
    assert not page.errors, page.errors
    _leave(page)
    subs = Submission.objects.filter(person=auditors[0])
    assert subs.filter(part="phase1").count() == subs.filter(part="phase2").count() == 3
    for sub in subs.filter(part="phase2"):
        assert sub.payload["criteria"]["C7"]["error_types"] == ["next_not_immediate"]


def test_boundary_three_items_from_the_keyboard(open_as, auditors, tmp_path, admin_user,
                                                annotator, source):  # fmt: skip
    from tests.review.boundary_world import build_boundary_world

    world = build_boundary_world(tmp_path=tmp_path, admin=admin_user, annotator=annotator,
                                 reviewers=auditors, source=source)  # fmt: skip
    page = _start(open_as(auditors[0]), world.campaign, "boundary")
    for n in (1, 2, 3):
        _at_item(page, n, 4)
        before = page.url
        _each_question(page, "u", move="Tab" if n == 2 else "j")
        page.keyboard.press("Enter")
        _moves_on(page, before, "boundary")
    assert not page.errors, page.errors
    _leave(page)
    subs = list(Submission.objects.filter(person=auditors[0]))
    assert len(subs) == 3
    assert all(a["label"] == "uncertain" for s in subs for a in s.payload["windows"].values())


def test_baseline_three_items_from_the_keyboard(open_as, raters, tmp_path, admin_user, annotator,
                                                source):  # fmt: skip
    from tests.review.baseline.world import build_world

    world = build_world(tmp_path=tmp_path, admin=admin_user, annotator=annotator, raters=raters,
                        source=source)  # fmt: skip
    page = _start(open_as(raters[0]), world.campaign, "baseline")
    for n in (1, 2, 3):
        _at_item(page, n, 4)
        before = page.url
        page.keyboard.press("y")
        assert page.evaluate("document.activeElement.dataset.dimension") == "local"  # y stays
        page.keyboard.press("a")
        page.keyboard.type(f"Lift the cup {n}")
        page.keyboard.press("Enter")  # leaves the answer for its question
        _keys(page, "4", "j", "n", "3", "j", "n", "2", "Enter")
        _moves_on(page, before, "baseline")
    assert not page.errors, page.errors
    _leave(page)
    subs = list(Submission.objects.filter(person=raters[0]).order_by("id"))
    assert [s.payload["dimensions"]["local"]["answers"] for s in subs] == [
        ["Lift the cup 1"], ["Lift the cup 2"], ["Lift the cup 3"]]  # fmt: skip


def test_judge_validation_three_items_from_the_keyboard(open_as, raters, make_video, admin_user,
                                                        annotator):  # fmt: skip
    from tests.review.judgeval_world import build_world

    world = build_world(make_video=make_video, admin=admin_user, annotator=annotator, raters=raters)
    page = _start(open_as(raters[0]), world.campaign, "judgeval")
    for n in (1, 2, 3):
        _at_item(page, n, 4)
        before = page.url
        for part, scores in ((1, (80, 65, 40)), (2, (30, 20, 10))):
            page.wait_for_selector(f"[data-role=position]:has-text('{part} of 2')")
            page.wait_for_function("() => document.activeElement.name === 'local'")
            for i, score in enumerate(scores):
                if i:
                    page.keyboard.press("Tab")  # the next question
                page.keyboard.type(str(score))
            page.keyboard.press("Enter")
        _moves_on(page, before, "judgeval")
    assert not page.errors, page.errors
    _leave(page)
    assert Submission.objects.filter(person=raters[0]).count() == 6


def test_qa_review_three_groups_from_the_keyboard_then_the_done_page(
    open_as, auditor, admin_user, tmp_path
):
    from tests.review.qa.world import build_qa_world

    world = build_qa_world(tmp_path=tmp_path, admin=admin_user, reviewers=[auditor],
                           params={"n_groups": 3})  # fmt: skip
    page = _start(open_as(auditor), world.campaign, "qa")
    for n in (1, 2, 3):
        _at_item(page, n, 3)
        before = page.url
        # Every check passes; the last question is the decision.
        _each_question(page, "p", move="Tab" if n == 2 else "j")
        page.keyboard.press("a")
        page.keyboard.press("Enter")
        # Submitted: read-only at once (further keys change nothing), then the next group. On a
        # busy machine the next group may open before the submitted one is seen: then there is
        # no submitted page left to press a key on.
        page.wait_for_function(
            "(before) => location.href !== before"
            " || document.getElementById('qa')?.dataset.done === '1'",
            arg=before,
        )
        if page.url == before:
            page.keyboard.press("x")
            assert page.locator("[data-decision=reject][aria-pressed=true]").count() == 0
        _moves_on(page, before, "qa" if n < 3 else None)
    assert not page.errors, page.errors
    _leave(page)
    subs = list(Submission.objects.filter(person=auditor))
    assert len(subs) == 3 and {s.payload["decision"] for s in subs} == {"accept"}


def test_a_comment_typed_after_clicking_a_box_is_stored_whole(open_as, auditor, admin_user,
                                                              tmp_path):  # fmt: skip
    from tests.review.qa.world import build_qa_world

    world = build_qa_world(tmp_path=tmp_path, admin=admin_user, reviewers=[auditor],
                           params={"n_groups": 1})  # fmt: skip
    page = _start(open_as(auditor), world.campaign, "qa")
    _at_item(page, 1, 1)
    _each_question(page, "p")
    page.keyboard.press("r")  # request revision: needs a reason
    page.click("[data-reason=other]")
    page.wait_for_function("() => !document.activeElement.matches('input')")
    page.keyboard.press("c")
    page.keyboard.type("the bell rings twice, not once")
    assert page.is_checked("[data-reason=other]")  # the spaces went into the comment
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")
    _moves_on(page, page.url, None)
    payload = Submission.objects.get(person=auditor).payload
    assert payload["comment"] == "the bell rings twice, not once"
    assert payload["reasons"] == ["other"]
    assert payload["decision"] == "revise"


def test_an_error_type_clicked_then_a_comment_typed_on_the_audit_page(open_as, auditors, tmp_path,
                                                                      admin_user, annotator,
                                                                      source):  # fmt: skip
    from tests.review.audit_world import build_world

    world = build_world(tmp_path=tmp_path, admin=admin_user, annotator=annotator,
                        reviewers=auditors, source=source)  # fmt: skip
    page = _start(open_as(auditors[0]), world.campaign, "audit")
    _at_item(page, 1, 4)
    page.keyboard.press("i")  # C1 invalid: its error types appear
    c1 = page.locator("[data-criterion=C1]")
    offered = c1.locator(".types input").evaluate_all("boxes => boxes.map((b) => b.value)")
    assert offered == ["multi_goal_step", "other"]  # C1's own types only
    c1.locator("input[value=multi_goal_step]").click()
    page.keyboard.press("c")
    page.keyboard.type("two goals in one step")
    page.keyboard.press("Escape")
    page.wait_for_function(
        "() => document.querySelector('[data-role=status]').textContent === 'Draft saved.'"
    )
    from review.campaigns.models import Assignment

    draft = Assignment.objects.get(person=auditors[0]).draft["phase1"]["criteria"]["C1"]
    assert draft == {"label": "invalid", "error_types": ["multi_goal_step"],
                     "comment": "two goals in one step"}  # fmt: skip


@pytest.mark.parametrize("size", [(1440, 900), (1280, 800)])
def test_the_audits_phase_2_question_opens_in_view(open_as, auditors, tmp_path, admin_user,
                                                   annotator, source, size):  # fmt: skip
    from tests.review.audit_world import build_world, render_pending

    world = build_world(tmp_path=tmp_path, admin=admin_user, annotator=annotator,
                        reviewers=auditors, source=source)  # fmt: skip
    page = _start(open_as(auditors[0]), world.campaign, "audit")
    page.set_viewport_size({"width": size[0], "height": size[1]})
    render_pending()
    _at_item(page, 1, 4)
    _each_question(page, "v")
    page.keyboard.press("c")
    page.keyboard.type("a comment that makes phase 1 longer")
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-role=phase]:has-text('phase 2 of 2')", timeout=15_000)
    box = page.evaluate(
        """() => { const r = document.querySelector('[data-criterion=C3]').getBoundingClientRect();
                   return {top: r.top, bottom: r.bottom, height: innerHeight,
                           current: document.activeElement.dataset.criterion}; }"""
    )
    assert box["top"] >= 0 and box["bottom"] <= box["height"], box
    assert box["current"] == "C3"

    # Out of view, a key shows the question instead of answering it unseen.
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    page.wait_for_timeout(200)
    top = page.evaluate("document.querySelector('[data-criterion=C3]').getBoundingClientRect().top")
    if top >= 0:  # the page is too short to hide it at this size
        page.set_viewport_size({"width": size[0], "height": 420})
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        page.wait_for_timeout(200)
        top = page.evaluate(
            "document.querySelector('[data-criterion=C3]').getBoundingClientRect().top"
        )
    assert top < 0, "C3 could not be scrolled out of view"
    page.keyboard.press("v")
    c3 = page.locator("[data-criterion=C3] [data-label=valid]")
    assert c3.get_attribute("aria-pressed") == "false"
    assert "out of view" in page.locator("[data-role=status]").text_content()
    assert page.evaluate(
        "document.querySelector('[data-criterion=C3]').getBoundingClientRect().top >= 0"
    )
    page.keyboard.press("v")
    assert c3.get_attribute("aria-pressed") == "true"


def test_the_one_keyboard_map_is_the_one_documented(open_as, auditor):
    """Every row of static/js/review-keys.js is a row of docs/review.md's *Keys*, under its
    section's title, and the docs list no key the map does not have."""
    from pathlib import Path

    from django.conf import settings

    page = open_as(auditor).new_page()
    page.goto("/login/")
    keymap = page.evaluate(
        "async () => { const m = await import('/static/js/review-keys.js');"
        " return {move: m.MOVE, kinds: m.KEYS}; }"
    )
    pretty = page.evaluate(
        "async () => { const k = await import('/static/js/keys.js');"
        " return ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'].map(k.pretty); }"
    )
    arrows = dict(zip(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"], pretty, strict=True))
    doc = (Path(settings.BASE_DIR) / "docs" / "review.md").read_text()
    keys_doc = doc[doc.index("## Keys") : doc.index("## Progress")]
    rows = []
    for title, entries in [keymap["move"], *(s for k in keymap["kinds"].values() for s in k)]:
        assert f" {title}\n" in keys_doc, title
        for keys, text, _ in entries:
            named = " / ".join(
                f"`{'+'.join(arrows.get(p, p) for p in k.split('+'))}`" for k in keys
            )
            rows.append(f"| {named} | {text} |")
            assert rows[-1] in keys_doc, rows[-1]
    documented = [line for line in keys_doc.splitlines() if line.startswith("| `")]
    assert sorted(documented) == sorted(rows)
