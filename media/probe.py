"""What a media file is, decided by its bytes and by reading it — never by its name.

Two stages:

1. ``sniff_container`` reads the first bytes in Python and names the demuxer (mov/mp4, Matroska/
   WebM, AVI). Anything else — an HLS playlist, an ffconcat list, a text file, an image — is
   refused here, before ffmpeg runs at all, so a playlist disguised as ``.mp4`` can never make
   ffmpeg open the files it lists.
2. ffmpeg opens the file with that demuxer pinned (``media.ffmpeg.input_args``), in one run that
   prints the header (codec, declared size, frame rate, rotation, audio, declared duration,
   start time) and decodes the first frame, which proves the stream is decodable; the decoder
   may not allocate a picture over ``MEDIA_MAX_PIXELS`` (``-max_pixels``), and every other limit
   the header can decide is checked before the frame-time index is built.

The index of an MP4/MOV comes from its sample tables, read in Python (``media.isobmff``: no
ffmpeg, the samples themselves never read), exactly as ffmpeg would list the packets; a file
those tables cannot describe exactly (fragmented, several edits, damaged, ...) and every other
container is listed by ffmpeg instead: a stream copy (``-c copy -f framecrc``, one short line a
packet, nothing decoded) read line by line into an ``array('q')`` (8 bytes a frame), stopping as
soon as the count passes ``MEDIA_MAX_FRAMES``. Memory is a few bytes a frame either way. Packet
times sorted are the frames a decoder shows (B-frames only change the order), once the packets an
edit list discards (``F=0x..`` with the discard bit) are left out. ``-copyts -start_at_zero``
put packets on the file's own timeline (the one ``-ss`` seeks on); the first frame's time there
is stored as the origin, so rebased times map back exactly when rendering.

Files this project has just rendered are checked by ``media.outputs.container_index``.
"""

from __future__ import annotations

import logging
import os
import re
from array import array
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from subprocess import CompletedProcess

import numpy as np
from django.conf import settings

from media.audio import AudioStream, parse_audio_stream
from media.ffmpeg import (
    FFmpegError,
    finish,
    input_args,
    popen_ffmpeg,
    run_ffmpeg,
    stream_ffmpeg_lines,
)
from media.isobmff import BoxError, NotReproduced, PacketIndex, at_start, read_video_index
from media.timebase import US_PER_SECOND

log = logging.getLogger(__name__)


class MediaRejected(ValueError):
    """The file is not a video we accept; the message says why, for the person who uploaded it."""


@dataclass(frozen=True)
class Probe:
    container: str  # the demuxer ffmpeg reported, e.g. "mov,mp4,m4a,3gp,3g2,mj2"
    demuxer: str  # the pinned demuxer name passed with -f: mov, matroska or avi
    mime_type: str
    codec: str
    width: int  # as stored (before rotation)
    height: int
    rotation: int  # clockwise degrees a player turns the picture: 0, 90, 180 or 270
    fps: Fraction  # nominal frame rate
    is_vfr: bool
    has_audio: bool
    duration_us: int  # last frame's time + its duration
    origin_us: int  # time of the first decoded frame on the file's timeline
    # int64 arrays (8 bytes a frame, not a Python object per frame)
    frame_times_us: np.ndarray  # every frame in presentation order, first at 0, increasing
    keyframe_times_us: np.ndarray
    audio: AudioStream | None = None  # the first audio stream: codec, rate, channels

    @property
    def frame_count(self) -> int:
        return len(self.frame_times_us)

    @property
    def display_size(self) -> tuple[int, int]:
        if self.rotation in (90, 270):
            return self.height, self.width
        return self.width, self.height


# --- stage 1: the bytes say what the container is ----------------------------------------------

_MP4_BOXES = {b"ftyp", b"moov", b"mdat", b"free", b"skip", b"wide", b"pnot"}


SNIFF_BYTES = 4096


