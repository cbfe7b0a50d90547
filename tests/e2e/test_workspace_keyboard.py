"""The workspace driven by the keyboard alone, and the player's frame exactness: the picture on
screen (read back from its burned-in barcode) is the frame the page says, on constant and on
variable frame rate."""

from __future__ import annotations

import pytest

from annotation.models import MicroStep, StepRevision
from annotation.services import step_create
from tests.e2e.conftest import open_workspace, shown_frame_number, wait_idle

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def frame(page) -> int:
    return int(page.get_attribute("#workspace", "data-frame"))


def rate(page) -> float:
    return page.evaluate("document.querySelector('[data-role=video]').playbackRate")


def press(page, key, times=1):
    for _ in range(times):
        page.keyboard.press(key)
    wait_idle(page)


def wait_saved(page):
    try:
        page.wait_for_selector("[data-role=save-state][data-state=saved]", timeout=10_000)
    except Exception:
        print(
            "STATE",
            page.inner_text("[data-role=save-state]"),
            "MSG",
            page.inner_text("[data-role=message]"),
        )
        print(
            "ERR",
            page.eval_on_selector_all(
                ".field-error", "els => els.map(e => e.dataset.errorFor + ':' + e.textContent)"
            ),
        )
        print(page.errors)
        raise


def go_to(page, target):
    """Step to a frame with the arrow keys (tens with Shift, then ones)."""
    delta = target - frame(page)
    key = "ArrowRight" if delta > 0 else "ArrowLeft"
    tens, ones = divmod(abs(delta), 10)
    for _ in range(tens):
        page.keyboard.press(f"Shift+{key}")
    for _ in range(ones):
        page.keyboard.press(key)
    wait_idle(page)
    assert frame(page) == target


@pytest.mark.parametrize("kind", ["cfr", "vfr"])
def test_stepping_shows_exactly_the_indexed_frame(open_as, import_video, annotator, kind):
    video = import_video(kind, assign_to=annotator)
    page = open_workspace(open_as(annotator), video)
    wait_idle(page)
    assert shown_frame_number(page) == 0
    for key, expected in [
        ("ArrowRight", 1),
        ("ArrowRight", 2),
        ("Shift+ArrowRight", 12),
        ("ArrowLeft", 11),
        ("Shift+ArrowRight", 21),
        ("Shift+ArrowLeft", 11),
    ]:
        press(page, key)
        assert frame(page) == expected
        assert shown_frame_number(page) == expected, key
    # The last frame is reachable and shows itself (VFR intervals differ at the end too).
    last = video.frame_count - 1
    go_to(page, last)
    assert shown_frame_number(page) == last


@pytest.mark.parametrize("kind", ["mp4-no-editlist", "mkv-offset"])
def test_stepping_is_exact_when_the_container_timeline_does_not_start_at_the_first_frame(
    open_as, import_video, annotator, kind
):
    video = import_video(kind, assign_to=annotator)
    page = open_workspace(open_as(annotator), video)
    wait_idle(page)
    assert shown_frame_number(page) == 0
    for expected in (1, 2, 3):
        press(page, "ArrowRight")
        assert shown_frame_number(page) == expected
    go_to(page, 40)
    assert shown_frame_number(page) == 40


@pytest.mark.parametrize("kind", ["cfr", "vfr"])
def test_play_to_cutoff_stops_on_the_last_frame_before_the_cutoff(
    open_as, import_video, annotator, kind
):
    video = import_video(kind, assign_to=annotator)
    times = video.frame_times_us().tolist()
    step_create(
        video=video,
        author=annotator,
        start_us=times[5],
        cutoff_us=times[23],
        outcome_us=times[25],
        end_us=times[30],
    )
    page = open_workspace(open_as(annotator), video)
    wait_idle(page)
    page.keyboard.press("p")
    page.wait_for_function(
        "() => document.querySelector('[data-role=play-state]').textContent === 'paused'"
        " && document.querySelector('[data-role=video]').dataset.state === 'idle'"
        " && document.getElementById('workspace').dataset.frame === '22'",
        timeout=10_000,
    )
    assert shown_frame_number(page) == 22


def test_keyboard_only_three_steps_with_marks_and_labels_survive_a_reload(
    open_as, import_video, annotator
):
    video = import_video("cfr", assign_to=annotator)
    times = video.frame_times_us().tolist()
    page = open_workspace(open_as(annotator), video)
    wait_idle(page)
    plan = [
        # first frame, last shown frame (cutoff after it), outcome frame, last frame, labels
        (3, 20, 24, 30, ("Pick up the cup", "To drink from it", "Fill the cup", ["Rinse it"])),
        (40, 55, 58, 64, ("Open the tap", "Water is needed", "Hold the cup under it", [])),
        (70, 80, 81, 95, ("Turn off the tap", "Stop the water", "Drink", ["Dry the cup", "Sip"])),
    ]
    for first, last_shown, outcome, last, labels in plan:
        go_to(page, first)
        page.keyboard.press("n")
        page.wait_for_function("() => document.getElementById('workspace').dataset.current")
        wait_saved(page)
        go_to(page, last)
        page.keyboard.press("e")
        go_to(page, last_shown)
        page.keyboard.press("c")
        go_to(page, outcome)
        page.keyboard.press("o")
        local, procedural, nxt, plausible = labels
        page.keyboard.press("Enter")
        page.keyboard.type(local)
        page.keyboard.press("Tab")
        page.keyboard.type(procedural)
        page.keyboard.press("Tab")
        page.keyboard.type(nxt)
        page.keyboard.press("Tab")  # into the list's blank item (the list is empty)
        for i, item in enumerate(plausible):
            if i:
                page.keyboard.press("Enter")  # inside an item, Enter adds one below
            page.keyboard.type(item)
        page.keyboard.press("Escape")
        wait_saved(page)

    page.reload()
    page.wait_for_selector("#workspace[data-ready=true]")
    wait_saved(page)
    steps = list(MicroStep.objects.filter(video=video, status="active").order_by("start_us"))
    assert len(steps) == 3
    for step, (first, last_shown, outcome, last, labels) in zip(steps, plan, strict=True):
        assert (step.start_us, step.cutoff_us, step.outcome_us, step.end_us) == (
            times[first],
            times[last_shown + 1],
            times[outcome],
            times[last + 1],
        )
        assert [
            step.local_intent,
            step.procedural_intent,
            step.next_step,
            step.plausible_next_steps,
        ] == list(labels)
    # The reloaded page shows them: walk the steps with ↑/↓ and read the panel.
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    wait_idle(page)
    for step in steps:
        assert page.input_value("[name=local_intent]") == step.local_intent
        assert page.input_value("[name=next_step]") == step.next_step
        items = page.eval_on_selector_all(
            "[data-role=plausible] input", "els => els.map(e => e.value)"
        )
        assert items == (step.plausible_next_steps or [""])  # an empty list shows a blank item
        assert page.get_attribute("[data-mark=cutoff_us]", "data-value") == str(step.cutoff_us)
        page.keyboard.press("ArrowDown")
        wait_idle(page)
    assert StepRevision.objects.filter(step__video=video, action="create").count() == 3
    assert not page.errors


