"""Rendering, proven by frame identity: every picture carries its source frame number."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.storage import default_storage

from media.models import RenderedMedia
from media.renders import media_render, media_request, transmission_profile
from media.synth import read_frame_numbers
from media.windows import condition_window
from tests.media.conftest import expected_frames, step_at

pytestmark = pytest.mark.django_db

CLIP_CONDITIONS = ["official", "early", "outcome_visible", "next_visible", "history_5s",
                   "history_15s", "previous_step"]  # fmt: skip


def _steps(times):
    """A step at frames 40-77 (cutoff 77), a previous step 5-20 (gap to 40), a next 95-130."""
    return (
        step_at(times, 40, 77, 85, 90),
        step_at(times, 5, 12, 15, 20),
        step_at(times, 95, 120, 125, 130),
    )


def _render(video, condition, profile="clip", **kw):
    times = video.frame_times_us()
    step, prev, nxt = _steps(times)
    media = media_request(video=video, condition=condition, step=step, previous=prev,
                          following=nxt, profile=profile, **kw)  # fmt: skip
    media = media_render(media_id=media.pk)
    assert media.status == RenderedMedia.Status.READY, media.error
    window = condition_window(condition, step=step, previous=prev, following=nxt)
    return media, expected_frames(times, window.segments)


def _clip_numbers(media):
    return read_frame_numbers(default_storage.path(media.path))


def _bytes(name):
    return Path(default_storage.path(name)).read_bytes()


def _frame_numbers(media):
    return [
        read_frame_numbers(default_storage.path(f"{media.path}/{i:02d}.png"))[0]
        for i in range(media.frame_count)
    ]


@pytest.fixture(params=["cfr", "vfr", "rotated"])
def source(request, import_source, cfr_video, vfr_video, rotated_video):
    synth = {"cfr": cfr_video, "vfr": vfr_video, "rotated": rotated_video}[request.param]
    return import_source(synth)


@pytest.mark.parametrize("condition", CLIP_CONDITIONS)
def test_clip_holds_exactly_the_window_frames(source, condition):
    media, expected = _render(source, condition)
    numbers = _clip_numbers(media)
    assert numbers == expected
    assert media.frame_count == len(expected)
    times = source.frame_times_us()
    assert media.source_times_us == [int(times[i]) for i in expected]
    # Output timing follows the source (gaps between segments removed), starting at 0.
    assert media.output_times_us[0] == 0
    if condition != "previous_step":
        rel = [int(times[i] - times[expected[0]]) for i in expected]
        assert all(abs(a - b) <= 2 for a, b in zip(media.output_times_us, rel, strict=True))


def test_official_clip_ends_on_the_frame_seen_at_the_cutoff(source):
    media, _ = _render(source, "official")
    times = source.frame_times_us()
    step, _, _ = _steps(times)
    numbers = _clip_numbers(media)
    last_seen = max(i for i, t in enumerate(times) if t < step.cutoff_us)
    assert last_seen == 76
    assert numbers[0] == 40 and numbers[-1] == last_seen
    assert 77 not in numbers  # the cutoff frame itself is withheld


@pytest.mark.parametrize("condition", ["official", "history_15s", "previous_step"])
def test_frame_set_is_sixteen_uniform_frames_of_the_window(source, condition):
    media, expected = _render(source, condition, profile="frames16")
    numbers = _frame_numbers(media)
    assert len(numbers) == 16
    assert numbers[0] == expected[0] and numbers[-1] == expected[-1]
    assert numbers == sorted(numbers) and set(numbers) <= set(expected)
    times = source.frame_times_us()
    assert media.source_times_us == [int(times[i]) for i in numbers]


def test_evidence_conditions_on_frames(source):
    ordered, expected = _render(source, "ordered", profile="frames16")
    shuffled, _ = _render(source, "shuffled", profile="frames16", seed=11)
    last, _ = _render(source, "last_frame", profile="frames16")
    first, _ = _render(source, "first_frame", profile="frames16")
    ordered_numbers = _frame_numbers(ordered)
    shuffled_numbers = _frame_numbers(shuffled)
    assert sorted(shuffled_numbers) == ordered_numbers != shuffled_numbers
    assert shuffled_numbers == [ordered_numbers[p] for p in shuffled.spec["permutation"]]
    assert _frame_numbers(last) == [expected[-1]] == [76]
    assert _frame_numbers(first) == [expected[0]] == [40]
    # Identical pixels and encoding for Ordered and Shuffled: the same PNG bytes, reordered.
    ordered_bytes = [_bytes(f"{ordered.path}/{i:02d}.png") for i in range(16)]
    shuffled_bytes = [_bytes(f"{shuffled.path}/{i:02d}.png") for i in range(16)]
    assert shuffled_bytes == [ordered_bytes[p] for p in shuffled.spec["permutation"]]


def test_clip_for_a_frame_condition_is_refused(import_source, cfr_video):
    from media.renders import ProfileMismatch

    video = import_source(cfr_video)
    step, _, _ = _steps(video.frame_times_us())
    with pytest.raises(ProfileMismatch, match="frames profile"):
        media_request(video=video, condition="shuffled", step=step, profile="clip")


def test_short_window_repeats_the_boundary_frame(import_source, cfr_video):
    video = import_source(cfr_video)
    times = video.frame_times_us()
    step = step_at(times, 40, 45, 46, 50)  # 5 frames: Early (cutoff - 0.5 s) holds none
    clip = media_render(media_id=media_request(video=video, condition="early", step=step).pk)
    frames = media_render(media_id=media_request(video=video, condition="early", step=step,
                                                 profile="frames16").pk)  # fmt: skip
    assert _clip_numbers(clip) == [39]
    assert _frame_numbers(frames) == [39] * 16
    assert clip.spec["boundary_fallback"] is True


def test_stretched_variant_keeps_frames_and_order(import_source, vfr_video):
    video = import_source(vfr_video)
    plain, expected = _render(video, "official")
    stretched, _ = _render(video, "official", profile="clip_min2100")
    assert plain.duration_us < 2_100_000 <= stretched.duration_us
    assert _clip_numbers(stretched) == _clip_numbers(plain) == expected
    factor = stretched.duration_us / plain.duration_us
    for a, b in zip(plain.output_times_us, stretched.output_times_us, strict=True):
        assert abs(a * factor - b) <= 2


def test_all_intra_variant_is_frame_exact_and_every_frame_a_keyframe(import_source, cfr_video):
    from media.probe import probe_file

    video = import_source(cfr_video)
    media, expected = _render(video, "official", profile="clip_intra")
    assert _clip_numbers(media) == expected
    probe = probe_file(default_storage.path(media.path))
    assert probe.keyframe_times_us.tolist() == probe.frame_times_us.tolist()


def test_transmission_rule_is_shared_by_paired_conditions():
    assert transmission_profile(sizes_bytes=[1_000, 2_000]) == "clip"
    assert transmission_profile(sizes_bytes=[1_000, 16 * 1024 * 1024]) == "clip_intra"


def test_same_inputs_same_key_no_rework(
    import_source, cfr_video, django_capture_on_commit_callbacks
):
    video = import_source(cfr_video)
    step, _, _ = _steps(video.frame_times_us())
    media, _ = _render(video, "official")
    # Step-only is the same frames as Official: the same medium, nothing new to render.
    again = media_request(video=video, condition="step_only", step=step)
    assert again.pk == media.pk and again.status == RenderedMedia.Status.READY
    with django_capture_on_commit_callbacks() as callbacks:
        media_request(video=video, condition="official", step=step)
    assert callbacks == []  # nothing queued for a ready medium
    before = _bytes(media.path)
    assert media_render(media_id=media.pk).ready_at == media.ready_at  # a re-run is a no-op
    assert _bytes(media.path) == before
    assert RenderedMedia.objects.count() == 1


def test_new_media_are_queued_after_commit(
    import_source, cfr_video, django_capture_on_commit_callbacks
):
    video = import_source(cfr_video)
    step, _, _ = _steps(video.frame_times_us())
    with django_capture_on_commit_callbacks() as callbacks:
        media = media_request(video=video, condition="official", step=step)
    assert len(callbacks) == 1 and media.status == RenderedMedia.Status.PENDING


def test_a_failed_render_records_its_reason_and_nothing_ready(import_source, cfr_video):
    video = import_source(cfr_video)
    step, _, _ = _steps(video.frame_times_us())
    media = media_request(video=video, condition="official", step=step)
    # The stored source is damaged after import: ffmpeg fails, the reason is kept.
    with open(video.file.path, "r+b") as handle:
        handle.truncate(2000)
    media = media_render(media_id=media.pk)
    assert media.status == RenderedMedia.Status.FAILED
    assert "ffmpeg" in media.error or "clip" in media.error
    assert media.path == ""
    assert not list(Path(default_storage.path("renders")).rglob("*.mp4"))


def test_audio_profile_keeps_sound_and_frames(import_source, audio_video):
    from media.probe import probe_file

    video = import_source(audio_video)
    times = video.frame_times_us()
    step = step_at(times, 10, 30, 31, 32)
    silent = media_render(media_id=media_request(video=video, condition="official",
                                                 step=step).pk)  # fmt: skip
    sound = media_render(media_id=media_request(video=video, condition="official", step=step,
                                                profile="clip_audio").pk)  # fmt: skip
    assert probe_file(default_storage.path(silent.path)).has_audio is False  # blinded default
    assert probe_file(default_storage.path(sound.path)).has_audio is True
    assert _clip_numbers(sound) == _clip_numbers(silent) == list(range(10, 30))


def test_a_group_renders_a_clip_and_its_frame_set_from_one_decode(source):
    from media.renders import media_render_group

    times = source.frame_times_us()
    step, prev, _ = _steps(times)
    clip = media_request(video=source, condition="previous_step", step=step, previous=prev)
    frames = media_request(video=source, condition="previous_step", step=step, previous=prev,
                           profile="frames16")  # fmt: skip
    done = media_render_group(media_ids=[clip.pk, frames.pk])
    assert {m.status for m in done} == {RenderedMedia.Status.READY}
    assert all(m.attempts == 1 for m in done)
    clip.refresh_from_db()
    frames.refresh_from_db()
    window = condition_window("previous_step", step=step, previous=prev)
    expected = expected_frames(times, window.segments)
    assert _clip_numbers(clip) == expected
    numbers = _frame_numbers(frames)
    assert numbers[0] == expected[0] and numbers[-1] == expected[-1] and len(numbers) == 16
    assert media_render_group(media_ids=[clip.pk, frames.pk]) == []  # ready: nothing to do