def sniff_container(path: str | os.PathLike) -> tuple[str, str]:
    """(demuxer, mime type) from the file's first bytes; MediaRejected for anything else."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError as exc:
        raise MediaRejected(f"cannot read the file: {exc.strerror}") from None
    return sniff_head(head)


def sniff_head(head: bytes) -> tuple[str, str]:
    """(demuxer, mime type) from the first ``SNIFF_BYTES`` of a file."""
    if len(head) < 16:
        raise MediaRejected("the file is too short to be a video")
    box_size = int.from_bytes(head[:4], "big")
    if head[4:8] in _MP4_BOXES and (box_size in (0, 1) or box_size >= 8):
        brand = head[8:12] if head[4:8] == b"ftyp" else b""
        return "mov", "video/quicktime" if brand == b"qt  " else "video/mp4"
    if head[:4] == b"\x1a\x45\xdf\xa3":
        return "matroska", "video/webm" if b"webm" in head[:64] else "video/x-matroska"
    if head[:4] == b"RIFF" and head[8:12] == b"AVI ":
        return "avi", "video/x-msvideo"
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped.startswith(b"#EXTM3U"):
        raise MediaRejected("the file is an HLS playlist, not a video; playlists are refused")
    if stripped.startswith(b"ffconcat") or stripped.startswith(b"file "):
        raise MediaRejected("the file is a concat list, not a video; concat lists are refused")
    raise MediaRejected(
        "the file is not a video in an accepted container (MP4/MOV, Matroska/WebM or AVI)"
    )


# --- stage 2: ffmpeg reads the header, decodes one frame, then lists every packet ---------------

_INPUT_RE = re.compile(r"^Input #0, (?P<fmt>[^ ]+), from", re.M)
_DURATION_RE = re.compile(r"Duration: (?P<h>\d+):(?P<m>\d\d):(?P<s>\d\d(?:\.\d+)?)")
_START_RE = re.compile(r"Duration: [^,\n]*, start: (?P<sign>-?)(?P<s>\d{1,12})\.(?P<us>\d{6})")
_VIDEO_RE = re.compile(r"Stream #0:\d+[^:]*: Video: (?P<codec>[A-Za-z0-9_]+)(?P<rest>[^\n]*)")
_SIZE_RE = re.compile(r", (?P<w>\d{1,6})x(?P<h>\d{1,6})[ ,\n]")
_FPS_RE = re.compile(r", (?P<fps>\d{1,9}(?:\.\d{1,6})?)(?P<k>k?) (?P<unit>fps|tbr)")
# ffmpeg refuses a size its image code cannot hold (over 16384 a side, roughly) and then prints
# no size in the header at all; this line is the only place the declared size still appears.
_INVALID_SIZE_RE = re.compile(r"Picture size (?P<w>[1-9]\d{0,8})x(?P<h>[1-9]\d{0,8}) is invalid")
_OVER_PIXELS_RE = re.compile(r"Picture size (?P<w>\d{1,9})x(?P<h>\d{1,9}) exceeds specified max")
_AUDIO_RE = re.compile(r"Stream #0:\d+[^:]*: Audio: ")
_ROTATION_RE = re.compile(r"rotation of (?P<deg>-?\d+(?:\.\d+)?) degrees")
_TB_RE = re.compile(rb"^#tb 0: (?P<num>\d+)/(?P<den>\d+)$")

# Packet flags as framecrc prints them (libavcodec's AV_PKT_FLAG_*): a packet whose flags are
# exactly "key" prints none.
_FLAG_KEY = 0x1
_FLAG_DISCARD = 0x4
_NOPTS = -(2**63)  # libavutil's AV_NOPTS_VALUE, as framecrc prints a missing time
# How often (in packets) the index pass reports progress.
PROGRESS_EVERY_PACKETS = 50_000


def _run_on_video(args: list[str], *, refusal: str, timeout: float) -> CompletedProcess:
    """Run ffmpeg at info level on a file's video stream; a failure becomes MediaRejected with
    ``refusal`` and ffmpeg's last line."""
    try:
        return run_ffmpeg(args, loglevel="info", timeout=timeout)
    except FFmpegError as exc:
        _refuse_declared_size(exc.stderr_tail)
        if "matches no streams" in exc.stderr_tail:
            raise MediaRejected("the file has no video stream") from None
        raise MediaRejected(f"{refusal}: {_last_line(exc)}") from None


def _last_line(exc: FFmpegError) -> str:
    lines = [line for line in exc.stderr_tail.splitlines() if line.strip()]
    return lines[-1].strip() if lines else str(exc)


def _side_limit_message(width: int, height: int) -> str:
    return (
        f"the picture is declared as {width}x{height}; the largest accepted is "
        f"{settings.MEDIA_MAX_SIDE_PX} px a side (setting MEDIA_MAX_SIDE_PX)"
    )