def test_split_merge_nudge_and_retract_from_the_keyboard(open_as, import_video, annotator):
    video = import_video("vfr", assign_to=annotator)
    times = video.frame_times_us().tolist()
    step = step_create(
        video=video,
        author=annotator,
        start_us=times[2],
        cutoff_us=times[20],
        outcome_us=times[22],
        end_us=times[30],
        local_intent="Stir the tea",
    )
    page = open_workspace(open_as(annotator), video)
    wait_idle(page)
    go_to(page, 12)
    page.keyboard.press("x")  # split at frame 12
    page.wait_for_function("() => document.querySelectorAll('.tl-step').length === 2")
    wait_saved(page)
    first, second = MicroStep.objects.filter(video=video, status="active").order_by("start_us")
    assert (first.pk, first.end_us, second.start_us, second.end_us) == (
        step.pk,
        times[12],
        times[12],
        times[30],
    )
    # Nudge the second part's start one frame later: choose the start (1) and press "."
    page.keyboard.press("1")
    page.keyboard.press(".")
    wait_saved(page)
    second.refresh_from_db()
    assert second.start_us == times[13]
    # Back to the first step and merge it with the second.
    page.keyboard.press("ArrowUp")
    wait_idle(page)
    page.keyboard.press("m")
    page.wait_for_function("() => document.querySelectorAll('.tl-step').length === 1")
    wait_saved(page)
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.end_us, second.status) == (times[30], "retracted")
    page.keyboard.press("Delete")
    page.wait_for_function("() => document.querySelectorAll('.tl-step').length === 0")
    first.refresh_from_db()
    assert first.status == "retracted" and MicroStep.objects.filter(video=video).count() == 2
    page.keyboard.press("u")  # restore the step retracted last
    page.wait_for_function("() => document.querySelectorAll('.tl-step').length === 1")
    first.refresh_from_db()
    assert (first.status, first.end_us) == ("active", times[30])
    assert list(first.revisions.values_list("action", flat=True)) == [
        "create",
        "split",
        "merge",
        "retract",
        "restore",
    ]
    # Help overlay on "?"
    page.keyboard.press("?")
    assert page.is_visible("[data-role=help]")
    assert "play the current step up to its cutoff" in page.inner_text("[data-role=help]")
    page.keyboard.press("Escape")
    assert not page.is_visible("[data-role=help]")


def test_dragging_a_marker_snaps_it_to_a_frame_and_speed_and_loop_respond(
    open_as, import_video, annotator
):
    video = import_video("vfr", assign_to=annotator)
    times = video.frame_times_us().tolist()
    step = step_create(
        video=video,
        author=annotator,
        start_us=times[10],
        cutoff_us=times[40],
        outcome_us=times[45],
        end_us=times[60],
    )
    page = open_workspace(open_as(annotator), video)
    wait_idle(page)
    handle = page.locator(f".tl-step[data-id='{step.pk}'] .tl-cutoff")
    handle.scroll_into_view_if_needed()
    track = page.locator(".tl-track").bounding_box()
    box = handle.bounding_box()
    px_per_us = track["width"] / video.duration_us
    target_us = (times[25] + times[26]) // 2 + 3_000  # nearer to frame 26 than to frame 25
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(track["x"] + target_us * px_per_us, box["y"] + box["height"] / 2, steps=8)
    page.mouse.up()
    wait_saved(page)
    step.refresh_from_db()
    assert step.cutoff_us in times and abs(times.index(step.cutoff_us) - 26) <= 1
    assert step.version == 2

    for _ in range(8):
        page.keyboard.press("[")
    assert rate(page) == 0.1
    for _ in range(12):
        page.keyboard.press("]")
    assert rate(page) == 4
    page.keyboard.press("\\")
    assert rate(page) == 1
    # Loop the step: it plays, and keeps to the step's frames.
    page.keyboard.press("l")
    page.wait_for_function(
        "() => document.querySelector('[data-role=play-state]').textContent === 'playing'"
    )
    page.wait_for_timeout(1500)  # longer than the step: it must have looped at least once
    frame_now = frame(page)
    assert 10 <= frame_now < 60
    page.keyboard.press("l")
    wait_idle(page)
    assert page.inner_text("[data-role=play-state]") == "paused"
    assert page.get_attribute("[data-role=loop]", "aria-pressed") == "false"
