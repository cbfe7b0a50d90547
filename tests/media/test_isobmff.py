"""The MP4 sample-table reader gives exactly ffmpeg's packet listing, or steps aside.

Every generated video and every variant made from them (edit lists with discarded packets, a
start offset, no edit list, an empty edit, MOV, moov at the end, audio) is indexed both ways and
the answers compared bit for bit; then the reader is fed truncated and garbled files.
"""

from __future__ import annotations

import random
import struct
import tracemalloc
from dataclasses import fields

import numpy as np
import pytest

from media import probe
from media.ffmpeg import file_url, run_ffmpeg
from media.isobmff import BoxError, NotReproduced, read_video_index

# --- files ---------------------------------------------------------------------------------


def _copy(src, dst, *args, before=()):
    run_ffmpeg([*before, "-i", file_url(src), *args, "-c", "copy", "-y", file_url(dst)])
    return dst


def _boxes(data: bytes, start: int, end: int):
    while start < end:
        size = int.from_bytes(data[start : start + 4], "big")
        yield data[start + 4 : start + 8], start, start + size
        start += size


def _video_elst(data: bytes):
    """(offsets of moov, trak and edts, the elst box) of the video track of a moov-last file."""
    (moov,) = [b for b in _boxes(data, 0, len(data)) if b[0] == b"moov"]
    for trak in (b for b in _boxes(data, moov[1] + 8, moov[2]) if b[0] == b"trak"):
        if data.find(b"vide", trak[1], trak[2]) < 0:
            continue
        (edts,) = [b for b in _boxes(data, trak[1] + 8, trak[2]) if b[0] == b"edts"]
        (elst,) = [b for b in _boxes(data, edts[1] + 8, edts[2]) if b[0] == b"elst"]
        return (moov[1], trak[1], edts[1]), elst
    raise AssertionError("no video track")


def with_edits(src, dst, edits):
    """A copy of a moov-last MP4 whose video edit list is ``edits``: (duration in movie ticks,
    media time, rate as 16.16). None entries keep the original entry's value."""
    data = bytearray(src.read_bytes())
    parents, (_, start, end) = _video_elst(bytes(data))
    assert data[start + 8] == 0  # version 0: 32-bit entries
    original = struct.unpack(">IiI", data[start + 16 : start + 28])
    rows = [tuple(o if v is None else v for v, o in zip(e, original, strict=True)) for e in edits]
    body = struct.pack(">I", 0) + struct.pack(">I", len(rows))
    body += b"".join(struct.pack(">IiI", *row) for row in rows)
    box = struct.pack(">I", 8 + len(body)) + b"elst" + body
    delta = len(box) - (end - start)
    for offset in parents:
        size = int.from_bytes(data[offset : offset + 4], "big")
        data[offset : offset + 4] = (size + delta).to_bytes(4, "big")
    data[start:end] = box
    dst.write_bytes(bytes(data))
    return dst


def movie_scale(path) -> int:
    data = path.read_bytes()
    at = data.find(b"mvhd")
    return int.from_bytes(data[at + 16 : at + 20], "big")