def _pixel_limit_message(width: int, height: int) -> str:
    return (f"the picture is {width}x{height}, over the limit of {settings.MEDIA_MAX_PIXELS} "
            "pixels (setting MEDIA_MAX_PIXELS)")  # fmt: skip


def _refuse_declared_size(log: str) -> None:
    """A size ffmpeg would not (or, with ``-max_pixels``, may not) allocate, named as a limit."""
    found = _INVALID_SIZE_RE.search(log) or _OVER_PIXELS_RE.search(log)
    if found:
        width, height = int(found["w"]), int(found["h"])
        if max(width, height) <= settings.MEDIA_MAX_SIDE_PX and (
            width * height > settings.MEDIA_MAX_PIXELS
        ):
            raise MediaRejected(_pixel_limit_message(width, height))
        raise MediaRejected(_side_limit_message(width, height))


@contextmanager
def _header_and_first_frame(path: Path, demuxer: str) -> Iterator[list[str]]:
    """One ffmpeg run while the block runs: it prints the header and decodes the first frame, which
    proves the stream is decodable. ``-max_pixels`` keeps the decoder from allocating a picture over
    the limit; the header's own limits are checked on what it printed (``_parse_header``). The list
    receives the header when done."""
    args = ["-max_pixels", str(settings.MEDIA_MAX_PIXELS), *input_args(path, demuxer=demuxer),
            "-map", "0:v:0", "-frames:v", "1", "-f", "null", "-"]  # fmt: skip
    proc = popen_ffmpeg(args, loglevel="info")
    header: list[str] = []
    try:
        yield header
    except BaseException:
        proc.kill()
        proc.communicate()
        raise
    try:
        text = finish(proc, timeout=60).decode("utf-8", "replace")
    except FFmpegError as exc:
        text = exc.log.decode("utf-8", "replace")  # all of it: the size complaint comes first
        _refuse_declared_size(text)
        if "matches no streams" in text:
            raise MediaRejected("the file has no video stream") from None
        if _INPUT_RE.search(text) and _VIDEO_RE.search(text):
            _parse_header(text)  # a limit the header breaks is the better reason
            raise MediaRejected(f"ffmpeg cannot decode the video: {_last_line(exc)}") from None
        raise MediaRejected(f"ffmpeg cannot read the file as a video: {_last_line(exc)}") from None
    header.append(text)


def _rotation(header: str) -> int:
    match = _ROTATION_RE.search(header)
    if not match:
        return 0
    # ffmpeg prints the display matrix angle counter-clockwise; players turn clockwise by -angle.
    degrees = round(-float(match.group("deg"))) % 360
    if degrees not in (0, 90, 180, 270):
        raise MediaRejected(f"unsupported display rotation of {degrees} degrees")
    return degrees


@dataclass(frozen=True)
class _Header:
    container: str
    codec: str
    width: int
    height: int
    fps: Fraction  # as declared (0 when the header names none)
    seconds: float  # declared duration (0 when the header names none)
    rotation: int
    has_audio: bool
    start_us: int  # the file's start time as ffmpeg prints it (what -start_at_zero subtracts)
    audio: AudioStream | None = None


def _read_header(path: Path, demuxer: str) -> _Header:
    with _header_and_first_frame(path, demuxer) as header:
        pass
    return _parse_header(header[0])


def _parse_header(header: str) -> _Header:
    """The header, with every limit that the header alone can decide checked."""
    _refuse_declared_size(header)
    fmt = _INPUT_RE.search(header)
    video = _VIDEO_RE.search(header)
    if not fmt or not video:
        raise MediaRejected("the file has no video stream")
    rest = video.group("rest") + "\n"
    size = _SIZE_RE.search(rest)
    if not size:
        raise MediaRejected("the video stream has no picture size")
    width, height = int(size.group("w")), int(size.group("h"))
    if max(width, height) > settings.MEDIA_MAX_SIDE_PX:
        raise MediaRejected(_side_limit_message(width, height))
    if width * height > settings.MEDIA_MAX_PIXELS:
        raise MediaRejected(_pixel_limit_message(width, height))
    if min(width, height) < settings.MEDIA_MIN_SIDE_PX:
        raise MediaRejected(
            f"the picture is {width}x{height}; the smallest accepted is "
            f"{settings.MEDIA_MIN_SIDE_PX} px a side (setting MEDIA_MIN_SIDE_PX)"
        )
    # Of the rates the header names (average "fps", and "tbr", ffmpeg's guess of the base rate)
    # the lower is checked: an AVI of B-frames can claim 600 fps for a 30 fps stream. The rate
    # measured on the index is checked again afterwards.
    rates = [Fraction(m["fps"]) * (1000 if m["k"] else 1) for m in _FPS_RE.finditer(rest)]
    fps = min(rates) if rates else Fraction(0)
    _check_fps(fps, "declares")
    seconds = 0.0
    declared = _DURATION_RE.search(header)
    if declared:
        seconds = int(declared["h"]) * 3600 + int(declared["m"]) * 60 + float(declared["s"])
        _check_duration(seconds)
    start = _START_RE.search(header)
    start_us = int(start["s"]) * US_PER_SECOND + int(start["us"]) if start else 0
    return _Header(
        container=fmt["fmt"],
        codec=video["codec"],
        width=width,
        height=height,
        fps=fps,
        seconds=seconds,
        rotation=_rotation(header),
        has_audio=bool(_AUDIO_RE.search(header)),
        start_us=-start_us if start and start["sign"] else start_us,
        audio=parse_audio_stream(header),
    )


