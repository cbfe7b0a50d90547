"""The frame-time index of an MP4/MOV read from its sample tables, without running ffmpeg.

An MP4 (ISO base media file) describes every sample of a track in the ``moov`` box: ``stts``
gives decode durations, ``ctts`` the offset from decode to presentation time (B-frames), ``stss``
the sync samples (keyframes), ``elst`` the edit list that says which part of the media timeline
is shown and from when. Reading those tables costs a few kilobytes of I/O for a ten-minute video,
where listing packets through ffmpeg reads every byte of the file; so for MP4/MOV the import
builds its index here and ffmpeg's packet listing (``media.probe.packet_index``) stays the path
for every other container and for every MP4 this reader does not reproduce exactly.

**The same times as ffmpeg, or nothing.** The product promises frame-exact marks, and renders
seek on the timeline ffmpeg sees, so this reader reproduces what ffmpeg's mov demuxer does with
the same tables (``-copyts -start_at_zero``, packets an edit list discards left out):

- without an edit list every sample is shown at ``decode time + composition offset``;
- with one edit (``media_time`` M, length L, rate 1), optionally after one empty edit E, the
  shown samples are those whose composition time lies in ``[M, M + L)`` among the samples the
  demuxer walks: from the last keyframe at or before M to the keyframe after the edit's end (the
  second one when there are B-frames, whose trailing frames may still belong to the edit). Their
  times keep their spacing; the first sample of the edit in decode order starts at E, and if
  that would leave the earliest shown time above E, every time moves down so that it is E;
- ffmpeg then subtracts the file's start time (``start_us``, as its header prints it) rescaled
  to the track's ticks, rounding half away from zero.

Anything else — a fragmented file, several edits, a rate other than 1, negative composition
offsets, partial sync samples or sample groups that change which samples are keyframes, tables
that disagree with each other, more samples than the frame limit, a second video track — raises
``NotReproduced`` and the caller uses ffmpeg. Tests compare both paths on every generated video.

**Hostile files.** Boxes are walked by their headers with seeks; a box may not run past its
parent, a container holds at most ``MAX_CHILD_BOXES`` children, nesting is fixed by the path
walked, and a table is read only after its entry count is checked against the box's size and
against the sample count (itself at most the frame limit), so memory is bounded by the frame
limit, never by what a header claims. Every inconsistency raises ``BoxError`` with a message
for the person who uploaded the file; truncated sample data (a sample past the end of the file)
is refused the same way.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

MAX_CHILD_BOXES = 10_000
MAX_SMALL_BOX_BYTES = 1 << 20
MAX_CHECKED_KEYFRAMES = 50_000  # sync samples whose first NAL headers are read
MAX_NALS_LOOKED_AT = 64  # headers (mvhd, mdhd, hdlr, stsd's head, elst) are tiny
US_PER_SECOND = 1_000_000
_UNITY_RATE = 0x00010000  # media_rate_integer 1, media_rate_fraction 0


class BoxError(ValueError):
    """The file's MP4 structure is damaged; the message says where."""


class NotReproduced(Exception):
    """A valid file whose index this reader does not reproduce exactly: use ffmpeg's listing."""


@dataclass(frozen=True)
class PacketIndex:
    """Every shown video packet of a file, compactly: ticks of ``time_base``, in file order (the
    form of both this reader's answer and ffmpeg's listing in ``media.probe``)."""

    time_base: Fraction
    pts: np.ndarray  # int64, one per frame, decode order, on ffmpeg's -copyts -start_at_zero
    keyframe_pts: np.ndarray  # int64
    last_duration: int  # duration in ticks of the packet shown last (0 if unknown)


# --- walking boxes ----------------------------------------------------------------------------


