"""The time base of Intent Studio: integer microseconds and the frame-time index.

Rule (one rule, used everywhere): every time is an integer number of microseconds from the start
of the source's presentation timeline (the first decoded frame's time is the origin, so the first
frame is at 0). A window ``[a, b)`` is half-open: it holds every frame whose presentation time
``t`` satisfies ``a <= t < b``. A step's marks snap to frame times, so ``cutoff`` is the time of the
first frame *withheld*; the last frame shown is the one before it.

The frame-time index is the presentation time of every decoded frame, ascending. It is stored
compactly as zlib-compressed little-endian int64 deltas (the first delta is the first time), so a
one-hour 30 fps video takes a few kilobytes instead of 864 KB.
"""

from __future__ import annotations

import zlib

import numpy as np

US_PER_SECOND = 1_000_000
MAX_STEP_US = 10 * US_PER_SECOND


def seconds_to_us(seconds: float) -> int:
    return round(seconds * US_PER_SECOND)


def encode_frame_times(times_us) -> bytes:
    times = np.asarray(times_us, dtype=np.int64)
    if times.ndim != 1 or times.size == 0:
        raise ValueError("a frame-time index needs at least one frame")
    deltas = np.diff(times, prepend=np.int64(0))
    if times[0] < 0 or (deltas[1:] <= 0).any():
        raise ValueError("frame times must be non-negative and strictly increasing")
    return zlib.compress(deltas.astype("<i8").tobytes(), level=9)


def decode_frame_times(blob: bytes) -> np.ndarray:
    deltas = np.frombuffer(zlib.decompress(bytes(blob)), dtype="<i8")
    return np.cumsum(deltas, dtype=np.int64)


def frame_index_at(times_us: np.ndarray, t_us: int) -> int:
    """Index of the frame on screen at time ``t_us`` (the last frame with time <= t)."""
    return max(int(np.searchsorted(times_us, t_us, side="right")) - 1, 0)


def boundary_index(times_us: np.ndarray, t_us: int) -> int:
    """Index of the first frame at or after ``t_us``: the frame a mark at ``t_us`` begins
    (the frame count for a mark at the end of the video)."""
    return int(np.searchsorted(times_us, t_us, side="left"))


def snap_to_frame(times_us: np.ndarray, t_us: int) -> int:
    """The frame time nearest to ``t_us`` (ties go to the earlier frame)."""
    i = int(np.searchsorted(times_us, t_us, side="left"))
    if i <= 0:
        return int(times_us[0])
    if i >= len(times_us):
        return int(times_us[-1])
    before, after = int(times_us[i - 1]), int(times_us[i])
    return before if t_us - before <= after - t_us else after


def frames_in_window(times_us: np.ndarray, start_us: int, stop_us: int) -> np.ndarray:
    """Indices of the frames inside the half-open window ``[start_us, stop_us)``."""
    lo = int(np.searchsorted(times_us, start_us, side="left"))
    hi = int(np.searchsorted(times_us, stop_us, side="left"))
    return np.arange(lo, max(lo, hi))


def frame_duration_us(times_us: np.ndarray, index: int) -> int:
    """How long frame ``index`` is shown: until the next frame, or for the last frame as long as
    the one before it (a single frame: 1/30 s). A clip's timeline and its sound both end at the
    last frame's time plus this."""
    if index + 1 < len(times_us):
        return int(times_us[index + 1] - times_us[index])
    return int(times_us[-1] - times_us[-2]) if len(times_us) > 1 else 33_333
