"""Verification reads a rendered clip's packet table and refuses anything that is not its spec."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from media.ffrender import (
    ClipOutput,
    RenderVerificationError,
    SourceRef,
    output_size,
    render,
    verify_clip,
)
from media.outputs import container_index
from media.probe import MediaRejected, probe_file


def _source(video) -> SourceRef:
    probe = probe_file(video.path)
    width, height = probe.display_size
    return SourceRef(video.path, probe.demuxer, probe.origin_us,
                     np.array(probe.frame_times_us, dtype=np.int64),
                     np.array(probe.keyframe_times_us, dtype=np.int64), width, height,
                     probe.has_audio)  # fmt: skip


@pytest.mark.parametrize("name", ["cfr_video", "vfr_video", "rotated_video"])
def test_packet_table_equals_the_decoded_frame_times(request, name):
    video = request.getfixturevalue(name)
    found = container_index(video.path)
    probe = probe_file(video.path)
    assert found.times_us == tuple(probe.frame_times_us.tolist())  # B-frames reordered, VFR kept
    assert (found.width, found.height, found.rotation) == (probe.width, probe.height,
                                                           probe.rotation)  # fmt: skip
    assert found.mime_type == "video/mp4"


@pytest.fixture
def clip(vfr_video, tmp_path):
    src = _source(vfr_video)
    indices = tuple(range(20, 57))
    out = ClipOutput(tmp_path / "clip.mp4", indices, (0,), output_size(src.width, src.height, 120))
    render(src, [out])
    return src, out


def test_a_correct_clip_passes_with_every_frame_time(clip):
    src, out = clip
    found = verify_clip(out, src.frame_times_us)
    times = src.frame_times_us
    assert found["frame_count"] == 37
    assert found["output_times_us"] == [int(times[i] - times[20]) for i in range(20, 57)]


def test_a_clip_missing_its_last_frame_is_refused(clip):
    src, out = clip
    longer = replace(out, indices=(*out.indices, 57))
    with pytest.raises(RenderVerificationError, match="holds 37 frames, its window 38"):
        verify_clip(longer, src.frame_times_us)


def test_a_clip_with_shifted_frames_is_refused(clip):
    src, out = clip
    shifted = replace(out, indices=tuple(i + 1 for i in out.indices))  # VFR: times differ
    with pytest.raises(RenderVerificationError, match="frame times differ"):
        verify_clip(shifted, src.frame_times_us)


def test_a_clip_of_another_size_is_refused(clip):
    src, out = clip
    with pytest.raises(RenderVerificationError, match="expected 64x36"):
        verify_clip(replace(out, size=(64, 36)), src.frame_times_us)


def test_a_truncated_clip_is_refused(clip):
    src, out = clip
    data = out.path.read_bytes()
    # faststart puts the index first: a clip cut in half still lists the packets it holds ...
    out.path.write_bytes(data[: len(data) // 2])
    with pytest.raises(RenderVerificationError, match=r"holds \d+ frames, its window 37"):
        verify_clip(out, src.frame_times_us)
    # ... and one cut inside its index does not demux at all.
    out.path.write_bytes(data[:200])
    with pytest.raises(RenderVerificationError, match="cannot be read"):
        verify_clip(out, src.frame_times_us)
    with pytest.raises(MediaRejected):
        container_index(out.path)


def test_a_packet_table_without_presentation_times_is_refused(cfr_video, tmp_path):
    from media.ffmpeg import run_ffmpeg

    avi = tmp_path / "copy.avi"  # AVI stores no pts for H.264 with B-frames
    run_ffmpeg(["-i", f"file:{cfr_video.path}", "-c", "copy", "-y", f"file:{avi}"])
    with pytest.raises(MediaRejected, match="no presentation time"):
        container_index(avi)
