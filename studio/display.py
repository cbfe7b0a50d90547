"""How pages, the admin and the API show times, dates and frame rates to people: one format for
each, everywhere."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal

from django.utils import timezone
from django.utils.translation import ngettext


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


def form_problems(form) -> str:
    """A form's errors in one line, each named as the page labels its field: ``Endpoint: This
    field is required.``"""
    parts = []
    for name, errors in form.errors.items():
        prefix = f"{form[name].label}: " if name in form.fields else ""
        parts.extend(prefix + str(e) for e in errors)
    return "; ".join(parts)


def frame_rate(num: int, den: int) -> str:
    """A rational frame rate and its decimal: ``30000/1001 = 29.97``, ``30/1 = 30``."""
    if not den:
        return f"{num}/{den}"
    decimal = f"{num / den:.3f}".rstrip("0").rstrip(".")
    return f"{num}/{den} = {decimal}"


# The frame a mark names, in the workspace's words (static/js/panel.js, _frameText): a cutoff
# is the first frame withheld, so people read the last frame shown; an end, the step's last
# frame; any other mark, the frame it begins. Frames are numbered from 0, as the player shows.
def frame_words(mark: str | None, boundary: int) -> str:
    """``boundary`` is the index of the first frame at or after the mark."""
    if mark in ("cutoff", "cutoff_us"):
        return f"last shown #{boundary - 1}" if boundary > 0 else "no frame shown"
    if mark in ("end", "end_us"):
        return f"last #{boundary - 1}" if boundary > 0 else "no frame"
    return f"frame #{boundary}"


def timecode(us: int | None, *, frame: int | None = None, mark: str | None = None) -> str:
    """A time as people read it everywhere: ``0:04.200 · frame #126``, or for a cutoff
    ``0:04.200 · last shown #125`` (``frame``: the first frame at or after ``us``; left out when
    it is not known)."""
    if us is None:
        return "—"
    if frame is None:
        return clock(us)
    return f"{clock(us)} · {frame_words(mark, frame)}"


def duration(us: int | None, *, frames: int | None = None) -> str:
    """A length: ``1:00.000 · 1800 frames``."""
    if us is None:
        return "—"
    if frames is None:
        return clock(us)
    return f"{clock(us)} · {count(frames, 'frame', 'frames')}"


def count(n: int, singular: str, plural: str) -> str:
    """``1 criterion``, ``3 criteria``: the number with the right form (Django's ngettext, so a
    translation may supply its own forms)."""
    return f"{n} {ngettext(singular, plural, n)}"


EN_DASH = "\u2013"


def span(start_us: int | None, end_us: int | None) -> str:
    """A stretch of a video: ``0:12.000\u20130:13.400`` (an en dash between)."""
    if start_us is None or end_us is None:
        return "—"
    return f"{clock(start_us)}{EN_DASH}{clock(end_us)}"


def moment(value: datetime | str | None) -> str:
    """A moment for people: to the second, in the current time zone (the person's, see
    studio.middleware.TimeZoneMiddleware), with the zone's name: ``2026-03-01 15:05:09 CET``.
    Takes an aware datetime or its ISO 8601 text."""
    if value is None or value == "":
        return "—"
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return value
        if timezone.is_naive(value):
            value = timezone.make_aware(value, UTC)
    local = timezone.localtime(value)
    return f"{local:%Y-%m-%d %H:%M:%S} {local.tzname() or ''}".rstrip()


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