def _check_fps(fps: Fraction, verb: str) -> None:
    if fps > settings.MEDIA_MAX_FPS:
        raise MediaRejected(
            f"the video {verb} {float(fps):.3g} frames per second; the most accepted is "
            f"{settings.MEDIA_MAX_FPS} (setting MEDIA_MAX_FPS)"
        )


def _check_duration(seconds: float) -> None:
    if seconds > settings.MEDIA_MAX_DURATION_SECONDS:
        raise MediaRejected(
            f"the video lasts {seconds:.0f} s, over the limit of "
            f"{settings.MEDIA_MAX_DURATION_SECONDS} s (setting MEDIA_MAX_DURATION_SECONDS)"
        )


def _too_many_frames() -> MediaRejected:
    return MediaRejected(
        f"the video has more than {settings.MEDIA_MAX_FRAMES} frames, the most accepted "
        "(setting MEDIA_MAX_FRAMES)"
    )


def packet_index(
    path: str | os.PathLike,
    *,
    demuxer: str,
    max_frames: int,
    timeout: float,
    progress: Callable[[float], None] | None = None,
) -> PacketIndex:
    """List the video packets of ``path`` in one streaming pass (memory: 8 bytes a frame).

    MediaRejected when there are more than ``max_frames``, when a packet has no presentation
    time, or when the file does not demux. ``progress`` is called now and then with the latest
    presentation time seen, in seconds.
    """
    # -flush_packets 0: write the listing in full buffers, not one write (and one wake-up of
    # this process) per packet, which cost more than the demux itself on tiny packets.
    args = ["-copyts", "-start_at_zero", *input_args(path, demuxer=demuxer), "-map", "0:v:0",
            "-c", "copy", "-flush_packets", "0", "-f", "framecrc", "-"]  # fmt: skip
    pts, keys = array("q"), array("q")
    time_base: Fraction | None = None
    last_pts, last_duration = None, 0
    lines = stream_ffmpeg_lines(args, loglevel="error", timeout=timeout)
    try:
        for line in lines:
            if line.startswith(b"#"):
                tb = _TB_RE.match(line.rstrip())
                if tb and time_base is None:
                    time_base = Fraction(int(tb["num"]), int(tb["den"]))
                continue
            # stream, dts, pts, duration, size, crc[, F=0x<flags>][, S=<side data>...]
            fields = line.split(b",", 7)
            if len(fields) < 6:
                continue
            flags = _FLAG_KEY
            if len(fields) > 6 and fields[6].startswith(b" F=0x"):
                flags = int(fields[6][5:], 16)
            if flags & _FLAG_DISCARD:
                continue  # an edit list hides this packet's frame; the decoder drops it too
            t = int(fields[2]) if fields[2].strip() != b"NOPTS" else _NOPTS
            if t == _NOPTS:
                raise MediaRejected("a video packet has no presentation time")
            pts.append(t)
            if flags & _FLAG_KEY:
                keys.append(t)
            if last_pts is None or t > last_pts:
                last_pts, last_duration = t, int(fields[3])
            if len(pts) > max_frames:
                raise _too_many_frames()
            if progress is not None and len(pts) % PROGRESS_EVERY_PACKETS == 0 and time_base:
                progress(float(last_pts * time_base))
    except FFmpegError as exc:
        raise MediaRejected(f"the video cannot be read to the end: {_last_line(exc)}") from None
    finally:
        lines.close()  # stops ffmpeg at once when we stopped early
    if time_base is None or not pts:
        raise MediaRejected("the video stream holds no frames")
    return PacketIndex(
        time_base=time_base,
        pts=np.frombuffer(pts, dtype=np.int64),
        keyframe_pts=np.frombuffer(keys, dtype=np.int64),
        last_duration=max(last_duration, 0),
    )


