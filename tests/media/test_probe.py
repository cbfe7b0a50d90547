from __future__ import annotations

import os
import subprocess
import threading
from fractions import Fraction

import numpy as np
import pytest

from media.ffmpeg import ffmpeg_binary, run_ffmpeg
from media.probe import MediaRejected, probe_file
from media.synth import read_frame_numbers
from tests.media.conftest import declared_size_mov, one_pixel_video


def test_cfr_probe_values_and_exact_frame_index(cfr_video):
    probe = probe_file(cfr_video.path)
    assert probe.demuxer == "mov"
    assert probe.container.startswith("mov,mp4")
    assert probe.mime_type == "video/mp4"
    assert probe.codec == "h264"
    assert (probe.width, probe.height, probe.rotation) == (320, 180, 0)
    assert probe.fps == Fraction(30)
    assert probe.is_vfr is False
    assert probe.has_audio is False
    assert tuple(probe.frame_times_us.tolist()) == cfr_video.frame_times_us
    assert probe.duration_us == 6_000_000
    assert probe.origin_us == 0
    assert tuple(probe.keyframe_times_us.tolist()) == cfr_video.frame_times_us[::30]


def test_vfr_frame_index_matches_the_generated_timestamps(vfr_video):
    probe = probe_file(vfr_video.path)
    assert probe.is_vfr is True
    assert tuple(probe.frame_times_us.tolist()) == vfr_video.frame_times_us
    gaps = set(np.diff(probe.frame_times_us).tolist())
    assert gaps == {33333, 33334, 50000}


def test_rotated_source_reports_rotation_and_reads_upright(rotated_video):
    probe = probe_file(rotated_video.path)
    assert probe.rotation == 90
    assert (probe.width, probe.height) == (180, 320)  # stored turned; displayed 320x180
    assert probe.display_size == (320, 180)
    assert probe.fps == Fraction(25)
    assert tuple(probe.frame_times_us.tolist()) == rotated_video.frame_times_us
    # The barcode only reads when the picture is upright, so this proves the display matrix.
    assert read_frame_numbers(rotated_video.path) == list(range(150))


def test_audio_is_detected(audio_video):
    assert probe_file(audio_video.path).has_audio is True


def test_matroska_is_recognised_by_its_bytes_not_its_name(cfr_video, tmp_path):
    target = tmp_path / "looks-like.mp4"
    run_ffmpeg(["-i", f"file:{cfr_video.path}", "-c", "copy", "-f", "matroska", "-y",
                f"file:{target}"])  # fmt: skip
    probe = probe_file(target)
    assert probe.demuxer == "matroska"
    assert probe.mime_type == "video/x-matroska"
    assert probe.frame_count == len(cfr_video.frame_times_us)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"hello, this is only text pretending to be a video\n" * 4, "not a video"),
        (b"#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nseg.ts\n#EXT-X-ENDLIST\n", "HLS"),
        (b"ffconcat version 1.0\nfile 'a.mp4'\n" * 2, "concat"),
        (b"\x00\x00\x00\x18ftypisom" + os.urandom(4000), "cannot read"),
    ],
    ids=["text", "hls", "ffconcat", "corrupt"],
)
def test_non_videos_are_refused_with_a_reason(tmp_path, content, reason):
    path = tmp_path / "clip.mp4"
    path.write_bytes(content)
    with pytest.raises(MediaRejected, match=reason):
        probe_file(path)


def test_truncated_video_is_refused(cfr_video, tmp_path):
    path = tmp_path / "truncated.mp4"
    path.write_bytes(cfr_video.path.read_bytes()[:3000])
    with pytest.raises(MediaRejected):
        probe_file(path)


def test_file_without_video_stream_is_refused(tmp_path):
    path = tmp_path / "sound.mp4"
    run_ffmpeg(["-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac", "-y", f"file:{path}"])
    with pytest.raises(MediaRejected, match="no video stream"):
        probe_file(path)


def test_limits_on_duration_and_pixels(cfr_video, settings):
    settings.MEDIA_MAX_DURATION_SECONDS = 1
    with pytest.raises(MediaRejected, match="over the limit of 1 s"):
        probe_file(cfr_video.path)
    settings.MEDIA_MAX_DURATION_SECONDS = 3600
    settings.MEDIA_MAX_PIXELS = 320 * 180 - 1
    with pytest.raises(MediaRejected, match="pixels"):
        probe_file(cfr_video.path)


