"""Sound through the render pipeline, proven on generated sources whose sound encodes time: a
click every 100 ms of the source's timeline (media.synth), so a rendered sound says which
stretch of the source it holds; pictures carry their frame numbers as everywhere else."""

from __future__ import annotations

from dataclasses import asdict, replace

import numpy as np
import pytest
from django.core.files.storage import default_storage

from media.audio import AUDIO_FORMATS, span_samples
from media.ffmpeg import run_ffmpeg
from media.models import RenderedMedia
from media.renders import (
    PROFILES,
    AudioUnavailable,
    ProfileMismatch,
    media_for_window,
    media_render,
    media_render_group,
    media_request,
)
from media.synth import CLICK_EVERY_US, read_clicks, read_frame_numbers, synth_video
from media.windows import Window, condition_window
from tests.media.conftest import expected_frames, step_at

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    d = tmp_path_factory.mktemp("sound")
    # the sound stream starts 0.5 s after the first picture (an edit list in the MP4)
    late = synth_video(d / "late.mp4", seconds=5, fps=25, gop=25, audio=True, audio_offset=0.5)
    # the same streams in Matroska, where the offset is the sound packets' own times
    run_ffmpeg(["-i", f"file:{late.path}", "-c", "copy", "-f", "matroska", f"file:{d}/late.mkv"])
    return {
        "cfr": synth_video(d / "cfr.mp4", seconds=5, fps=30, gop=30, audio=True),
        "vfr": synth_video(d / "vfr.mp4", seconds=5, fps=30, vfr=True, gop=24, audio=True),
        "late": late,
        "late_mkv": replace(late, path=d / "late.mkv"),
        "silent": synth_video(d / "silent.mp4", seconds=3, fps=30),
    }


def _steps(times):
    """A step at frames 40-77, a previous step 5-20 (a gap to 40), a next one 95-110."""
    return (step_at(times, 40, 77, 85, 90), step_at(times, 5, 12, 15, 20),
            step_at(times, 95, 105, 108, 110))  # fmt: skip


def _ready(media):
    media = media_render(media_id=media.pk)
    assert media.status == RenderedMedia.Status.READY, media.error
    return media


def _render(video, condition, profile):
    step, prev, nxt = _steps(video.frame_times_us())
    return _ready(media_request(video=video, condition=condition, step=step, previous=prev,
                                following=nxt, profile=profile))  # fmt: skip


