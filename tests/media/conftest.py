"""Real generated videos (frame number burned into every picture), made once per test session."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def synth_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("synth")


def _make(synth_dir, name, **options):
    from media.synth import synth_video

    return synth_video(synth_dir / name, **options)


@pytest.fixture(scope="session")
def cfr_video(synth_dir):
    return _make(synth_dir, "cfr.mp4", seconds=6, fps=30, gop=30, bframes=2)


@pytest.fixture(scope="session")
def vfr_video(synth_dir):
    return _make(synth_dir, "vfr.mp4", seconds=7, fps=30, vfr=True, gop=24, bframes=2)


@pytest.fixture(scope="session")
def rotated_video(synth_dir):
    return _make(synth_dir, "rotated.mp4", seconds=6, fps=25, rotation=90, size=(320, 180))


@pytest.fixture(scope="session")
def audio_video(synth_dir):
    return _make(synth_dir, "audio.mp4", seconds=2, fps=24, audio=True)


@pytest.fixture
def copy_of(tmp_path):
    """A private copy of a generated file, so a test may import it without colliding."""
    import shutil

    def copy(video, name=None):
        target = tmp_path / (name or video.path.name)
        shutil.copyfile(video.path, target)
        return target

    return copy


def stored_files(root) -> list[str]:
    from pathlib import Path

    return sorted(str(p.relative_to(root)) for p in Path(root).rglob("*") if p.is_file())


@pytest.fixture
def import_source(scene, tmp_path):
    """Import a generated video (a copy, into this test's media root); returns the row."""
    import shutil

    from media.services import video_import

    def do(video):
        target = tmp_path / f"import-{video.path.name}"
        shutil.copyfile(video.path, target)
        return video_import(path=target, scene=scene, title=video.path.name)

    return do


def step_at(times, start, cutoff, outcome, end):
    """StepTimes from frame indices of a frame-time index (marks snap to frames)."""
    from media.windows import StepTimes

    return StepTimes(int(times[start]), int(times[cutoff]), int(times[outcome]), int(times[end]))


def expected_frames(times, segments):
    """Frame indices in the half-open segments, computed the slow obvious way."""
    return [i for i, t in enumerate(times) for a, b in segments if a <= t < b]