_CONFIG_RE = re.compile(rb"config in time_base: (?P<num>\d+)/(?P<den>\d+), frame_rate: ")
_FRAME_RE = re.compile(
    rb"n:\s*(?P<n>\d+) pts:\s*(?P<pts>-?\d+) .*? duration:\s*(?P<dur>-?\d+).*? iskey:(?P<key>[01])"
)


def decoded_index(
    path: str | os.PathLike,
    *,
    demuxer: str,
    max_frames: int,
    timeout: float,
    progress: Callable[[float], None] | None = None,
) -> PacketIndex:
    """The index from decoding every frame, for AVI: its packets carry no presentation times
    (B-frames are timed by the decoder), so only decoding says when each frame is shown.

    Streaming like ``packet_index`` (``showinfo`` prints one log line per decoded frame, read as
    it comes); slower, as it decodes. ``checksum=0`` skips hashing pixels, ``wrapped_avframe``
    skips copying them, ``-noautorotate`` skips an unneeded transpose.
    """
    args = ["-copyts", "-start_at_zero", "-noautorotate", *input_args(path, demuxer=demuxer),
            "-map", "0:v:0", "-vf", "showinfo=checksum=0", "-fps_mode", "passthrough",
            "-c:v", "wrapped_avframe", "-f", "null", "-"]  # fmt: skip
    pts, keys = array("q"), array("q")
    time_base: Fraction | None = None
    last_duration = 0
    lines = stream_ffmpeg_lines(args, loglevel="info", timeout=timeout, from_stderr=True)
    try:
        for line in lines:
            frame = _FRAME_RE.search(line)
            if frame is None:
                config = _CONFIG_RE.search(line) if time_base is None else None
                if config:
                    time_base = Fraction(int(config["num"]), int(config["den"]))
                continue
            t = int(frame["pts"])
            pts.append(t)
            if frame["key"] == b"1":
                keys.append(t)
            last_duration = int(frame["dur"])
            if len(pts) > max_frames:
                raise _too_many_frames()
            if progress is not None and len(pts) % PROGRESS_EVERY_PACKETS == 0 and time_base:
                progress(float(t * time_base))
    except FFmpegError as exc:
        raise MediaRejected(f"the video cannot be decoded: {_last_line(exc)}") from None
    finally:
        lines.close()
    if time_base is None or not pts:
        raise MediaRejected("the video stream decodes to no frames")
    return PacketIndex(
        time_base=time_base,
        pts=np.frombuffer(pts, dtype=np.int64),
        keyframe_pts=np.frombuffer(keys, dtype=np.int64),
        last_duration=max(last_duration, 0),
    )


def _mp4_tables(path: str | os.PathLike, max_frames: int) -> PacketIndex | None:
    """An MP4/MOV's index from its sample tables (``media.isobmff``: no ffmpeg, no reading of the
    samples), or None when they cannot say exactly what ffmpeg's listing would."""
    try:
        return read_video_index(path, max_frames=max_frames)
    except (NotReproduced, BoxError) as exc:  # ffmpeg stays the judge of a damaged file
        log.info("indexing %s with ffmpeg: %s", Path(path).name, exc)
        return None


def _from_tables(
    found: PacketIndex, *, start_us: int, max_frames: int, progress, **_
) -> PacketIndex:
    found = at_start(found, start_us)
    if found.pts.size > max_frames:
        raise _too_many_frames()
    if progress is not None:  # the listing's reports, at once
        latest = np.maximum.accumulate(found.pts)
        for n in range(PROGRESS_EVERY_PACKETS, found.pts.size + 1, PROGRESS_EVERY_PACKETS):
            progress(float(int(latest[n - 1]) * found.time_base))
    return found


def mov_index(path: str | os.PathLike, *, start_us: int, **listing) -> PacketIndex:
    """The index an MP4/MOV import builds: the tables, else ffmpeg's listing."""
    found = _mp4_tables(path, listing["max_frames"])
    if found is None:
        return packet_index(path, **listing)
    return _from_tables(found, start_us=start_us, **listing)