def test_a_one_pixel_video_is_refused_naming_the_minimum(tmp_path):
    path = one_pixel_video(tmp_path / "dot.mp4")
    with pytest.raises(MediaRejected, match=r"1x1; the smallest accepted is 64 px a side"):
        probe_file(path)


def test_the_minimum_side_is_a_setting(cfr_video, settings):
    settings.MEDIA_MIN_SIDE_PX = 181
    with pytest.raises(MediaRejected, match="MEDIA_MIN_SIDE_PX"):
        probe_file(cfr_video.path)
    settings.MEDIA_MIN_SIDE_PX = 180
    assert probe_file(cfr_video.path).height == 180


def test_a_frame_rate_over_the_limit_is_refused(cfr_video, settings):
    settings.MEDIA_MAX_FPS = 29
    with pytest.raises(
        MediaRejected,
        match=r"declares 30 frames per second; the most accepted "
        r"is 29 \(setting MEDIA_MAX_FPS\)",
    ):
        probe_file(cfr_video.path)
    settings.MEDIA_MAX_FPS = 30
    assert probe_file(cfr_video.path).fps == Fraction(30)


def test_too_many_frames_are_refused_while_indexing(cfr_video, settings):
    settings.MEDIA_MAX_FRAMES = 179  # the file has 180
    with pytest.raises(MediaRejected, match=r"more than 179 frames.*MEDIA_MAX_FRAMES"):
        probe_file(cfr_video.path)
    settings.MEDIA_MAX_FRAMES = 180
    assert probe_file(cfr_video.path).frame_count == 180


@pytest.mark.parametrize("size", [(20000, 20000), (9000, 200), (200, 9000)])
def test_a_declared_oversize_is_refused_naming_the_limit(tmp_path, size):
    path = declared_size_mov(tmp_path / "huge.mov", *size)
    expected = rf"declared as {size[0]}x{size[1]}; the largest accepted is 8192 px a side"
    with pytest.raises(MediaRejected, match=expected + r" \(setting MEDIA_MAX_SIDE_PX\)"):
        probe_file(path)


def test_progress_is_reported_while_indexing(cfr_video, monkeypatch):
    import media.probe

    monkeypatch.setattr(media.probe, "PROGRESS_EVERY_PACKETS", 30)
    seen = []
    probe_file(cfr_video.path, progress=seen.append)
    assert len(seen) == 6
    assert seen == sorted(seen) and seen[0] > 0 and seen[-1] <= 1


class FifoTripwire:
    """A named pipe: whoever opens it for reading releases our blocked writer and is recorded."""

    def __init__(self, path):
        self.path = path
        os.mkfifo(path)
        self.opened = threading.Event()
        self._thread = threading.Thread(target=self._wait, daemon=True)
        self._thread.start()

    def _wait(self):
        with open(self.path, "wb"):
            self.opened.set()

    def release(self):
        if not self.opened.is_set():
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
            self._thread.join(timeout=5)
            os.close(fd)


@pytest.mark.parametrize(
    "template",
    [
        "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXTINF:4.0,\n{target}\n"
        "#EXT-X-ENDLIST\n",
        "ffconcat version 1.0\nfile '{target}'\n",
    ],
    ids=["hls", "ffconcat"],
)
def test_disguised_playlist_is_refused_without_opening_what_it_lists(tmp_path, template):
    tripwire = FifoTripwire(tmp_path / "listed.ts")
    playlist = tmp_path / "holiday.mp4"
    playlist.write_text(template.format(target=tripwire.path))
    try:
        with pytest.raises(MediaRejected, match="refused"):
            probe_file(playlist)
        assert not tripwire.opened.wait(0.5), "the probe opened a file named in the playlist"
    finally:
        tripwire.release()


def test_tripwire_catches_a_naive_ffmpeg_call(tmp_path):
    """Control: ffmpeg left to guess the format does follow the disguised playlist."""
    tripwire = FifoTripwire(tmp_path / "listed.ts")
    playlist = tmp_path / "holiday.mp4"
    playlist.write_text(f"ffconcat version 1.0\nfile '{tripwire.path}'\n")
    try:
        subprocess.run(
            [ffmpeg_binary(), "-nostdin", "-safe", "0", "-i", str(playlist), "-f", "null", "-"],
            capture_output=True, timeout=20, check=False,
        )  # fmt: skip
        assert tripwire.opened.wait(5)
    finally:
        tripwire.release()
