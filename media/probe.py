"""What a media file is, decided by its bytes and by decoding it — never by its name.

Two stages:

1. ``sniff_container`` reads the first bytes in Python and names the demuxer (mov/mp4, Matroska/
   WebM, AVI). Anything else — an HLS playlist, an ffconcat list, a text file, an image — is
   refused here, before ffmpeg runs at all, so a playlist disguised as ``.mp4`` can never make
   ffmpeg open the files it lists.
2. ffmpeg opens the file with that demuxer pinned (``media.ffmpeg.input_args``): first the header
   (codec, size, rotation, audio, declared duration) so the limits are enforced before any long
   work, then every frame is decoded once through the ``showinfo`` filter.

Why decode with ``showinfo`` for the frame-time index: it prints each *decoded* frame's integer
``pts`` together with the link's exact time base, so the index is exact (integer ticks, no float
seconds) and is precisely the sequence of frames a renderer will later decode — including frames
an edit list drops or B-frame reordering moves, which a packet-level listing (``framecrc`` with
stream copy) would get wrong. ``checksum=0`` skips hashing the pixels, the null muxer with
``wrapped_avframe`` skips copying them, and ``-noautorotate`` avoids an unneeded transpose, so the
cost is the decode alone. ``-copyts -start_at_zero`` put frames on the file's own timeline (the
same timeline ``-ss`` seeks on), and the first decoded video frame's time there is stored as the
origin, so rebased times map back exactly when rendering.

Files this project has just rendered are checked by ``container_index`` instead: their video
packets are listed from the container alone (``framecrc`` over a stream copy, no decoding). That
is exact for our own H.264 outputs, which have no edit list dropping frames, and any packet that
should not be there makes the count or a time disagree, so a doubtful file is refused, never
accepted.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from subprocess import CompletedProcess

import numpy as np
from django.conf import settings

from media.ffmpeg import FFmpegError, input_args, run_ffmpeg
from media.timebase import US_PER_SECOND


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
    frame_times_us: tuple[int, ...]  # every decoded frame, first at 0, strictly increasing
    keyframe_times_us: tuple[int, ...]

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


def sniff_container(path: str | os.PathLike) -> tuple[str, str]:
    """(demuxer, mime type) from the file's first bytes; MediaRejected for anything else."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError as exc:
        raise MediaRejected(f"cannot read the file: {exc.strerror}") from None
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


# --- stage 2: ffmpeg reads the header, then decodes every frame ----------------------------------

_INPUT_RE = re.compile(r"^Input #0, (?P<fmt>[^ ]+), from", re.M)
_DURATION_RE = re.compile(r"Duration: (?P<h>\d+):(?P<m>\d\d):(?P<s>\d\d(?:\.\d+)?)")
_VIDEO_RE = re.compile(r"Stream #0:\d+[^:]*: Video: (?P<codec>[A-Za-z0-9_]+)(?P<rest>[^\n]*)")
_SIZE_RE = re.compile(r", (?P<w>\d{1,6})x(?P<h>\d{1,6})[ ,\n]")
_AUDIO_RE = re.compile(r"Stream #0:\d+[^:]*: Audio: ")
_ROTATION_RE = re.compile(r"rotation of (?P<deg>-?\d+(?:\.\d+)?) degrees")
_CONFIG_RE = re.compile(r"config in time_base: (?P<tb>\d+/\d+), frame_rate: (?P<fr>\d+/\d+)")
_FRAME_RE = re.compile(
    r"n:\s*(?P<n>\d+) pts:\s*(?P<pts>-?\d+) .*? duration:\s*(?P<dur>-?\d+).*? iskey:(?P<key>[01])"
)


def _run_on_video(args: list[str], *, refusal: str, timeout: float) -> CompletedProcess:
    """Run ffmpeg at info level on a file's video stream; a failure becomes MediaRejected with
    ``refusal`` and ffmpeg's last line."""
    try:
        return run_ffmpeg(args, loglevel="info", timeout=timeout)
    except FFmpegError as exc:
        if "matches no streams" in exc.stderr_tail:
            raise MediaRejected("the file has no video stream") from None
        raise MediaRejected(f"{refusal}: {_last_line(exc)}") from None


