"""Test and demo videos that carry their own frame numbers, and the reader that gets them back.

Every picture shows its frame number and timecode in digits drawn from a tiny built-in bitmap
font (no system fonts, so the output is the same on every machine) and a barcode of the frame
number: two rows of ``BARCODE_BITS`` black/white blocks, the second row the complement of the
first. Blocks are a whole fraction of the picture wide, so the code survives H.264 at low
resolution, scaling and rotation; the complement row lets the reader refuse a frame it cannot
read instead of guessing. ``read_frame_numbers`` decodes every frame of a file and returns the
numbers: that is how tests prove which source frames a rendered clip holds.

Sound, when asked for, encodes time too: a quiet 440 Hz tone with a click (1 ms at full
strength) every ``CLICK_EVERY_US`` of the source's timeline, at 48 kHz mono AAC. ``read_clicks``
decodes any file's sound and returns where its clicks start, so tests can tell which stretch of
the source a rendered sound holds, to a fraction of a millisecond.

Frames are drawn with numpy and piped raw into ffmpeg; a 60 s 640x360 video takes a few seconds.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from media.ffmpeg import FFmpegError, file_url, finish, input_args, popen_ffmpeg

BARCODE_BITS = 20  # up to about a million frames
AUDIO_RATE = 48_000
CLICK_EVERY_US = 100_000
_CLICK_SAMPLES = AUDIO_RATE // 1000
READ_SIZE = (320, 192)  # frames are scaled to this before reading; the layout is relative

# 3x5 glyphs, rows top to bottom, "1" = ink.
_GLYPHS = {
    "0": ("111", "101", "101", "101", "111"),
    "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"),
    "3": ("111", "001", "111", "001", "111"),
    "4": ("101", "101", "111", "001", "001"),
    "5": ("111", "100", "111", "001", "111"),
    "6": ("111", "100", "111", "101", "111"),
    "7": ("111", "001", "010", "010", "010"),
    "8": ("111", "101", "111", "101", "111"),
    "9": ("111", "101", "111", "001", "111"),
    ":": ("000", "010", "000", "010", "000"),
    ".": ("000", "000", "000", "000", "010"),
    "#": ("101", "111", "101", "111", "101"),
    " ": ("000", "000", "000", "000", "000"),
}
_GLYPH_ARRAYS = {
    ch: np.array([[c == "1" for c in row] for row in rows], dtype=bool)
    for ch, rows in _GLYPHS.items()
}


@dataclass(frozen=True)
class SynthVideo:
    path: Path
    frame_times_us: tuple[int, ...]  # the presentation time written for every frame
    width: int  # as displayed
    height: int
    rotation: int
    fps: int
    has_audio: bool
    audio_offset_us: int = 0  # where the sound stream starts on the picture's timeline


def _text_mask(text: str, scale: int) -> np.ndarray:
    glyphs = [_GLYPH_ARRAYS[ch] for ch in text]
    row = np.concatenate(
        [np.pad(g, ((0, 0), (0, 1))) for g in glyphs], axis=1
    )  # one blank column between glyphs
    return np.kron(row, np.ones((scale, scale), dtype=bool))


def _layout(width: int, height: int) -> tuple[int, int, int]:
    """Top of the barcode, height of one barcode row, width of one block (all in pixels)."""
    row_h = max(height // 8, 4)
    top = height - 2 * row_h - max(height // 40, 1)
    return top, row_h, width / (BARCODE_BITS + 2)


def _timecode(t_us: int) -> str:
    seconds, micro = divmod(t_us, 1_000_000)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}.{micro // 1000:03d}"


def draw_frame(number: int, t_us: int, width: int, height: int) -> np.ndarray:
    """One grey picture (uint8, height x width) showing ``number`` and its timecode."""
    # A slowly changing background keeps the encoder honest (frames are not all identical).
    shade = 90 + (number * 7) % 60
    frame = np.full((height, width), shade, dtype=np.uint8)
    scale = max(height // 60, 1)
    for line, text in enumerate((f"#{number:06d}", _timecode(t_us))):
        mask = _text_mask(text, scale * 2 if line == 0 else scale)
        y = scale * 2 + line * (scale * 14)
        h, w = mask.shape
        h, w = min(h, height - y), min(w, width - scale * 2)
        if h > 0 and w > 0:
            frame[y : y + h, scale * 2 : scale * 2 + w][mask[:h, :w]] = 250
    top, row_h, block_w = _layout(width, height)
    for bit in range(BARCODE_BITS):
        on = (number >> (BARCODE_BITS - 1 - bit)) & 1
        x0, x1 = round((bit + 1) * block_w), round((bit + 2) * block_w)
        frame[top : top + row_h, x0:x1] = 16 if on else 235
        frame[top + row_h : top + 2 * row_h, x0:x1] = 235 if on else 16
    return frame


def synth_frame_times(frames: int, fps: int, vfr: bool) -> list[int]:
    """Frame times in µs. VFR alternates one and one-and-a-half frame intervals."""
    step = 1_000_000 / fps
    if not vfr:
        return [round(i * step) for i in range(frames)]
    return [round((i // 2) * 2.5 * step + (i % 2) * step) for i in range(frames)]


def synth_video(
    path: str | os.PathLike,
    *,
    seconds: float = 4,
    fps: int = 30,
    size: tuple[int, int] = (320, 180),
    vfr: bool = False,
    rotation: int = 0,
    audio: bool = False,
    gop: int | None = None,
    bframes: int = 2,
    preset: str = "superfast",
    audio_offset: float = 0.0,
) -> SynthVideo:
    """Write an H.264 MP4 whose every frame shows its own number; returns what was written.

    ``size`` is the displayed size; with ``rotation`` (clockwise, as a phone records) the stored
    picture is turned the other way and the display matrix turns it back for the viewer.
    ``audio_offset`` (seconds) starts the sound stream that much after the first picture (a
    stream start offset, written as the container's edit list), its clicks still on the picture's
    timeline.
    """
    if rotation not in (0, 90, 180, 270):
        raise ValueError("rotation must be 0, 90, 180 or 270")
    path = Path(path)
    width, height = size
    frames = max(1, round(seconds * fps / 1.25)) if vfr else max(1, round(seconds * fps))
    times = synth_frame_times(frames, fps, vfr)
    stored_w, stored_h = (height, width) if rotation in (90, 270) else (width, height)
    gop = gop or 2 * fps

    # 90 kHz ticks hold both frame intervals of the VFR pattern exactly.
    tick = 90_000
    base = tick // fps
    pts_expr = f"floor(N/2)*{base * 5 // 2}+mod(N\\,2)*{base}" if vfr else f"N*{base}"
    args = [
        "-f", "rawvideo", "-pix_fmt", "gray", "-s", f"{stored_w}x{stored_h}",
        "-framerate", str(fps),
    ]  # fmt: skip
    if rotation:
        # -display_rotation counts counter-clockwise; a player turns clockwise by `rotation`.
        args += ["-display_rotation", str(-rotation), "-noautorotate"]
    args += ["-i", "pipe:0"]
    if audio:
        offset = round(audio_offset * AUDIO_RATE)  # whole samples
        every = CLICK_EVERY_US * AUDIO_RATE // 1_000_000
        clicks = (f"aevalsrc=0.1*sin(2*PI*440*t)+0.8*lt(mod(n+{offset}\\,{every})\\,"
                  f"{_CLICK_SAMPLES}):s={AUDIO_RATE}:c=mono")  # fmt: skip
        args += ["-itsoffset", f"{offset / AUDIO_RATE:.6f}", "-f", "lavfi",
                 "-t", f"{times[-1] / 1e6 + 1 / fps - offset / AUDIO_RATE:.6f}",
                 "-i", clicks]  # fmt: skip
    args += [
        "-map", "0:v",
        "-vf", f"settb=1/{tick},setpts={pts_expr}",
        "-fps_mode", "passthrough",
        "-c:v", "libx264", "-preset", preset, "-crf", "18", "-pix_fmt", "yuv420p",
        "-g", str(gop), "-keyint_min", str(gop), "-sc_threshold", "0", "-bf", str(bframes),
        "-enc_time_base:v", f"1/{tick}", "-video_track_timescale", str(tick),
    ]  # fmt: skip
    if audio:
        args += ["-map", "1:a", "-c:a", "aac", "-b:a", "64k"]
    args += ["-movflags", "+faststart", "-y", file_url(path)]

    proc = popen_ffmpeg(args, stdin=subprocess.PIPE)
    try:
        for number, t_us in enumerate(times):
            picture = draw_frame(number, t_us, width, height)
            if rotation:
                # Store the picture turned counter-clockwise; the player turns it back.
                picture = np.ascontiguousarray(np.rot90(picture, k=rotation // 90))
            proc.stdin.write(picture.tobytes())
        proc.stdin.close()
    except BrokenPipeError:
        pass
    finish(proc)
    offset_us = round(audio_offset * AUDIO_RATE) * 1_000_000 // AUDIO_RATE if audio else 0
    return SynthVideo(path, tuple(times), width, height, rotation, fps, audio, offset_us)


def read_barcodes(frames: np.ndarray) -> list[int]:
    """Frame numbers from grey pictures shaped (n, height, width); ValueError if unreadable."""
    _, height, width = frames.shape
    top, row_h, block_w = _layout(width, height)
    numbers = []
    pad_y, pad_x = max(row_h // 4, 1), max(int(block_w // 4), 1)
    for k, frame in enumerate(frames):
        value = 0
        for bit in range(BARCODE_BITS):
            x0, x1 = round((bit + 1) * block_w) + pad_x, round((bit + 2) * block_w) - pad_x
            upper = frame[top + pad_y : top + row_h - pad_y, x0:x1].mean()
            lower = frame[top + row_h + pad_y : top + 2 * row_h - pad_y, x0:x1].mean()
            if (upper < 128) == (lower < 128):
                raise ValueError(f"frame {k}: barcode bit {bit} is unreadable")
            value = (value << 1) | int(upper < 128)
        numbers.append(value)
    return numbers


def read_frame_numbers(path: str | os.PathLike, *, demuxer: str | None = None) -> list[int]:
    """Decode every frame of ``path`` (as displayed) and return each frame's burned-in number."""
    path = Path(path)
    if demuxer is None:
        demuxer = "png_pipe" if path.suffix.lower() == ".png" else "mov"
    w, h = READ_SIZE
    proc = popen_ffmpeg(
        [*input_args(path, demuxer=demuxer), "-map", "0:v:0",
         "-vf", f"scale={w}:{h}:flags=area,format=gray", "-fps_mode", "passthrough",
         "-f", "rawvideo", "-pix_fmt", "gray", "pipe:1"],
        stdout=subprocess.PIPE,
    )  # fmt: skip
    data = proc.stdout.read()
    finish(proc)
    if len(data) % (w * h):
        raise FFmpegError(f"decoded {len(data)} bytes, not a whole number of {w}x{h} frames")
    frames = np.frombuffer(data, dtype=np.uint8).reshape(-1, h, w)
    return read_barcodes(frames)


def read_clicks(path: str | os.PathLike, *, demuxer: str = "mov") -> tuple[list[int], int, int]:
    """Where the clicks of a file's sound start (µs from its first sample), how many samples it
    holds and at what rate. A click is a run of samples over half strength after at least 20 ms
    without one (the tone stays at a tenth)."""
    path = Path(path)
    proc = popen_ffmpeg(
        [*input_args(path, demuxer=demuxer), "-map", "0:a:0", "-ac", "1",
         "-c:a", "pcm_s16le", "-f", "s16le", "pipe:1"],
        stdout=subprocess.PIPE, loglevel="info",
    )  # fmt: skip
    data = proc.stdout.read()
    log = finish(proc).decode("utf-8", "replace").split("\nOutput #0", 1)[0]
    found = re.search(r"Audio: [^\n]*?, (\d+) Hz", log)
    if not found:
        raise FFmpegError("the file names no audio stream")
    rate = int(found[1])
    samples = np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768
    loud = np.flatnonzero(np.abs(samples) > 0.4)
    if not loud.size:
        return [], samples.size, rate
    onsets = loud[np.r_[True, np.diff(loud) > rate // 50]]
    return [int(i) * 1_000_000 // rate for i in onsets], samples.size, rate
