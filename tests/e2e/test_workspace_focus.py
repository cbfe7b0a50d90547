"""Typing never fires shortcuts: a key is a shortcut only on the player, the timeline or the page
itself; on a button, field or list it is that element's own key."""

from __future__ import annotations

import pytest

from annotation.models import MicroStep
from tests.e2e.conftest import open_workspace, step_on_frames, wait_idle

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

MARKS = ("start_us", "cutoff_us", "outcome_us", "end_us")

# Every focusable element of the workspace outside the player and the timeline, as a selector
# the test can focus again (the panel re-renders rows, so element handles go stale).
FOCUSABLES = """() => {
    const own = 'button, input, textarea, select, a[href], [contenteditable], [tabindex]';
    const found = [];
    document.querySelectorAll('#workspace ' + own.split(', ').join(', #workspace ')).forEach(
        (el) => {
            if (el.closest('[data-shortcuts]') || el.closest('[hidden]')) return;
            if (el.tabIndex < 0 || el.disabled || !el.getClientRects().length) return;
            el.dataset.focusProbe = String(found.length);
            found.push(`${el.tagName.toLowerCase()} ${el.getAttribute('name') || ''}`
                + ` ${(el.textContent || el.getAttribute('aria-label') || '').trim()}`);
        });
    return found;
}"""


def single_key_bindings(page) -> list[str]:
    """Every binding of static/js/keys.js that is one character (the ones typing can hit)."""
    bindings = page.evaluate("async () => (await import('/static/js/keys.js')).BINDINGS")
    keys = {key for _, rows in bindings for names, _, _ in rows for key in names}
    return sorted(key for key in keys if len(key) == 1)


def page_marks(page) -> dict:
    return {m: page.get_attribute(f"[data-mark={m}]", "data-value") for m in MARKS}


@pytest.fixture
def outside_the_step(open_as, import_video, annotator):
    """A step without plausible next steps, selected, with the playhead past its end: there,
    s/c/o/e would move its marks and n would create a step."""
    video = import_video("cfr", assign_to=annotator)
    step = step_on_frames(video, annotator)
    page = open_workspace(open_as(annotator), video)
    creates = []
    page.on(
        "request",
        lambda r: creates.append(r.url) if r.method == "POST" and r.url.endswith("/steps/") else 0,
    )
    wait_idle(page)
    for _ in range(8):
        page.keyboard.press("Shift+ArrowRight")  # to frame 80, the step stays selected
    wait_idle(page)
    assert page.get_attribute("#workspace", "data-current") == str(step.pk)
    return page, step, creates


def test_no_single_key_binding_fires_while_a_button_or_field_has_focus(outside_the_step):
    page, step, creates = outside_the_step
    keys = single_key_bindings(page)
    assert {"s", "c", "o", "e", "n", "x", "m", "u", "h", "v", "?"} <= set(keys)
    before = page_marks(page)
    elements = page.evaluate(FOCUSABLES)
    assert len(elements) > 15, elements
    for i, described in enumerate(elements):
        target = page.locator(f"[data-focus-probe='{i}']")
        if not target.count():
            continue
        target.focus()
        for key in keys:
            page.keyboard.press(key)
        assert page_marks(page) == before, f"a key moved a mark while {described!r} had focus"
        assert page.is_hidden("[data-role=help]"), f"'?' opened the help on {described!r}"
        assert page.is_hidden("[data-role=history]"), f"'h' opened the history on {described!r}"
    page.wait_for_selector("[data-role=save-state][data-state=saved]", timeout=10_000)
    assert creates == []
    assert MicroStep.objects.filter(video=step.video).count() == 1
    step.refresh_from_db()
    assert [getattr(step, m) for m in MARKS] == [int(before[m]) for m in MARKS]
    assert page.locator(".tl-step").count() == 1


def test_tab_from_the_labels_reaches_a_plausible_step_input_and_typing_stays_there(
    outside_the_step,
):
    page, step, creates = outside_the_step
    before = page_marks(page)
    page.keyboard.press("Enter")  # into Local intent
    visited = []
    for _ in range(4):
        visited.append(
            page.evaluate(
                "document.activeElement.getAttribute('name') || "
                "document.activeElement.getAttribute('aria-label')"
            )
        )
        page.keyboard.type("one")
        page.keyboard.press("Tab")
    assert visited == ["local_intent", "procedural_intent", "next_step", "Plausible next step"]
    page.wait_for_selector("[data-role=save-state][data-state=saved]", timeout=10_000)
    assert page_marks(page) == before and creates == []
    step.refresh_from_db()
    assert (step.local_intent, step.next_step, step.plausible_next_steps) == ("one", "one", ["one"])


def test_a_button_clicked_with_the_mouse_gives_the_keys_back_to_the_page(outside_the_step):
    page, _, _ = outside_the_step
    page.click("[data-do=frame][data-i='0']")  # one frame back, with the mouse
    wait_idle(page)
    assert page.evaluate("document.activeElement === document.body")
    frame = int(page.get_attribute("#workspace", "data-frame"))
    page.keyboard.press("ArrowLeft")
    wait_idle(page)
    assert int(page.get_attribute("#workspace", "data-frame")) == frame - 1


def test_the_player_and_the_timeline_take_shortcuts_when_focused(outside_the_step):
    page, _, _ = outside_the_step
    for surface in ("[data-role=video]", "[data-role=timeline]"):
        page.focus(surface)
        assert page.evaluate(f"document.activeElement.matches('{surface}')"), surface
        frame = int(page.get_attribute("#workspace", "data-frame"))
        page.keyboard.press("ArrowRight")
        wait_idle(page)
        assert int(page.get_attribute("#workspace", "data-frame")) == frame + 1, surface


def test_enter_selects_the_label_so_typing_replaces_it(open_as, import_video, annotator):
    video = import_video("cfr", assign_to=annotator)
    step = step_on_frames(video, annotator, local_intent="Pick up the cup")
    page = open_workspace(open_as(annotator), video)
    wait_idle(page)
    page.keyboard.press("Enter")
    selected = page.evaluate(
        "(() => { const f = document.activeElement;"
        " return [f.name, f.selectionStart, f.selectionEnd, f.value.length]; })()"
    )
    assert selected == ["local_intent", 0, len("Pick up the cup"), len("Pick up the cup")]
    page.keyboard.type("Lift the cup")
    page.wait_for_selector("[data-role=save-state][data-state=saved]", timeout=10_000)
    step.refresh_from_db()
    assert step.local_intent == "Lift the cup"


def test_a_status_message_clears_on_the_next_action_and_after_a_while(outside_the_step):
    page, _, _ = outside_the_step
    message = page.locator("[data-role=message]")
    page.keyboard.press("m")  # merge: nothing follows the only step
    assert "nothing follows" in message.inner_text()
    page.keyboard.press("ArrowLeft")
    wait_idle(page)
    assert message.inner_text() == ""
    page.keyboard.press("m")
    assert "nothing follows" in message.inner_text()
    page.wait_for_function(
        "() => document.querySelector('[data-role=message]').textContent === ''", timeout=15_000
    )
