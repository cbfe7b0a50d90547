"""Reading the times people type (studio.display.parse_timecode): seconds, the player's clock
and frame numbers all name a frame boundary of the source, snapped as the workspace snaps."""

from __future__ import annotations

import pytest

from studio.display import parse_timecode, snap_to_boundary

# 30 fps for 20 s: frame n at n * 33_333 µs (rounded as a probe gives them), the end at 20 s.
TIMES = [round(n * 1_000_000 / 30) for n in range(600)]
END = 20_000_000


@pytest.mark.parametrize(
    "text, expected",
    [
        ("13.2", TIMES[396]),
        ("13.2 s", TIMES[396]),
        ("0:13.200", TIMES[396]),
        ("0:13,2", TIMES[396]),
        ("#396", TIMES[396]),
        ("frame 396", TIMES[396]),
        ("  #0 ", 0),
        ("13.21", TIMES[396]),  # nearest frame
        ("13.2166", TIMES[396]),  # halfway: the earlier frame
        ("13.2167", TIMES[397]),
        (".5", TIMES[15]),
        ("0:00:19.99", END),  # past the last frame: the end of the video is nearer
        ("#600", END),  # the frame count: the end of the video
    ],
)
def test_times_and_frames_name_the_same_boundary(text, expected):
    assert parse_timecode(text, frame_times_us=TIMES, duration_us=END) == expected


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "Give a time (13.2 or 0:13.200) or a frame (#396)."),
        ("13200000", "past the end of the video (0:20.000)"),
        ("abc", "'abc' is not a time (13.2 or 0:13.200) or a frame (#396)."),
        ("1:75", "minutes and seconds go up to 59"),
        ("#601", "Frame #601 is past the end of the video (its last is #599)."),
        ("-3", "is not a time"),
    ],
)
def test_what_is_not_a_time_of_the_video_is_refused_with_a_sentence(text, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        parse_timecode(text, frame_times_us=TIMES, duration_us=END)


def test_without_a_duration_the_last_frame_is_the_last_boundary():
    assert parse_timecode("19.96", frame_times_us=TIMES) == TIMES[-1]
    for text in ("19.99", "#600"):
        with pytest.raises(ValueError, match="past the end"):
            parse_timecode(text, frame_times_us=TIMES)


def test_variable_frame_rate_snaps_to_the_frames_that_exist():
    times = [0, 40_000, 50_000, 200_000, 210_000]
    assert snap_to_boundary(120_000, frame_times_us=times) == 50_000
    assert snap_to_boundary(126_000, frame_times_us=times) == 200_000
    assert parse_timecode("0.125", frame_times_us=times, duration_us=250_000) == 50_000
    assert parse_timecode("#3", frame_times_us=times, duration_us=250_000) == 200_000
