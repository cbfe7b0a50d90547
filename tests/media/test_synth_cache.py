"""The cache of generated test videos hands out what the generator makes, per options."""

from __future__ import annotations

import dataclasses

from media.synth import read_frame_numbers
from media.synth import synth_video as generate
from tests.synth_cache import synth_video


def test_a_cached_video_is_the_generators_video_and_is_made_once(tmp_path, monkeypatch):
    monkeypatch.setenv("TEST_VIDEO_CACHE", str(tmp_path / "cache"))
    first = synth_video(tmp_path / "a.mp4", seconds=1, fps=10, size=(64, 64))
    made = sorted((tmp_path / "cache").glob("*.mp4"))
    assert len(made) == 1
    stamp = made[0].stat().st_mtime_ns
    second = synth_video(tmp_path / "b.mp4", seconds=1, fps=10, size=(64, 64))
    assert made[0].stat().st_mtime_ns == stamp  # not made again
    assert second.path == tmp_path / "b.mp4"
    assert (tmp_path / "a.mp4").read_bytes() == (tmp_path / "b.mp4").read_bytes()
    fresh = generate(tmp_path / "fresh.mp4", seconds=1, fps=10, size=(64, 64))
    assert {**dataclasses.asdict(second), "path": None} == {
        **dataclasses.asdict(fresh),
        "path": None,
    }
    assert read_frame_numbers(second.path) == list(range(10))
    assert first.frame_times_us == fresh.frame_times_us

    other = synth_video(tmp_path / "c.mp4", seconds=1, fps=10, size=(64, 64), vfr=True)
    assert len(sorted((tmp_path / "cache").glob("*.mp4"))) == 2
    assert other.frame_times_us == generate(tmp_path / "v.mp4", seconds=1, fps=10,
                                            size=(64, 64), vfr=True).frame_times_us  # fmt: skip


def test_off_generates_every_video_anew(tmp_path, monkeypatch):
    monkeypatch.setenv("TEST_VIDEO_CACHE", "off")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    video = synth_video(tmp_path / "a.mp4", seconds=1, fps=10, size=(64, 64))
    assert read_frame_numbers(video.path) == list(range(10))
    assert not (tmp_path / "home").exists()
