"""How pages, the admin and the API show times, dates and frame rates to people: one format for
each, everywhere."""

from __future__ import annotations

from datetime import datetime

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
