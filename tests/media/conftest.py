"""Real generated videos (frame number burned into every picture), made once per test session."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def synth_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("synth")


def _make(synth_dir, name, **options):
    from tests.synth_cache import synth_video

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


def one_pixel_video(path):
    """A real 1x1-pixel H.264 MP4 (4:4:4, since 4:2:0 needs even sizes)."""
    from media.ffmpeg import run_ffmpeg

    run_ffmpeg(["-f", "lavfi", "-i", "color=c=red:s=1x1:r=10:d=1", "-c:v", "libx264",
                "-pix_fmt", "yuv444p", "-y", f"file:{path}"])  # fmt: skip
    return path


def declared_size_mov(path, width: int, height: int):
    """A small uncompressed MOV whose sample description declares ``width`` x ``height``: the
    bytes of 64x64 frames under a header that promises a huge picture."""
    from pathlib import Path

    from media.ffmpeg import run_ffmpeg

    path = Path(path)
    run_ffmpeg(["-f", "lavfi", "-i", "color=c=red:s=64x64:r=5:d=1", "-c:v", "rawvideo",
                "-pix_fmt", "rgb24", "-f", "mov", "-y", f"file:{path}"])  # fmt: skip
    data = bytearray(path.read_bytes())
    entry = data.find(b"raw ")  # the sample entry's format; width and height sit 28 bytes on
    assert entry > 0
    data[entry + 28 : entry + 32] = width.to_bytes(2, "big") + height.to_bytes(2, "big")
    path.write_bytes(bytes(data))
    return path
