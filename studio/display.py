"""How pages, the admin and the API show times, dates and frame rates to people: one format for
each, everywhere."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal

from django.utils import timezone


def clock(us) -> str:
    """Microseconds as m:ss.mmm (or h:mm:ss.mmm), the way the player shows times."""
    if us is None or us == "":
        return ""
    ms_total = int(us) // 1000
    hours, rest = divmod(ms_total, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, ms = divmod(rest, 1000)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}.{ms:03d}"
    return f"{minutes}:{seconds:02d}.{ms:03d}"


def iso_time(value: datetime | None) -> str:
    """A moment as ISO 8601 in the display time zone, to the second, with its offset:
    ``2026-03-01T14:05:09+00:00``."""
    if value is None:
        return ""
    return timezone.localtime(value).isoformat(timespec="seconds")


def frame_rate(num: int, den: int) -> str:
    """A rational frame rate and its decimal: ``30000/1001 = 29.97``, ``30/1 = 30``."""
    if not den:
        return f"{num}/{den}"
    decimal = f"{num / den:.3f}".rstrip("0").rstrip(".")
    return f"{num}/{den} = {decimal}"


def timecode(us: int | None, *, frame: int | None = None) -> str:
    """A time for people who also need the stored value: ``0:04.200 · frame 126 · 4200000 µs``
    (the frame left out when it is not known)."""
    if us is None:
        return "—"
    parts = [clock(us)]
    if frame is not None:
        parts.append(f"frame {frame}")
    parts.append(f"{us} µs")
    return " · ".join(parts)


# --- reading times people type ------------------------------------------------------------------

_TIME_RE = re.compile(
    r"^(?:(?:(?P<h>\d+):)?(?P<m>\d+):)?(?P<s>\d+(?:\.\d*)?|\.\d+)\s*(?:s|sec|seconds?)?$"
)
_FRAME_RE = re.compile(r"^(?:#|frame\s*#?)\s*(?P<n>\d+)$", re.IGNORECASE)
TIME_FORMATS = "a time (13.2 or 0:13.200) or a frame (#396)"


def parse_timecode(
    text: str, *, frame_times_us: Sequence[int], duration_us: int | None = None
) -> int:
    """What a person typed for a time of a source, as the microseconds of the frame boundary it
    names: ``13.2`` and ``13.2 s`` (seconds), ``0:13.200`` and ``1:02:03.5`` (the player's
    clock), ``#396`` (a frame, numbered from 0 as in the workspace). A time snaps to the nearest
    frame (ties to the earlier one) of ``frame_times_us``; with ``duration_us`` the end of the
    source is a boundary too (a cutoff or end after the last frame, ``#`` + the frame count).

    Raises ValueError with a sentence for the person (the input left empty, an unknown form, a
    frame or time past the source)."""
    raw = (text or "").strip()
    if not raw:
        raise ValueError(f"Give {TIME_FORMATS}.")
    count = len(frame_times_us)
    last = count if duration_us is not None else count - 1
    frame = _FRAME_RE.match(raw)
    if frame:
        n = int(frame["n"])
        if n > last:
            raise ValueError(f"Frame #{n} is past the end of the video (its last is #{count - 1}).")
        return int(duration_us) if n == count else int(frame_times_us[n])
    time = _TIME_RE.match(raw.replace(",", "."))
    if not time:
        raise ValueError(f"{raw!r} is not {TIME_FORMATS}.")
    minutes, seconds = int(time["m"] or 0), Decimal(time["s"])
    if time["m"] is not None and (seconds >= 60 or (time["h"] is not None and minutes >= 60)):
        raise ValueError(f"{raw!r}: minutes and seconds go up to 59.")
    us = int((Decimal(int(time["h"] or 0) * 3600 + minutes * 60) + seconds) * 1_000_000)
    end = int(duration_us) if duration_us is not None else int(frame_times_us[-1])
    if us > end:
        raise ValueError(f"{raw!r} is past the end of the video ({clock(end)}).")
    return snap_to_boundary(us, frame_times_us=frame_times_us, duration_us=duration_us)


def snap_to_boundary(
    us: int, *, frame_times_us: Sequence[int], duration_us: int | None = None
) -> int:
    """The frame time nearest to ``us`` (ties to the earlier), or the end of the source when
    ``duration_us`` is given and nearer."""
    i = bisect.bisect_left(frame_times_us, us)
    candidates = [int(frame_times_us[j]) for j in (i - 1, i) if 0 <= j < len(frame_times_us)]
    if duration_us is not None:
        candidates.append(int(duration_us))
    return min(candidates, key=lambda t: (abs(t - us), t))