def _header(path: Path, demuxer: str) -> str:
    # Decoding one frame proves the stream is decodable and prints the full header.
    result = _run_on_video(
        [*input_args(path, demuxer=demuxer), "-map", "0:v:0", "-frames:v", "1",
         "-f", "null", "-"],
        refusal="ffmpeg cannot read the file as a video",
        timeout=60,
    )  # fmt: skip
    return result.stderr.decode("utf-8", "replace")


def _last_line(exc: FFmpegError) -> str:
    lines = [line for line in exc.stderr_tail.splitlines() if line.strip()]
    return lines[-1].strip() if lines else str(exc)


def _rotation(header: str) -> int:
    match = _ROTATION_RE.search(header)
    if not match:
        return 0
    # ffmpeg prints the display matrix angle counter-clockwise; players turn clockwise by -angle.
    degrees = round(-float(match.group("deg"))) % 360
    if degrees not in (0, 90, 180, 270):
        raise MediaRejected(f"unsupported display rotation of {degrees} degrees")
    return degrees


def _decode_log(path: Path, demuxer: str, *, timeout: float) -> str:
    result = _run_on_video(
        ["-copyts", "-start_at_zero", "-noautorotate", *input_args(path, demuxer=demuxer),
         "-map", "0:v:0", "-vf", "showinfo=checksum=0", "-fps_mode", "passthrough",
         "-c:v", "wrapped_avframe", "-f", "null", "-"],
        refusal="the video cannot be decoded",
        timeout=timeout,
    )  # fmt: skip
    return result.stderr.decode("utf-8", "replace")


def probe_file(path: str | os.PathLike) -> Probe:
    """Probe ``path``; MediaRejected explains any refusal (kind, limits, corruption).

    The limits are checked on the header before the long decoding pass runs.
    """
    path = Path(path)
    demuxer, mime_type = sniff_container(path)
    header = _header(path, demuxer)

    fmt = _INPUT_RE.search(header)
    video = _VIDEO_RE.search(header)
    if not fmt or not video:
        raise MediaRejected("the file has no video stream")
    size = _SIZE_RE.search(video.group("rest") + "\n")
    if not size:
        raise MediaRejected("the video stream has no picture size")
    width, height = int(size.group("w")), int(size.group("h"))
    if width * height > settings.MEDIA_MAX_PIXELS:
        raise MediaRejected(
            f"the picture is {width}x{height}, over the limit of {settings.MEDIA_MAX_PIXELS} pixels"
        )
    declared = _DURATION_RE.search(header)
    seconds = 0.0
    if declared:
        seconds = int(declared["h"]) * 3600 + int(declared["m"]) * 60 + float(declared["s"])
        if seconds > settings.MEDIA_MAX_DURATION_SECONDS:
            raise MediaRejected(
                f"the video lasts {seconds:.0f} s, over the limit of "
                f"{settings.MEDIA_MAX_DURATION_SECONDS} s"
            )
    rotation = _rotation(header)

    # Decoding takes longer the longer the video: the budget grows by its declared duration (a
    # decoder slower than real time on this machine would be the thing to fix).
    log = _decode_log(path, demuxer, timeout=settings.FFMPEG_TIMEOUT_SECONDS + seconds)
    config = _CONFIG_RE.search(log)
    frames = [(int(m["pts"]), int(m["dur"]), m["key"] == "1") for m in _FRAME_RE.finditer(log)]
    if not config or not frames:
        raise MediaRejected("the video stream decodes to no frames")
    tb = Fraction(config["tb"])
    fps = Fraction(config["fr"]) if not config["fr"].startswith("0/") else Fraction(0)

    pts = np.array([f[0] for f in frames], dtype=np.int64)
    if (np.diff(pts) <= 0).any():
        raise MediaRejected("the video's frame timestamps are not strictly increasing")
    ticks = pts - pts[0]
    # Exact rational conversion, rounded to the nearest microsecond.
    scale = tb * US_PER_SECOND
    times = (ticks * scale.numerator * 2 + scale.denominator) // (2 * scale.denominator)
    if (np.diff(times) <= 0).any():
        raise MediaRejected("two frames are less than a microsecond apart")
    origin_us = round(Fraction(int(pts[0])) * scale)
    gaps = np.diff(ticks)
    is_vfr = bool(gaps.size and (gaps != gaps[0]).any())
    last_duration_ticks = frames[-1][1]
    if last_duration_ticks <= 0 and gaps.size:
        last_duration_ticks = int(gaps[-1])
    if last_duration_ticks <= 0:
        last_duration_ticks = round(1 / (fps * tb)) if fps else 1
    duration_us = int(times[-1]) + round(Fraction(last_duration_ticks) * scale)
    if duration_us > settings.MEDIA_MAX_DURATION_SECONDS * US_PER_SECOND:
        raise MediaRejected(
            f"the video lasts {duration_us / US_PER_SECOND:.0f} s, over the limit of "
            f"{settings.MEDIA_MAX_DURATION_SECONDS} s"
        )
    # Nominal rate: exact from the tick interval when constant; otherwise the mean rate over the
    # frames (ffmpeg's own guess for VFR is the finest grid the times fit, e.g. 60 for 24-ish).
    if gaps.size and not is_vfr:
        fps = 1 / (Fraction(int(gaps[0])) * tb)
    elif gaps.size:
        fps = (Fraction(int(gaps.size)) / (Fraction(int(ticks[-1])) * tb)).limit_denominator(1001)
    elif fps <= 0:
        fps = Fraction(30)
    keyframes = tuple(int(t) for t, f in zip(times, frames, strict=True) if f[2])

    return Probe(
        container=fmt["fmt"],
        demuxer=demuxer,
        mime_type=mime_type,
        codec=video["codec"],
        width=width,
        height=height,
        rotation=rotation,
        fps=fps,
        is_vfr=is_vfr,
        has_audio=bool(_AUDIO_RE.search(header)),
        duration_us=duration_us,
        origin_us=origin_us,
        frame_times_us=tuple(int(t) for t in times),
        keyframe_times_us=keyframes or (0,),
    )


