"""The one definition of every observation condition's window, and of frame sampling.

Pure functions of plain integers (microseconds, see ``media.timebase``): the caller passes the
times of a step and of its neighbours; nothing here knows about labels or database rows.

Windows are unions of half-open intervals ``[a, b)`` on the source timeline. A frame at time
``t`` belongs to ``[a, b)`` when ``a <= t < b``. Because a step's marks are frame times and
``cutoff`` is the first frame withheld, ``[start, cutoff)`` ends on exactly the last frame the
annotator saw before the cutoff.

Conditions (PROTOCOL §2; paper appendices E.1, F.1, G.1):

============== ==========================================================================
official       ``[start, cutoff)`` — the released observation (also ``step_only``)
early          ``[start, cutoff - 0.5 s)``
outcome_visible ``[start, outcome]`` — through the first frame where the outcome is visible
next_visible   ``[start, next.start + 1 s)``, never past the next step's own cutoff
history_5s     ``[max(0, start - 5 s), cutoff)``
history_15s    ``[max(0, start - 15 s), cutoff)``
previous_step  ``[prev.start, prev.end) + [start, cutoff)`` — the gap between them excluded;
               without a previous step it is ``[start, cutoff)`` and the window says so
ordered        the official window, 16 uniformly sampled frames in time order
shuffled       the same 16 frames in a seeded permutation (stored with the medium)
last_frame     the official window's last frame
first_frame    the official window's first frame
============== ==========================================================================

``scene_only`` and ``prompt_only`` carry no sample media and have no window.

The audit's *context* window (not a model condition; ``context_window``) is what a reviewer sees
after judging the observation: ``[prev.start, next.end)``, or ``start - 5 s`` / ``end + 5 s`` where
there is no neighbour, clamped to the video.

Short windows: a window that holds no frame (for example Early on a step whose observation is
at most 0.5 s long) uses the *nearest decoded boundary frame*: the last frame before the
window's end (frame 0 if the end is at or before the first frame). It never reaches past the end.

Sampling rule: a window holding ``n`` frames gives ``count`` samples at positions
``round(k·(n-1)/(count-1))`` for ``k = 0 … count-1`` (halves round up), so the first and the last
frame of the window are always included and, when ``n < count``, frames repeat in time order.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from media.timebase import US_PER_SECOND, frames_in_window
from studio.vocabulary import vocabulary

EARLY_SHIFT_US = US_PER_SECOND // 2
HISTORY_SHORT_US = 5 * US_PER_SECOND
HISTORY_LONG_US = 15 * US_PER_SECOND
NEXT_LEAD_US = US_PER_SECOND
FRAME_BUDGET = 16


class Condition(StrEnum):
    OFFICIAL = "official"
    EARLY = "early"
    OUTCOME_VISIBLE = "outcome_visible"
    NEXT_VISIBLE = "next_visible"
    STEP_ONLY = "step_only"
    HISTORY_5S = "history_5s"
    HISTORY_15S = "history_15s"
    PREVIOUS_STEP = "previous_step"
    ORDERED = "ordered"
    SHUFFLED = "shuffled"
    LAST_FRAME = "last_frame"
    FIRST_FRAME = "first_frame"


# Conditions that are a set of frames whatever the render profile, and how they are ordered.
FRAME_CONDITIONS = {
    Condition.ORDERED: "chronological",
    Condition.SHUFFLED: "shuffled",
    Condition.LAST_FRAME: "last",
    Condition.FIRST_FRAME: "first",
}
NO_MEDIA_CONDITIONS = ("scene_only", "prompt_only")

# How people read the conditions (pages, charts); runs, exports and the API keep the codes.
CONDITIONS_VOCABULARY = vocabulary(
    "condition",
    {
        Condition.OFFICIAL: "Official",
        Condition.EARLY: "Early",
        Condition.OUTCOME_VISIBLE: "Outcome visible",
        Condition.NEXT_VISIBLE: "Next visible",
        Condition.STEP_ONLY: "Step only",
        Condition.HISTORY_5S: "5 s of history",
        Condition.HISTORY_15S: "15 s of history",
        Condition.PREVIOUS_STEP: "Previous step",
        Condition.ORDERED: "Frames in order",
        Condition.SHUFFLED: "Frames shuffled",
        Condition.LAST_FRAME: "Last frame",
        Condition.FIRST_FRAME: "First frame",
        "scene_only": "Scene only",
        "prompt_only": "Prompt only",
    },
    title="Condition",
)


class WindowUnavailable(ValueError):
    """The condition cannot be built for this step (for example Next visible on the last step)."""


@dataclass(frozen=True)
class StepTimes:
    start_us: int
    cutoff_us: int
    outcome_us: int
    end_us: int

    def __post_init__(self):
        if not (0 <= self.start_us < self.cutoff_us <= self.outcome_us <= self.end_us):
            raise ValueError(
                "step times must satisfy 0 <= start < cutoff <= outcome <= end, got "
                f"{self.start_us}, {self.cutoff_us}, {self.outcome_us}, {self.end_us}"
            )


@dataclass(frozen=True)
class Window:
    condition: str
    segments: tuple[tuple[int, int], ...]  # half-open [a, b), ascending, disjoint
    note: str = ""  # why the window is not the textbook one (fallbacks), for the manifest
    order: str = "chronological"  # for frame sets: chronological, shuffled, last, first

    @property
    def start_us(self) -> int:
        return self.segments[0][0]

    @property
    def stop_us(self) -> int:
        return self.segments[-1][1]

    def as_dict(self) -> dict:
        return {
            "condition": self.condition,
            "segments": [list(s) for s in self.segments],
            "note": self.note,
            "order": self.order,
        }


def _one(condition: str, a: int, b: int, note: str = "", order: str = "chronological") -> Window:
    return Window(condition, ((a, b),), note, order)


def condition_window(
    condition: str,
    *,
    step: StepTimes,
    previous: StepTimes | None = None,
    following: StepTimes | None = None,
) -> Window:
    """The window of ``condition`` for ``step``, given its neighbours in the same video."""
    try:
        condition = Condition(condition)
    except ValueError:
        if condition in NO_MEDIA_CONDITIONS:
            raise WindowUnavailable(f"{condition} carries no sample media") from None
        raise WindowUnavailable(f"unknown condition {condition!r}") from None
    start, cutoff = step.start_us, step.cutoff_us
    match condition:
        case Condition.OFFICIAL | Condition.STEP_ONLY:
            return _one(condition, start, cutoff)
        case Condition.EARLY:
            stop = cutoff - EARLY_SHIFT_US
            note = "" if stop > start else "observation not longer than 0.5 s: boundary frame"
            return _one(condition, start, max(stop, start), note)
        case Condition.OUTCOME_VISIBLE:
            # +1 µs makes the half-open window include the outcome frame itself and no later one.
            return _one(condition, start, step.outcome_us + 1)
        case Condition.NEXT_VISIBLE:
            if following is None:
                raise WindowUnavailable("next_visible needs a following step; this is the last")
            if following.start_us < step.start_us:
                raise ValueError("the following step starts before this one")
            stop = min(following.start_us + NEXT_LEAD_US, following.cutoff_us)
            return _one(condition, start, stop)
        case Condition.HISTORY_5S:
            return _one(condition, max(0, start - HISTORY_SHORT_US), cutoff)
        case Condition.HISTORY_15S:
            return _one(condition, max(0, start - HISTORY_LONG_US), cutoff)
        case Condition.PREVIOUS_STEP:
            if previous is None:
                return _one(condition, start, cutoff, "no previous step: step-only window")
            if previous.start_us >= start:
                raise ValueError("the previous step must start before this one")
            prev_stop = min(previous.end_us, start)
            if prev_stop >= start:  # adjacent steps: one continuous window
                return _one(condition, previous.start_us, cutoff)
            return Window(condition, ((previous.start_us, prev_stop), (start, cutoff)))
        case _:
            return _one(condition, start, cutoff, order=FRAME_CONDITIONS[condition])


CONTEXT_PAD_US = 5 * US_PER_SECOND


def context_window(
    *,
    step: StepTimes,
    duration_us: int,
    previous: StepTimes | None = None,
    following: StepTimes | None = None,
) -> Window:
    """The surrounding source context of a step (the audit's second phase): from the previous
    step's start (or 5 s before the step) to the next step's end (or 5 s after), inside
    ``[0, duration_us)``. Its marks (cutoff, outcome) are the step's own times."""
    start = previous.start_us if previous is not None else step.start_us - CONTEXT_PAD_US
    stop = following.end_us if following is not None else step.end_us + CONTEXT_PAD_US
    start, stop = max(0, min(start, step.start_us)), min(duration_us, max(stop, step.end_us))
    notes = [
        "no previous step: 5 s before" if previous is None else "",
        "no next step: 5 s after" if following is None else "",
    ]
    return _one("context", start, stop, "; ".join(n for n in notes if n))


# --- frames of a window ----------------------------------------------------------------------


@dataclass(frozen=True)
class FrameSelection:
    indices: tuple[int, ...]  # source frame indices, time order, each once
    boundary_fallback: bool = False  # the window held no frame; the boundary frame stands in
    segment_starts: tuple[int, ...] = field(default=())  # positions where a new segment begins


def window_frames(times_us: np.ndarray, window: Window) -> FrameSelection:
    """Every source frame inside ``window`` (or the nearest boundary frame if there is none)."""
    parts, starts, position = [], [], 0
    for a, b in window.segments:
        found = frames_in_window(times_us, a, b)
        if found.size:
            starts.append(position)
            parts.append(found)
            position += found.size
    if not parts:
        # The last frame before the window's end, clamped to the first frame.
        boundary = max(int(np.searchsorted(times_us, window.stop_us, side="left")) - 1, 0)
        return FrameSelection((boundary,), boundary_fallback=True, segment_starts=(0,))
    indices = np.concatenate(parts)
    return FrameSelection(tuple(int(i) for i in indices), segment_starts=tuple(starts))


def sample_positions(n: int, count: int = FRAME_BUDGET) -> tuple[int, ...]:
    """Positions (0 … n-1) of ``count`` uniform samples; first and last always included."""
    if n <= 0:
        raise ValueError("cannot sample from an empty window")
    if count == 1:
        return (n - 1,)
    return tuple((2 * k * (n - 1) + (count - 1)) // (2 * (count - 1)) for k in range(count))


def shuffle_permutation(count: int, seed: int | str) -> tuple[int, ...]:
    """A seeded permutation of ``range(count)``; the same on every machine and library version."""

    def rank(i: int) -> bytes:
        return hashlib.sha256(f"{seed}:{i}".encode()).digest()

    return tuple(sorted(range(count), key=rank))


def frame_set(
    times_us: np.ndarray, window: Window, *, count: int = FRAME_BUDGET, seed: int | str = 0
) -> tuple[tuple[int, ...], tuple[int, ...] | None, bool]:
    """Source frame indices of a frame set in presentation order, the permutation (shuffled
    only) and whether the boundary fallback was used."""
    selection = window_frames(times_us, window)
    n = len(selection.indices)
    if window.order == "last":
        return (selection.indices[-1],), None, selection.boundary_fallback
    if window.order == "first":
        return (selection.indices[0],), None, selection.boundary_fallback
    chronological = tuple(selection.indices[p] for p in sample_positions(n, count))
    if window.order == "shuffled":
        permutation = shuffle_permutation(count, seed)
        return (
            tuple(chronological[p] for p in permutation),
            permutation,
            selection.boundary_fallback,
        )
    return chronological, None, selection.boundary_fallback