class _File:
    def __init__(self, handle, size: int):
        self.handle = handle
        self.size = size

    def read(self, offset: int, length: int) -> bytes:
        if offset < 0 or length < 0 or offset + length > self.size:
            raise BoxError("the file ends inside a box")
        try:
            self.handle.seek(offset)
            data = self.handle.read(length)
        except OSError as exc:
            raise BoxError(f"the file cannot be read: {exc.strerror}") from None
        if len(data) != length:
            raise BoxError("the file ends inside a box")
        return data

    def children(self, start: int, end: int, where: str) -> list[tuple[bytes, int, int]]:
        """(type, payload start, payload end) of every box in [start, end)."""
        boxes = []
        offset = start
        while offset < end:
            if end - offset < 8:
                raise BoxError(f"a box header in {where} is cut short")
            head = self.read(offset, 8)
            size, kind = int.from_bytes(head[:4], "big"), head[4:8]
            header = 8
            if size == 1:
                if end - offset < 16:
                    raise BoxError(f"a box header in {where} is cut short")
                size, header = int.from_bytes(self.read(offset + 8, 8), "big"), 16
            elif size == 0:
                size = end - offset  # the box runs to the end of its parent
            if size < header or offset + size > end:
                raise BoxError(f"the {_name(kind)} box in {where} runs past its end")
            boxes.append((kind, offset + header, offset + size))
            if len(boxes) > MAX_CHILD_BOXES:
                raise BoxError(f"{where} holds more than {MAX_CHILD_BOXES} boxes")
            offset += size
        return boxes

    def small(self, box: tuple[bytes, int, int], minimum: int) -> bytes:
        kind, start, end = box
        if end - start < minimum:
            raise BoxError(f"the {_name(kind)} box is too short")
        if end - start > MAX_SMALL_BOX_BYTES:
            raise BoxError(f"the {_name(kind)} box is implausibly large")
        return self.read(start, end - start)

    def table(self, box, *, head: int, entry: int, count_at: int, limit: int) -> np.ndarray:
        """A full box's table of big-endian uint32 columns: (count, entry / 4) array."""
        kind, start, end = box
        if end - start < head:
            raise BoxError(f"the {_name(kind)} box is too short")
        count = int.from_bytes(self.read(start + count_at, 4), "big")
        if count * entry > end - start - head:
            raise BoxError(f"the {_name(kind)} box lists more entries than it holds")
        if count > limit:
            raise BoxError(f"the {_name(kind)} box lists more entries than there are samples")
        raw = self.read(start + head, count * entry)
        return np.frombuffer(raw, dtype=">u4").reshape(count, entry // 4).astype(np.int64)


def _name(kind: bytes) -> str:
    return repr(kind.decode("latin-1")) if kind.isascii() and kind.isalnum() else "unnamed"


def _only(boxes, kind: bytes, where: str, *, required: bool = True):
    found = [b for b in boxes if b[0] == kind]
    if len(found) > 1:
        raise NotReproduced(f"{where} holds several {kind!r} boxes")
    if not found:
        if required:
            raise BoxError(f"{where} has no {_name(kind)} box")
        return None
    return found[0]


def _timescale(data: bytes, kind: str) -> int:
    at = 20 if data[0] == 1 else 12  # version 1: 64-bit creation and modification times
    if len(data) < at + 4:
        raise BoxError(f"the {kind} box is too short")
    scale = int.from_bytes(data[at : at + 4], "big")
    if not 0 < scale < 1 << 31:  # ffmpeg reads a signed int and replaces a bad one with 1
        raise NotReproduced(f"the {kind} box gives a time scale of {scale}")
    return scale


def _find_moov(f: _File) -> tuple[bytes, int, int]:
    """The one ``moov`` box among the top-level boxes. Bytes after a whole ``moov`` that do not
    parse as boxes are ignored, as ffmpeg ignores them."""
    moov, offset, seen = None, 0, 0
    while offset + 8 <= f.size:
        try:
            (box,) = f.children(offset, offset + _top_level_size(f, offset), "the file")
        except BoxError:
            if moov is not None:
                break
            raise
        if box[0] in (b"moof", b"mfra"):
            raise NotReproduced("fragmented MP4")
        if box[0] == b"moov":
            if moov is not None:
                raise NotReproduced("several moov boxes")
            moov = box
        offset = box[2]
        seen += 1
        if seen > MAX_CHILD_BOXES:
            raise BoxError(f"the file holds more than {MAX_CHILD_BOXES} top-level boxes")
    if moov is None:
        raise BoxError("the file has no 'moov' box (the index of an MP4)")
    return moov


def _top_level_size(f: _File, offset: int) -> int:
    """The extent of the top-level box at ``offset`` (checked again by ``children``)."""
    size = int.from_bytes(f.read(offset, 4), "big")
    if size == 1 and offset + 16 <= f.size:
        size = int.from_bytes(f.read(offset + 8, 8), "big")
    if size == 0 or offset + size > f.size or size < 8:
        return f.size - offset
    return size


# --- the video track's tables --------------------------------------------------------------


@dataclass
class _Track:
    timescale: int
    deltas: np.ndarray  # decode duration of every sample
    offsets: np.ndarray | None  # composition offset of every sample (None: no ctts box)
    keyframes: np.ndarray  # bool per sample
    edits: list[tuple[int, int, int]]  # (duration in movie ticks, media time, rate)


def _video_trak(f: _File, moov: tuple, where: str = "moov"):
    boxes = f.children(moov[1], moov[2], where)
    if any(kind == b"mvex" for kind, _, _ in boxes):
        raise NotReproduced("fragmented MP4")
    movie_scale = _timescale(f.small(_only(boxes, b"mvhd", where), 24), "mvhd")
    videos = []
    for trak in (b for b in boxes if b[0] == b"trak"):
        trak_boxes = f.children(trak[1], trak[2], "trak")
        mdia = _only(trak_boxes, b"mdia", "trak")
        mdia_boxes = f.children(mdia[1], mdia[2], "mdia")
        handler = f.small(_only(mdia_boxes, b"hdlr", "mdia"), 12)[8:12]
        if handler in (b"pict", b"auxv"):
            raise NotReproduced(f"a track of kind {handler!r}")
        if handler == b"vide":
            videos.append((trak_boxes, mdia_boxes))
    if not videos:
        raise BoxError("the file has no video track")
    if len(videos) > 1:
        raise NotReproduced("several video tracks")
    return movie_scale, *videos[0]


def _read_track(f: _File, moov: tuple, max_frames: int) -> tuple[int, _Track]:
    movie_scale, trak_boxes, mdia_boxes = _video_trak(f, moov)
    timescale = _timescale(f.small(_only(mdia_boxes, b"mdhd", "mdia"), 24), "mdhd")
    minf = _only(mdia_boxes, b"minf", "mdia")
    minf_boxes = f.children(minf[1], minf[2], "minf")
    _check_self_contained(f, minf_boxes)
    stbl = _only(minf_boxes, b"stbl", "minf")
    stbl_boxes = f.children(stbl[1], stbl[2], "stbl")
    for kind in (b"stps", b"sbgp", b"stz2", b"cslg"):
        if any(b[0] == kind for b in stbl_boxes):
            raise NotReproduced(f"a {kind!r} box")
    stsd = f.small(_only(stbl_boxes, b"stsd", "stbl"), 8)
    if int.from_bytes(stsd[4:8], "big") != 1:
        raise NotReproduced("several sample descriptions")
    nal_length = _avc_nal_length(stsd)

    stsz = _only(stbl_boxes, b"stsz", "stbl")
    head = f.read(stsz[1], 12) if stsz[2] - stsz[1] >= 12 else b""
    if not head:
        raise BoxError("the 'stsz' box is too short")
    constant_size, count = int.from_bytes(head[4:8], "big"), int.from_bytes(head[8:12], "big")
    if count == 0:
        raise BoxError("the video track holds no samples")
    if count > max_frames:
        raise NotReproduced("more samples than the frame limit")  # ffmpeg's listing stops early
    if constant_size:
        sizes = np.full(count, constant_size, dtype=np.int64)
    else:
        sizes = f.table(stsz, head=12, entry=4, count_at=8, limit=count)[:, 0]

    stts = f.table(_only(stbl_boxes, b"stts", "stbl"), head=8, entry=8, count_at=4, limit=count)
    if (stts[:, 1] == 0).any() or (stts[:, 1] >= 1 << 31).any() or int(stts[:, 0].sum()) != count:
        raise NotReproduced("decode durations ffmpeg would correct")
    deltas = np.repeat(stts[:, 1], stts[:, 0])

    offsets = None
    ctts_box = _only(stbl_boxes, b"ctts", "stbl", required=False)
    if ctts_box is not None:
        ctts = f.table(ctts_box, head=8, entry=8, count_at=4, limit=count)
        if ctts.shape[0]:
            if (ctts[:, 1] >= 1 << 28).any() or (ctts[:, 0] == 0).any():
                raise NotReproduced("negative or implausible composition offsets")
            if int(ctts[:, 0].sum()) != count:
                raise NotReproduced("composition offsets for a different sample count")
            offsets = np.repeat(ctts[:, 1], ctts[:, 0])

    # ffmpeg's H.264 parser judges keyframes by the pictures themselves; without a sync table
    # (or with more sync samples than are worth opening) its verdict is not knowable from here.
    stss_box = _only(stbl_boxes, b"stss", "stbl", required=False)
    if stss_box is None:
        raise NotReproduced("no sync sample table")
    stss = f.table(stss_box, head=8, entry=4, count_at=4, limit=count)[:, 0]
    if stss.size == 0 or stss[0] < 1 or stss[-1] > count or (np.diff(stss) <= 0).any():
        raise NotReproduced("a sync sample table ffmpeg reads its own way")
    if stss.size > MAX_CHECKED_KEYFRAMES:
        raise NotReproduced("more keyframes than are checked")
    keyframes = np.zeros(count, dtype=bool)
    keyframes[stss - 1] = True

    offsets_in_file = _check_sample_data(f, stbl_boxes, sizes)
    for sample in stss - 1:
        if not _is_idr(f, int(offsets_in_file[sample]), int(sizes[sample]), nal_length):
            raise NotReproduced("a sync sample that is no IDR picture")
    edits = _edits(f, trak_boxes)
    return movie_scale, _Track(timescale, deltas, offsets, keyframes, edits)


def _check_self_contained(f: _File, minf_boxes) -> None:
    dinf = _only(minf_boxes, b"dinf", "minf", required=False)
    if dinf is None:
        return
    dref = _only(f.children(dinf[1], dinf[2], "dinf"), b"dref", "dinf", required=False)
    if dref is None:
        return
    for _, start, end in f.children(dref[1] + 8, dref[2], "dref"):
        if end - start < 4 or not f.read(start, 4)[3] & 1:
            raise NotReproduced("sample data in another file")


def _avc_nal_length(stsd: bytes) -> int:
    """The NAL length size of an H.264 sample description; other codecs go to ffmpeg."""
    if len(stsd) < 16 or stsd[12:16] not in (b"avc1", b"avc3"):
        raise NotReproduced("a codec other than H.264")
    at = stsd.find(b"avcC", 16)
    if at < 0 or len(stsd) < at + 9:
        raise BoxError("the H.264 sample description has no configuration")
    return (stsd[at + 8] & 3) + 1


def _is_idr(f: _File, offset: int, size: int, nal_length: int) -> bool:
    """Whether the sample holds an IDR slice before any other slice (NAL headers only)."""
    end = offset + size
    for _ in range(MAX_NALS_LOOKED_AT):
        if offset + nal_length + 1 > end:
            return False
        head = f.read(offset, nal_length + 1)
        kind = head[-1] & 0x1F
        if kind == 5:
            return True
        if kind in (1, 2, 3, 4):  # a slice of a picture that is not IDR
            return False
        offset += nal_length + int.from_bytes(head[:nal_length], "big")
    return False


def _check_sample_data(f: _File, stbl_boxes, sizes: np.ndarray) -> np.ndarray:
    """Every sample lies inside the file (a truncated upload is refused, not half-indexed);
    returns where every sample starts."""
    count = sizes.size
    co = _only(stbl_boxes, b"stco", "stbl", required=False)
    if co is not None:
        chunks = f.table(co, head=8, entry=4, count_at=4, limit=count)[:, 0]
    else:
        co64 = _only(stbl_boxes, b"co64", "stbl")
        pairs = f.table(co64, head=8, entry=8, count_at=4, limit=count)
        if (pairs[:, 0] >= 1 << 31).any():
            raise BoxError("a chunk offset lies far beyond the end of the file")
        chunks = (pairs[:, 0] << 32) | pairs[:, 1]
    stsc = f.table(_only(stbl_boxes, b"stsc", "stbl"), head=8, entry=12, count_at=4, limit=count)
    if stsc.shape[0] == 0 or chunks.size == 0:
        raise BoxError("the video track has no chunks")
    first, per_chunk, description = stsc[:, 0], stsc[:, 1], stsc[:, 2]
    if first[0] != 1 or (np.diff(first) <= 0).any() or first[-1] > chunks.size:
        raise NotReproduced("a chunk table ffmpeg reads its own way")
    if (per_chunk == 0).any() or (description != 1).any():
        raise NotReproduced("a chunk table ffmpeg reads its own way")
    runs = np.diff(np.append(first, chunks.size + 1))
    per = np.repeat(per_chunk, runs)  # samples in every chunk
    if int(per.sum()) != count:
        raise NotReproduced("chunks that hold a different number of samples")
    if int(sizes.max()) > 0x3FFFFFFF or (sizes == 0).any():
        raise NotReproduced("sample sizes ffmpeg reads its own way")
    ends = np.cumsum(sizes)
    last = np.cumsum(per) - 1  # the last sample of every chunk
    chunk_bytes = ends[last] - np.concatenate(([0], ends[last][:-1]))
    if int((chunks + chunk_bytes).max()) > f.size:
        raise BoxError("the file is cut short: its sample table points past the end")
    chunk_of = np.repeat(np.arange(chunks.size), per)
    return chunks[chunk_of] + (ends - sizes) - (ends[last] - chunk_bytes)[chunk_of]


def _edits(f: _File, trak_boxes) -> list[tuple[int, int, int]]:
    edts = _only(trak_boxes, b"edts", "trak", required=False)
    if edts is None:
        return []
    elst_box = _only(f.children(edts[1], edts[2], "edts"), b"elst", "edts", required=False)
    if elst_box is None:
        return []
    data = f.small(elst_box, 8)
    version, count = data[0], int.from_bytes(data[4:8], "big")
    size = 20 if version == 1 else 12
    if count == 0 or count > 2 or len(data) < 8 + count * size:
        raise NotReproduced("an edit list ffmpeg reads its own way")
    edits = []
    for i in range(count):
        row = data[8 + i * size : 8 + (i + 1) * size]
        width = 8 if version == 1 else 4
        duration = int.from_bytes(row[:width], "big")
        media_time = int.from_bytes(row[width : 2 * width], "big", signed=True)
        rate = int.from_bytes(row[2 * width : 2 * width + 4], "big")
        edits.append((duration, media_time, rate))
    return edits


# --- ffmpeg's timeline ---------------------------------------------------------------------


def _rescale(value: int, num: int, den: int) -> int:
    """value * num / den rounded half away from zero, as libavutil's av_rescale."""
    q = (abs(value) * num + den // 2) // den
    return q if value >= 0 else -q


def _shown(track: _Track, movie_scale: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices (decode order) of the shown samples and their presentation ticks."""
    cts = np.cumsum(track.deltas) - track.deltas  # decode times, the first at 0
    if track.offsets is not None:
        cts = cts + track.offsets
    everything = np.arange(cts.size)
    if not track.edits:
        return everything, cts
    empty, (duration, media_time, rate) = 0, track.edits[-1]
    if len(track.edits) == 2:
        first = track.edits[0]
        if first[1] != -1:
            raise NotReproduced("two edits")
        empty = _rescale(first[0], track.timescale, movie_scale)
    if media_time < 0 or rate != _UNITY_RATE or duration <= 0:
        raise NotReproduced("an edit ffmpeg reads its own way")
    length = _rescale(duration, track.timescale, movie_scale)
    end = media_time + length
    decode = np.cumsum(track.deltas) - track.deltas
    keys = track.keyframes
    # Where the demuxer starts: the last keyframe shown at or before the edit's start.
    candidates = np.flatnonzero(keys & (cts <= media_time))
    if candidates.size:
        start = int(candidates[-1])
    elif track.offsets is None:
        start = int(np.searchsorted(decode, media_time, side="right")) - 1
    else:
        start = 0
    # Where it stops: the keyframe (the second one with B-frames) that ends past the edit.
    durations = track.deltas.copy()
    durations[-1] = length
    past = np.flatnonzero(keys & (cts + durations >= end) & (everything >= start))
    wanted = 2 if track.offsets is not None else 1
    stop = int(past[wanted - 1]) if past.size >= wanted else cts.size - 1
    window = slice(start, stop + 1)
    inside = np.flatnonzero((cts[window] >= media_time) & (cts[window] < end)) + start
    if inside.size == 0:
        raise BoxError("the edit list shows no frame of the video")
    times = cts[inside]
    base = max(int(decode[inside[0]]), int(times.min()))
    return inside, times - base + empty


def read_video_index(path: str | os.PathLike, *, max_frames: int, start_us: int = 0) -> PacketIndex:
    """The shown video samples of an MP4/MOV, as ``ffmpeg -copyts -start_at_zero`` lists them.

    ``start_us`` is the file's start time as ffmpeg reports it (its header's ``start:``); it can
    also be applied afterwards with ``at_start``. Raises BoxError for a damaged file,
    NotReproduced when ffmpeg should list the packets.
    """
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        f = _File(handle, size)
        moov = _find_moov(f)
        movie_scale, track = _read_track(f, moov, max_frames)
    indices, pts = _shown(track, movie_scale)
    shown_last = int(np.argmax(pts))  # the first of equal maxima, as ffmpeg's "t > last"
    index = PacketIndex(
        time_base=Fraction(1, track.timescale),
        pts=np.ascontiguousarray(pts, dtype=np.int64),
        keyframe_pts=np.ascontiguousarray(pts[track.keyframes[indices]], dtype=np.int64),
        last_duration=int(track.deltas[indices[shown_last]]),
    )
    return at_start(index, start_us) if start_us else index


def at_start(index: PacketIndex, start_us: int) -> PacketIndex:
    """The index with ffmpeg's start time taken off, as ``-start_at_zero`` does: rescaled to the
    track's ticks, rounded half away from zero."""
    shift = _rescale(start_us, index.time_base.denominator, US_PER_SECOND)
    return PacketIndex(
        index.time_base, index.pts - shift, index.keyframe_pts - shift, index.last_duration
    )