def _ticks_to_us(ticks: np.ndarray, scale: Fraction) -> np.ndarray:
    """Exact rational conversion of ticks to µs, rounded to the nearest µs, in int64."""
    if ticks.size and int(np.abs(ticks).max()) * 2 * scale.numerator >= 2**62:
        raise MediaRejected("the video's time base and timestamps are out of range")
    return (ticks * (scale.numerator * 2) + scale.denominator) // (2 * scale.denominator)


def probe_file(
    path: str | os.PathLike, *, progress: Callable[[float], None] | None = None
) -> Probe:
    """Probe ``path``; MediaRejected explains any refusal (kind, limits, corruption).

    The limits are checked on the header before the long indexing pass runs, and the frame
    count during it. ``progress`` receives the share of the declared duration indexed so far
    (0 to 1), now and then.
    """
    path = Path(path)
    demuxer, mime_type = sniff_container(path)
    head = _read_header(path, demuxer)
    # The tables are read once ffmpeg has exited (a few tens of milliseconds for 360,000 frames):
    # its own index of every sample and ours are never held at the same time, and a file the
    # header refuses is never indexed.
    tables = _mp4_tables(path, settings.MEDIA_MAX_FRAMES) if demuxer == "mov" else None

    seconds = head.seconds
    on_seconds = None
    if progress is not None and seconds > 0:

        def on_seconds(done: float) -> None:
            progress(min(max(done / seconds, 0.0), 1.0))

    # Reading packets is a demux, far faster than real time; the budget still grows with the
    # declared duration, so a slow disk (or AVI's decoding pass) does not refuse a long file.
    timeout = settings.FFMPEG_TIMEOUT_SECONDS + seconds
    listing = {"demuxer": demuxer, "max_frames": settings.MEDIA_MAX_FRAMES, "timeout": timeout,
               "progress": on_seconds}  # fmt: skip
    if tables is not None:
        index = _from_tables(tables, start_us=head.start_us, **listing)
    else:
        index = (decoded_index if demuxer == "avi" else packet_index)(path, **listing)
    tb = index.time_base
    # Presentation order: B-frames arrive before the frames they precede on screen.
    pts = np.sort(index.pts, kind="stable")
    if (np.diff(pts) <= 0).any():
        raise MediaRejected("two frames of the video have the same timestamp")
    scale = tb * US_PER_SECOND
    ticks = pts - pts[0]
    times = _ticks_to_us(ticks, scale)
    del ticks
    if (np.diff(times) <= 0).any():
        raise MediaRejected("two frames are less than a microsecond apart")
    origin_us = round(Fraction(int(pts[0])) * scale)
    gaps = np.diff(pts)
    is_vfr = bool(gaps.size and (gaps != gaps[0]).any())
    fps = head.fps
    last_duration_ticks = index.last_duration
    if last_duration_ticks <= 0 and gaps.size:
        last_duration_ticks = int(gaps[-1])
    if last_duration_ticks <= 0:
        last_duration_ticks = round(1 / (fps * tb)) if fps else 1
    duration_us = int(times[-1]) + round(Fraction(last_duration_ticks) * scale)
    _check_duration(duration_us / US_PER_SECOND)
    # Nominal rate: exact from the tick interval when constant; otherwise the mean rate over the
    # frames (ffmpeg's own guess for VFR is the finest grid the times fit, e.g. 60 for 24-ish).
    if gaps.size and not is_vfr:
        fps = 1 / (Fraction(int(gaps[0])) * tb)
    elif gaps.size:
        fps = (Fraction(int(gaps.size)) / (Fraction(int(pts[-1] - pts[0])) * tb)).limit_denominator(
            1001
        )
    elif fps <= 0:
        fps = Fraction(30)
    _check_fps(fps, "has")
    keyframes = _ticks_to_us(np.sort(index.keyframe_pts) - pts[0], scale)
    keyframes = keyframes[keyframes >= 0]

    return Probe(
        container=head.container,
        demuxer=demuxer,
        mime_type=mime_type,
        codec=head.codec,
        width=head.width,
        height=head.height,
        rotation=head.rotation,
        fps=fps,
        is_vfr=is_vfr,
        has_audio=head.has_audio,
        duration_us=duration_us,
        origin_us=origin_us,
        frame_times_us=times,
        keyframe_times_us=keyframes if keyframes.size else np.zeros(1, dtype=np.int64),
        audio=head.audio,
    )