def _expected_clicks(spans, offset_us: int) -> list[int]:
    """Output times of the source's clicks inside the sound spans, spans joined end to end."""
    out, at = [], 0
    for start, sound_stop, stop in spans:
        first = -(-max(start, offset_us) // CLICK_EVERY_US) * CLICK_EVERY_US
        out += [at + t - start for t in range(first, sound_stop, CLICK_EVERY_US)]
        at += stop - start
    return out


def _assert_clicks(found, expected, tolerance_us):
    assert len(found) == len(expected), (found, expected)
    worst = max((abs(a - b) for a, b in zip(found, expected, strict=True)), default=0)
    assert worst <= tolerance_us, (found, expected)


def test_import_records_the_sound(import_source, sources):
    video = import_source(sources["cfr"])
    assert (video.has_audio, video.audio_codec, video.audio_sample_rate,
            video.audio_channels) == (True, "aac", 48_000, 1)  # fmt: skip
    silent = import_source(sources["silent"])
    assert (silent.has_audio, silent.audio_codec, silent.audio_sample_rate,
            silent.audio_channels) == (False, "", None, None)  # fmt: skip


@pytest.mark.parametrize("name", ["cfr", "vfr", "late", "late_mkv"])
@pytest.mark.parametrize("condition", ["official", "previous_step", "history_5s"])
def test_a_clip_keeps_the_sound_of_its_frames(import_source, sources, name, condition):
    video = import_source(sources[name])
    times = video.frame_times_us()
    silent = _render(video, condition, "clip")
    sound = _render(video, condition, "clip_audio")
    step, prev, nxt = _steps(times)
    window = condition_window(condition, step=step, previous=prev, following=nxt)
    wanted = expected_frames(times, window.segments)
    # Frame identity: the same frames as the silent clip, which carries no sound at all.
    numbers = read_frame_numbers(default_storage.path(sound.path))
    assert numbers == read_frame_numbers(default_storage.path(silent.path)) == wanted
    assert silent.audio_samples is None and silent.spec.get("audio") is None
    # The sound is cut where the picture is: it ends within one AAC frame of the last frame's
    # end, and its clicks sit where the source's clicks are, spans joined as the picture's runs.
    clicks, samples, rate = read_clicks(default_storage.path(sound.path))
    assert rate == sound.audio_rate == 48_000 and sound.audio_channels == 1
    assert samples == sound.audio_samples
    # The check allows one AAC frame; ffmpeg's own encoder and demuxer give the exact count (a
    # clip closed by ``-frames:v`` lost up to one frame of its sound's end: this catches it).
    assert samples == span_samples(sound.duration_us, rate)
    assert sound.duration_us == silent.duration_us
    spans = sound.spec["audio"]["spans_us"]
    assert len(spans) == len(window.segments)
    assert spans[-1][1] == spans[-1][2] == window.segments[-1][1]  # the cutoff, a frame's time
    _assert_clicks(clicks, _expected_clicks(spans, sources[name].audio_offset_us), 1_500)


@pytest.mark.parametrize("profile", ["audio_wav16k", "audio_flac16k"])
def test_sound_alone_holds_exactly_its_window(import_source, sources, profile):
    video = import_source(sources["vfr"])
    medium = _render(video, "previous_step", profile)
    fmt = AUDIO_FORMATS[PROFILES[profile].audio]
    assert medium.kind == RenderedMedia.Kind.AUDIO and medium.frame_count is None
    assert medium.path.endswith("." + fmt.container) and medium.mime_type == fmt.mime_type
    clicks, samples, rate = read_clicks(default_storage.path(medium.path), demuxer=fmt.demuxer)
    spans = medium.spec["audio"]["spans_us"]
    assert (rate, medium.audio_rate, medium.audio_channels) == (16_000, 16_000, 1)
    assert samples == medium.audio_samples == sum(span_samples(c - a, rate) for a, _, c in spans)
    _assert_clicks(clicks, _expected_clicks(spans, 0), 200)
    # One rule for both: the sound alone lasts exactly as long as the clip of the same window.
    clip = _render(video, "previous_step", "clip")
    assert medium.duration_us == clip.duration_us


def test_a_late_sound_stream_is_silence_until_it_starts(import_source, sources):
    video = import_source(sources["late"])
    times = video.frame_times_us()
    step = step_at(times, 5, 25, 26, 27)  # 0.2 s to 1.0 s; the sound starts at 0.5 s
    medium = _ready(media_request(video=video, condition="official", step=step,
                                  profile="audio_wav16k"))  # fmt: skip
    data = _pcm(medium)
    assert data.size == span_samples(800_000, 16_000)
    # Nothing before the stream starts (the source's own AAC smears its first click back by
    # about 20 ms, so the silence is checked up to 0.45 s of the source).
    assert not np.abs(data[: int(0.25 * 16_000)]).max()
    assert np.abs(data[int(0.25 * 16_000) : int(0.3 * 16_000)]).max() < 0.05
    assert np.abs(data[int(0.3 * 16_000) :]).max() > 0.5
    clicks, _, _ = read_clicks(default_storage.path(medium.path), demuxer="wav")
    _assert_clicks(clicks, [300_000, 400_000, 500_000, 600_000, 700_000], 200)


def _pcm(medium) -> np.ndarray:
    result = run_ffmpeg(["-f", "wav", "-i", f"file:{default_storage.path(medium.path)}",
                         "-f", "s16le", "-c:a", "pcm_s16le", "pipe:1"])  # fmt: skip
    return np.frombuffer(result.stdout, dtype="<i2").astype(np.float32) / 32768


def test_no_sound_after_a_window_that_ends_between_frames(import_source, sources):
    video = import_source(sources["cfr"])
    times = video.frame_times_us()
    stop = int(times[60]) + 12_345  # between frames 60 and 61
    window = Window("official", ((int(times[30]), stop),))
    sound = _ready(media_for_window(video=video, window=window, profile="audio_wav16k"))
    clip = _ready(media_for_window(video=video, window=window, profile="clip_audio"))
    assert read_frame_numbers(default_storage.path(clip.path)) == list(range(30, 61))
    start, sound_stop, end = sound.spec["audio"]["spans_us"][0]
    assert (start, sound_stop, end) == (int(times[30]), stop, int(times[61]))
    data = _pcm(sound)
    heard = np.flatnonzero(np.abs(data) > 0.01)
    # The tone (always on in the source) stops at the window's end; silence fills the frame.
    assert heard[-1] + 1 == span_samples(stop - start, 16_000)
    assert data.size == span_samples(end - start, 16_000)
    assert clip.duration_us == end - start


def test_a_source_without_sound_is_refused_and_nothing_is_written(import_source, sources):
    from media.batches import RenderJob, batch_create, batch_progress

    video = import_source(sources["silent"])
    step = step_at(video.frame_times_us(), 10, 30, 31, 32)
    for profile in ("clip_audio", "audio_wav16k", "audio_flac16k"):
        with pytest.raises(AudioUnavailable, match=r"has no sound track.*renders sound"):
            media_request(video=video, condition="official", step=step, profile=profile)
    assert not RenderedMedia.objects.exists()
    batch = batch_create(jobs=[RenderJob("s1", video.pk, step)], conditions=["official"],
                         profiles=["clip", "audio_wav16k"])  # fmt: skip
    failures = batch_progress(batch)["failures"]
    assert [(f["profile"], "no sound track" in f["reason"]) for f in failures] == [
        ("audio_wav16k", True)
    ]
    assert RenderedMedia.objects.count() == 1  # the silent clip only


def test_sound_of_a_frame_set_condition_is_refused(import_source, sources):
    video = import_source(sources["cfr"])
    step = step_at(video.frame_times_us(), 10, 30, 31, 32)
    with pytest.raises(ProfileMismatch, match="frame set"):
        media_request(video=video, condition="shuffled", step=step, profile="audio_wav16k")


def test_silent_profiles_and_their_keys_are_unchanged():
    """Keys hash the profile's fields: a silent profile must read exactly as before sound came,
    so every medium rendered before keeps its key (and its frames)."""
    assert asdict(PROFILES["clip"]) == {
        "name": "clip", "kind": "clip", "max_short_side": 720, "crf": 20, "preset": "veryfast",
        "audio": False, "min_duration_us": 0, "intra_qp": None, "frame_count": 16,
    }  # fmt: skip
    for name in ("clip_min2100", "clip_intra", "frames16"):
        assert asdict(PROFILES[name])["audio"] is False


def test_one_decode_renders_a_clip_its_sound_and_its_frames(import_source, sources):
    video = import_source(sources["vfr"])
    step, prev, _ = _steps(video.frame_times_us())
    media = [
        media_request(video=video, condition="previous_step", step=step, previous=prev, profile=p)
        for p in ("clip_audio", "audio_wav16k", "frames16")
    ]
    done = media_render_group(media_ids=[m.pk for m in media])
    assert {m.status for m in done} == {RenderedMedia.Status.READY}
    assert all(m.attempts == 1 for m in done)  # none rendered again alone
    by_profile = {m.profile: m for m in done}
    wav = by_profile["audio_wav16k"]
    assert wav.duration_us == by_profile["clip_audio"].duration_us
    clip_clicks, _, _ = read_clicks(default_storage.path(by_profile["clip_audio"].path))
    wav_clicks, _, _ = read_clicks(default_storage.path(wav.path), demuxer="wav")
    _assert_clicks(wav_clicks, clip_clicks, 1_500)


def test_verification_counts_the_samples(import_source, sources, tmp_path):
    """The check can fail: a sound a little shorter than its window, or a silent file where sound
    is due, is refused."""
    from media.audio import AudioSpan, AudioTrack
    from media.ffrender import AudioOutput, RenderVerificationError, verify_audio

    video = import_source(sources["cfr"])
    medium = _render(video, "official", "audio_wav16k")
    track = AudioTrack.from_spec(medium.spec["audio"])
    path = default_storage.path(medium.path)
    assert verify_audio(AudioOutput(path, track))["audio_samples"] == medium.audio_samples
    a, s, b = medium.spec["audio"]["spans_us"][0]
    longer = replace(track, spans=(AudioSpan(a, s, b + 1_000),))  # 16 samples more expected
    with pytest.raises(RenderVerificationError, match="samples, its window"):
        verify_audio(AudioOutput(path, longer))
    clip = _render(video, "official", "clip")
    with pytest.raises(RenderVerificationError, match="cannot be read: the file has no audio"):
        verify_audio(AudioOutput(default_storage.path(clip.path),
                                 replace(track, format=AUDIO_FORMATS["aac48k"])))  # fmt: skip


def test_sound_alone_is_served_by_its_grant(client, import_source, sources, rater):
    from pathlib import Path

    from media.grants import grant_create
    from tests.conftest import PASSWORD

    video = import_source(sources["cfr"])
    medium = _render(video, "official", "audio_wav16k")
    url = grant_create(user=rater, media=medium)
    assert client.login(username=rater.username, password=PASSWORD)
    response = client.get(url, HTTP_RANGE="bytes=0-11")
    assert response.status_code == 206 and response["Content-Type"] == "audio/wav"
    data = Path(default_storage.path(medium.path)).read_bytes()
    assert b"".join(response.streaming_content) == data[:12]
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE"


def test_a_medium_with_sound_from_before_the_rule_fails_with_its_reason(import_source, sources):
    """A clip_audio medium requested before sound was cut by its own rule has no spans: a re-run
    fails it with the reason instead of rendering it silent."""
    video = import_source(sources["cfr"])
    step = step_at(video.frame_times_us(), 10, 30, 31, 32)
    medium = media_request(video=video, condition="official", step=step, profile="clip_audio")
    silent = media_request(video=video, condition="official", step=step)
    spec = {**medium.spec, "profile": {**medium.spec["profile"], "audio": True}}
    del spec["audio"]
    RenderedMedia.objects.filter(pk=medium.pk).update(spec=spec)
    done = {m.pk: m for m in media_render_group(media_ids=[medium.pk, silent.pk])}
    assert done[silent.pk].status == RenderedMedia.Status.READY
    for failed in (done[medium.pk], media_render(media_id=medium.pk)):
        assert failed.status == RenderedMedia.Status.FAILED
        assert "request it again" in failed.error


def test_the_admin_shows_sound(admin_client, import_source, sources):
    video = import_source(sources["cfr"])
    medium = _render(video, "official", "audio_flac16k")
    page = admin_client.get(f"/admin/media/renderedmedia/{medium.pk}/change/")
    assert page.status_code == 200 and b"audio/flac" in page.content
    page = admin_client.get(f"/admin/media/sourcevideo/{video.pk}/change/")
    assert page.status_code == 200 and b"48000" in page.content
