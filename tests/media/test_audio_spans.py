"""The sound rule as pure functions: which source stretch a window's sound is cut from, how many
samples that is, and what ffmpeg's headers say about a sound stream."""

from __future__ import annotations

import numpy as np
import pytest

from media.audio import (
    AUDIO_FORMATS,
    AudioSpan,
    AudioTrack,
    audio_spans,
    channel_count,
    parse_audio_stream,
    span_samples,
)
from media.ffrender import ClipOutput, clip_output_times
from media.synth import synth_frame_times
from media.windows import StepTimes, Window, condition_window, window_frames

VFR = np.array(synth_frame_times(200, 30, vfr=True), dtype=np.int64)


def _spans(times, window):
    selection = window_frames(times, window)
    return selection, audio_spans(times, selection.indices, selection.segment_starts,
                                  window.segments)  # fmt: skip


@pytest.mark.parametrize("condition", ["official", "early", "outcome_visible", "history_5s",
                                       "previous_step", "next_visible"])  # fmt: skip
def test_the_sound_lasts_exactly_as_long_as_the_clip(condition):
    t = VFR
    step = StepTimes(int(t[60]), int(t[90]), int(t[95]), int(t[100]))
    prev, nxt = StepTimes(int(t[10]), int(t[20]), int(t[25]), int(t[30])), StepTimes(
        int(t[120]), int(t[140]), int(t[150]), int(t[160]))  # fmt: skip
    window = condition_window(condition, step=step, previous=prev, following=nxt)
    selection, spans = _spans(t, window)
    clip = ClipOutput("x.mp4", selection.indices, selection.segment_starts, (64, 64))
    out, duration, _ = clip_output_times(t, clip)
    assert sum(s.duration_us for s in spans) == duration
    # each span starts where its run's picture starts in the clip, runs joined end to end
    at = 0
    for span, pos in zip(spans, selection.segment_starts, strict=True):
        assert out[pos] == at
        at += span.duration_us


def test_marks_on_frames_end_the_sound_at_the_cutoff():
    t = VFR
    window = Window("official", ((int(t[10]), int(t[31])),))
    _, (span,) = _spans(t, window)
    assert span == AudioSpan(int(t[10]), int(t[31]), int(t[31]))


def test_a_window_ending_between_frames_stops_the_sound_at_its_end():
    t = VFR
    stop = int(t[31]) - 1  # frame 30 is the last; it is shown until frame 31
    _, (span,) = _spans(t, Window("official", ((int(t[10]), stop),)))
    assert span == AudioSpan(int(t[10]), stop, int(t[31]))


def test_previous_step_gives_one_span_per_segment():
    t = VFR
    window = Window("previous_step", ((int(t[5]), int(t[12])), (int(t[40]), int(t[50]))))
    _, spans = _spans(t, window)
    assert spans == (AudioSpan(int(t[5]), int(t[12]), int(t[12])),
                     AudioSpan(int(t[40]), int(t[50]), int(t[50])))  # fmt: skip


def test_a_window_without_frames_takes_the_boundary_frame_and_no_sound_past_the_window():
    t = VFR
    a = int(t[20]) + 1
    window = Window("early", ((a, a),))  # empty: the boundary frame is frame 20
    selection, (span,) = _spans(t, window)
    assert selection.boundary_fallback and selection.indices == (20,)
    assert span == AudioSpan(int(t[20]), a, int(t[21]))


def test_the_last_frame_of_the_video_is_shown_as_long_as_the_one_before():
    t = np.array([0, 40_000, 80_000], dtype=np.int64)
    _, (span,) = _spans(t, Window("official", ((0, 10**9),)))
    assert span == AudioSpan(0, 120_000, 120_000)


def test_sample_counts_round_exactly():
    assert span_samples(1_000_000, 16_000) == 16_000
    assert span_samples(33_333, 48_000) == 1600  # 1599.984
    assert span_samples(31, 16_000) == 0 and span_samples(32, 16_000) == 1  # 0.496, 0.512
    assert span_samples(10**12 + 1, 48_000) == 48_000_000_000  # integers: no float drift
    track = AudioTrack(AUDIO_FORMATS["wav16k"], (AudioSpan(0, 50_000, 50_000),
                                                 AudioSpan(90_000, 120_000, 130_000)))  # fmt: skip
    assert track.expected_samples == 800 + 640 and track.duration_us == 90_000
    assert AudioTrack.from_spec(track.as_spec()) == track


@pytest.mark.parametrize(("layout", "channels"), [
    ("mono", 1), ("stereo", 2), ("5.1(side)", 6), ("7.1", 8), ("7.1.4", 12), ("22.2", 24),
    ("quad(side)", 4), ("3 channels", 3), ("hexagonal", 6), ("weird", None),
])  # fmt: skip
def test_channel_counts_from_layout_names(layout, channels):
    assert channel_count(layout) == channels


def test_the_audio_stream_is_read_from_the_input_only():
    header = """Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'file:x.mp4':
  Duration: 00:00:04.00, start: 0.000000, bitrate: 122 kb/s
  Stream #0:0[0x1](und): Video: h264 (High) (avc1 / 0x31637661), yuv420p, 320x180, 30 fps
  Stream #0:1[0x2](und): Audio: aac (LC) (mp4a / 0x6134706D), 44100 Hz, 5.1(side), fltp, 66 kb/s
Output #0, wav, to 'pipe:1':
  Stream #0:0: Audio: pcm_u8, 16000 Hz, mono, u8, 128 kb/s
"""
    found = parse_audio_stream(header)
    assert (found.codec, found.rate, found.channels) == ("aac", 44_100, 6)
    assert parse_audio_stream(header.split("  Stream #0:1")[0] + "\nOutput #0, wav\n"
                              "  Stream #0:0: Audio: pcm_u8, 16000 Hz, mono\n") is None  # fmt: skip
