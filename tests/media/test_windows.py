"""The condition windows and the sampling rule, as pure functions of plain times."""

from __future__ import annotations

import numpy as np
import pytest

from media.windows import (
    StepTimes,
    WindowUnavailable,
    condition_window,
    frame_set,
    sample_positions,
    shuffle_permutation,
    window_frames,
)

S = 1_000_000
STEP = StepTimes(start_us=20 * S, cutoff_us=23 * S, outcome_us=24 * S, end_us=25 * S)
PREV = StepTimes(start_us=12 * S, cutoff_us=14 * S, outcome_us=15 * S, end_us=16 * S)
NEXT = StepTimes(start_us=26 * S, cutoff_us=26 * S + 600_000, outcome_us=27 * S, end_us=28 * S)


@pytest.mark.parametrize(
    ("condition", "segments"),
    [
        ("official", ((20 * S, 23 * S),)),
        ("step_only", ((20 * S, 23 * S),)),
        ("early", ((20 * S, 22 * S + 500_000),)),
        ("outcome_visible", ((20 * S, 24 * S + 1),)),
        ("next_visible", ((20 * S, 26 * S + 600_000),)),  # capped at the next step's cutoff
        ("history_5s", ((15 * S, 23 * S),)),
        ("history_15s", ((5 * S, 23 * S),)),
        ("previous_step", ((12 * S, 16 * S), (20 * S, 23 * S))),  # the gap 16-20 s excluded
        ("ordered", ((20 * S, 23 * S),)),
        ("shuffled", ((20 * S, 23 * S),)),
        ("last_frame", ((20 * S, 23 * S),)),
        ("first_frame", ((20 * S, 23 * S),)),
    ],
)
def test_each_condition_has_one_definition(condition, segments):
    window = condition_window(condition, step=STEP, previous=PREV, following=NEXT)
    assert window.segments == segments
    assert window.note == ""


def test_history_starts_are_clamped_at_zero():
    early_step = StepTimes(2 * S, 3 * S, 3 * S, 4 * S)
    assert condition_window("history_5s", step=early_step).segments == ((0, 3 * S),)
    assert condition_window("history_15s", step=early_step).segments == ((0, 3 * S),)


def test_previous_step_falls_back_to_step_only_and_says_so():
    window = condition_window("previous_step", step=STEP, previous=None)
    assert window.segments == ((20 * S, 23 * S),)
    assert "no previous step" in window.note


def test_adjacent_previous_step_gives_one_continuous_window():
    prev = StepTimes(17 * S, 18 * S, 19 * S, 20 * S)
    assert condition_window("previous_step", step=STEP, previous=prev).segments == (
        (17 * S, 23 * S),
    )


def test_next_visible_needs_a_following_step():
    with pytest.raises(WindowUnavailable, match="following step"):
        condition_window("next_visible", step=STEP, following=None)


def test_conditions_without_media_and_unknown_ones_are_refused():
    with pytest.raises(WindowUnavailable, match="no sample media"):
        condition_window("scene_only", step=STEP)
    with pytest.raises(WindowUnavailable, match="unknown condition"):
        condition_window("sideways", step=STEP)


def test_step_times_must_be_ordered():
    with pytest.raises(ValueError, match="start < cutoff"):
        StepTimes(5, 5, 6, 7)


TIMES = np.array([round(i * S / 30) for i in range(900)], dtype=np.int64)


def test_window_frames_are_half_open():
    step = StepTimes(int(TIMES[30]), int(TIMES[60]), int(TIMES[61]), int(TIMES[62]))
    window = condition_window("official", step=step)
    selection = window_frames(TIMES, window)
    assert selection.indices == tuple(range(30, 60))  # the cutoff frame (60) is withheld
    assert not selection.boundary_fallback


def test_short_early_window_repeats_the_boundary_frame():
    step = StepTimes(int(TIMES[100]), int(TIMES[105]), int(TIMES[106]), int(TIMES[110]))
    window = condition_window("early", step=step)
    assert "boundary frame" in window.note
    frames, permutation, fallback = frame_set(TIMES, window)
    assert fallback and permutation is None
    assert frames == (99,) * 16  # the last frame before the (empty) window's end


def test_sampling_is_uniform_and_keeps_first_and_last():
    assert sample_positions(16) == tuple(range(16))
    assert sample_positions(31) == (0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30)
    assert sample_positions(2) == (0,) * 8 + (1,) * 8
    assert sample_positions(1) == (0,) * 16
    positions = sample_positions(300)
    assert positions[0] == 0 and positions[-1] == 299 and list(positions) == sorted(positions)


def test_shuffled_is_the_same_frames_in_a_seeded_order():
    step = StepTimes(int(TIMES[100]), int(TIMES[160]), int(TIMES[170]), int(TIMES[180]))
    ordered, _, _ = frame_set(TIMES, condition_window("ordered", step=step))
    shuffled, permutation, _ = frame_set(TIMES, condition_window("shuffled", step=step), seed=7)
    assert sorted(shuffled) == sorted(ordered) and shuffled != ordered
    assert shuffled == tuple(ordered[p] for p in permutation)
    assert permutation == shuffle_permutation(16, 7)
    assert shuffle_permutation(16, 8) != permutation
    last, _, _ = frame_set(TIMES, condition_window("last_frame", step=step))
    first, _, _ = frame_set(TIMES, condition_window("first_frame", step=step))
    assert last == (159,) and first == (100,)


def test_the_audit_context_window_spans_the_neighbours_or_five_seconds():
    from media.windows import StepTimes, context_window

    step = StepTimes(10_000_000, 11_000_000, 11_500_000, 12_000_000)
    before = StepTimes(7_000_000, 8_000_000, 8_500_000, 9_000_000)
    after = StepTimes(12_000_000, 13_000_000, 13_200_000, 14_000_000)
    both = context_window(step=step, duration_us=60_000_000, previous=before, following=after)
    assert both.segments == ((7_000_000, 14_000_000),) and both.note == ""
    alone = context_window(step=step, duration_us=60_000_000)
    assert alone.segments == ((5_000_000, 17_000_000),)
    assert "5 s before" in alone.note and "5 s after" in alone.note
    edge = context_window(step=StepTimes(1_000_000, 2_000_000, 2_000_000, 3_000_000),
                          duration_us=4_000_000)  # fmt: skip
    assert edge.segments == ((0, 4_000_000),)  # clamped to the video