# --- rendered outputs: the container's packet table, without decoding --------------------------

_TB_LINE_RE = re.compile(r"^#tb 0: (?P<num>\d+)/(?P<den>\d+)$", re.M)
_DIMENSIONS_RE = re.compile(r"^#dimensions 0: (?P<w>\d+)x(?P<h>\d+)$", re.M)


@dataclass(frozen=True)
class ContainerIndex:
    mime_type: str
    width: int
    height: int
    rotation: int
    times_us: tuple[int, ...]  # presentation times, in order, the first at 0


def container_index(path: str | os.PathLike) -> ContainerIndex:
    """The video packets of a file we wrote ourselves, read from its container in one fast pass.

    MediaRejected if the file does not demux (for example a truncated MP4 without its index).
    """
    path = Path(path)
    demuxer, mime_type = sniff_container(path)
    result = _run_on_video(
        [*input_args(path, demuxer=demuxer), "-map", "0:v:0", "-c", "copy", "-f", "framecrc", "-"],
        refusal="the file does not demux",
        timeout=settings.FFMPEG_TIMEOUT_SECONDS,
    )
    table = result.stdout.decode("ascii", "replace")
    tb, dims = _TB_LINE_RE.search(table), _DIMENSIONS_RE.search(table)
    if not tb or not dims:
        raise MediaRejected("the file has no video stream")
    pts = []
    for line in table.splitlines():
        if line and not line.startswith("#"):
            fields = [f.strip() for f in line.split(",")]
            if fields[2] == "NOPTS":
                raise MediaRejected("a video packet has no presentation time")
            pts.append(int(fields[2]))
    if not pts:
        raise MediaRejected("the video stream holds no frames")
    pts.sort()
    scale = Fraction(int(tb["num"]), int(tb["den"])) * US_PER_SECOND
    times = tuple(round((p - pts[0]) * scale) for p in pts)
    return ContainerIndex(
        mime_type=mime_type,
        width=int(dims["w"]),
        height=int(dims["h"]),
        rotation=_rotation(result.stderr.decode("utf-8", "replace")),
        times_us=times,
    )