@pytest.fixture(scope="session")
def variants(synth_dir, cfr_video, vfr_video, rotated_video, audio_video):
    from tests.synth_cache import synth_video

    d = synth_dir / "variants"
    d.mkdir()
    cfr, audio = cfr_video.path, audio_video.path
    tail = _copy(cfr, d / "moov_last.mp4")  # no faststart: moov after the samples
    found = {
        "cfr": cfr,
        "vfr": vfr_video.path,
        "rotated": rotated_video.path,
        "audio": audio,
        "no_bframes": synth_video(d / "nob.mp4", seconds=3, fps=30, bframes=0).path,
        "vfr_audio": synth_video(d / "vfra.mp4", seconds=3, fps=30, vfr=True, audio=True).path,
        "cut_mid_gop": _copy(cfr, d / "cut.mp4", before=("-ss", "1.3")),
        "cut_audio": _copy(audio, d / "cut_audio.mp4", before=("-ss", "1.3")),
        "cut_both_ends": _copy(cfr, d / "cut2.mp4", "-t", "2.5", before=("-ss", "0.7")),
        "start_offset": _copy(cfr, d / "offset.mp4", "-output_ts_offset", "2"),
        "no_edit_list": _copy(cfr, d / "noelst.mp4", "-use_editlist", "0"),
        "mov": _copy(cfr, d / "mov.mov", "-f", "mov"),
        "moov_last": tail,
    }
    scale = movie_scale(tail)
    empty = [(scale // 2, -1, 1 << 16), (None, None, None)]
    found["empty_edit"] = with_edits(tail, d / "empty.mp4", empty)
    found["short_edit"] = with_edits(tail, d / "short.mp4", [(scale * 2, None, None)])
    found["late_edit"] = with_edits(tail, d / "late.mp4", [(scale, 6000 + 60 * 3000 + 7, 1 << 16)])
    return found


REPRODUCED = ["cfr", "vfr", "rotated", "audio", "no_bframes", "vfr_audio", "cut_mid_gop",
              "cut_audio", "cut_both_ends", "start_offset", "no_edit_list", "mov", "moov_last",
              "empty_edit", "short_edit", "late_edit"]  # fmt: skip


def ffmpeg_listing(path):
    return probe.packet_index(path, demuxer="mov", max_frames=10**6, timeout=120)


def tables(path):
    head = probe._read_header(path, "mov")
    return read_video_index(path, max_frames=10**6, start_us=head.start_us)


def assert_same_index(a, b):
    assert a.time_base == b.time_base
    assert a.pts.tolist() == b.pts.tolist()
    assert a.keyframe_pts.tolist() == b.keyframe_pts.tolist()
    assert a.last_duration == b.last_duration


@pytest.mark.parametrize("name", REPRODUCED)
def test_the_tables_give_ffmpegs_packet_listing(variants, name):
    assert_same_index(tables(variants[name]), ffmpeg_listing(variants[name]))


def test_the_variants_cover_what_they_claim(variants):
    """A control: the variants really have discarded packets, offsets and empty edits."""
    cut, whole = ffmpeg_listing(variants["cut_mid_gop"]), ffmpeg_listing(variants["cfr"])
    assert 0 < cut.pts.size < whole.pts.size and cut.pts.size % 30 != 0
    assert probe._read_header(variants["start_offset"], "mov").start_us == 2_000_000
    assert probe._read_header(variants["empty_edit"], "mov").start_us == 500_000
    assert probe.probe_file(variants["empty_edit"]).frame_count == 180
    assert probe.probe_file(variants["late_edit"]).frame_count == 30


def _probe_with_ffmpeg_listing(path, monkeypatch):
    def refuse(*args, **kwargs):
        raise NotReproduced("forced")

    with monkeypatch.context() as m:
        m.setattr(probe, "read_video_index", refuse)
        return probe.probe_file(path)


def assert_same_probe(a, b):
    for field in fields(a):
        x, y = getattr(a, field.name), getattr(b, field.name)
        if isinstance(x, np.ndarray):
            assert x.tolist() == y.tolist(), field.name
        else:
            assert x == y, field.name


@pytest.mark.parametrize("name", REPRODUCED)
def test_an_import_learns_the_same_either_way_without_listing_packets(variants, name, monkeypatch):
    expected = _probe_with_ffmpeg_listing(variants[name], monkeypatch)
    listed = []
    real = probe.packet_index
    monkeypatch.setattr(probe, "packet_index", lambda *a, **k: listed.append(1) or real(*a, **k))
    assert_same_probe(probe.probe_file(variants[name]), expected)
    assert listed == []  # the tables answered: ffmpeg listed no packet


@pytest.mark.parametrize(
    ("edits", "reason"),
    [
        ([(1000, 0, 1 << 16), (1000, 180_000, 1 << 16)], "two edits"),
        ([(None, None, 2 << 16)], "reads its own way"),
    ],
    ids=["two-edits", "rate-2"],
)
def test_edit_lists_it_cannot_reproduce_go_to_ffmpeg(
    variants, tmp_path, monkeypatch, edits, reason
):
    path = with_edits(variants["moov_last"], tmp_path / "edited.mp4", edits)
    with pytest.raises(NotReproduced, match=reason):
        tables(path)
    assert_same_probe(probe.probe_file(path), _probe_with_ffmpeg_listing(path, monkeypatch))


def test_a_fragmented_mp4_goes_to_ffmpeg(cfr_video, tmp_path, monkeypatch):
    path = _copy(cfr_video.path, tmp_path / "frag.mp4", "-movflags", "frag_keyframe+empty_moov")
    with pytest.raises(NotReproduced, match="fragmented"):
        tables(path)
    assert probe.probe_file(path).frame_count == 180


def test_a_truncated_upload_is_judged_by_ffmpeg_as_before(cfr_video, tmp_path, monkeypatch):
    data = cfr_video.path.read_bytes()  # faststart: the tables come first, the samples after
    path = tmp_path / "cut.mp4"
    path.write_bytes(data[: len(data) * 2 // 3])
    with pytest.raises(BoxError, match="cut short"):
        read_video_index(path, max_frames=10**6, start_us=0)
    try:
        expected = _probe_with_ffmpeg_listing(path, monkeypatch)
    except probe.MediaRejected as exc:
        with pytest.raises(probe.MediaRejected, match=str(exc)[:20]):
            probe.probe_file(path)
    else:
        assert_same_probe(probe.probe_file(path), expected)


# --- hostile files ---------------------------------------------------------------------------


def _read_or_refuse(path, max_frames=10**6):
    try:
        return read_video_index(path, max_frames=max_frames, start_us=0)
    except (BoxError, NotReproduced) as exc:
        assert str(exc)
        return None


def test_truncated_and_garbled_files_give_a_clear_error_never_a_crash(variants, tmp_path):
    rng = random.Random(11)
    path = tmp_path / "fuzz.mp4"
    tried = answered = 0
    for name in ("cfr", "moov_last", "cut_audio", "vfr"):
        data = variants[name].read_bytes()
        moov = data.find(b"moov") - 4
        moov_end = moov + int.from_bytes(data[moov : moov + 4], "big")
        for cut in range(0, len(data), max(1, len(data) // 150)):
            path.write_bytes(data[:cut])
            tried += 1
            answered += _read_or_refuse(path) is not None
        for _ in range(600):
            garbled = bytearray(data)
            for _ in range(rng.randint(1, 6)):
                at = rng.randrange(moov, moov_end)
                garbled[at] = rng.choice([0, 1, 0xFF, 0x7F, 0x80, rng.randrange(256)])
            path.write_bytes(bytes(garbled))
            tried += 1
            answered += _read_or_refuse(path) is not None
        path.write_bytes(rng.randbytes(len(data)))
        assert _read_or_refuse(path) is None
    assert tried > 2500 and 0 < answered < tried  # both outcomes happen, nothing else does


@pytest.mark.parametrize("table", [b"stsz", b"stts", b"ctts", b"stss", b"stco", b"stsc"])
def test_a_huge_declared_table_is_refused_before_anything_is_allocated(variants, tmp_path, table):
    data = bytearray(variants["moov_last"].read_bytes())
    at = data.find(table)
    count_at = at + 4 + (12 if table == b"stsz" else 8) - 4  # the entry count field
    data[count_at : count_at + 4] = (0xFFFFFFF0).to_bytes(4, "big")
    path = tmp_path / "huge.mp4"
    path.write_bytes(bytes(data))
    tracemalloc.start()
    try:
        assert _read_or_refuse(path) is None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000


def test_more_samples_than_the_frame_limit_go_to_the_bounded_listing(cfr_video, settings):
    with pytest.raises(NotReproduced, match="frame limit"):
        read_video_index(cfr_video.path, max_frames=179, start_us=0)
    settings.MEDIA_MAX_FRAMES = 179
    with pytest.raises(probe.MediaRejected, match="more than 179 frames"):
        probe.probe_file(cfr_video.path)
