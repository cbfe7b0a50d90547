"""Times of a source video as the admin shows them: the timecode and the frame the mark names,
numbered as the workspace numbers them (studio.display.timecode)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from django.contrib import admin

from media.timebase import boundary_index, decode_frame_times
from studio.display import timecode


def frame_times_of(row, blob: bytes | None) -> np.ndarray | None:
    """The decoded frame-time index ``blob``, kept on ``row`` so that a row's several marks
    decode it once (``None`` when the video is not on this instance)."""
    cached = getattr(row, "_decoded_frame_times", None)
    if cached is None and blob:
        cached = decode_frame_times(bytes(blob))
        row._decoded_frame_times = cached
    return cached


def mark_text(times: np.ndarray | None, us: int | None, *, mark: str | None = None) -> str:
    """``0:04.200 · frame #126`` (a start or an outcome: the frame the mark begins) or
    ``0:04.200 · last shown #125`` (a cutoff: the last frame before it)."""
    if us is None:
        return timecode(None)
    return timecode(us, frame=None if times is None else boundary_index(times, us), mark=mark)


def mark_column(field: str, description: str, *, frame_times: Callable[[object], bytes | None]):
    """An admin column (or read-only field) showing the mark ``field`` of a row with
    ``mark_text``; ``frame_times(row)`` gives the compressed index of the row's video."""

    @admin.display(description=description, ordering=field)
    def show(model_admin, row) -> str:
        times = frame_times_of(row, frame_times(row))
        return mark_text(times, getattr(row, field), mark=field)

    return show
