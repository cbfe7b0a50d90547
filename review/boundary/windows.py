"""The boundary audit's fixed vocabulary: the four condition windows a reviewer rules on, what
each must show to be valid, and each reviewer's seeded order of them. Plain data, no Django.

The windows themselves come from ``media.windows.condition_window`` (the one definition the
model runs use too); this module only names them for people.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass

from media.windows import CONDITIONS_VOCABULARY
from review.audit.criteria import (
    ADJUDICATION_LABELS,
    INVALID,
    LABELS,
    UNCERTAIN,
    VALID,
    WINDOW_NAMES,
)

__all__ = [
    "ADJUDICATION_LABELS",
    "INVALID",
    "LABELS",
    "UNCERTAIN",
    "VALID",
    "WINDOWS",
    "WINDOW_NAMES",
    "window_order",
]


@dataclass(frozen=True)
class WindowRule:
    name: str  # the condition (media.windows.Condition value)
    requirement: str  # what "valid" means, in the reviewer's words

    @property
    def label(self) -> str:
        """The condition's one label (media.windows)."""
        return CONDITIONS_VOCABULARY.label(self.name)


WINDOWS: tuple[WindowRule, ...] = (
    WindowRule(
        "early",
        "Ends before the official cutoff, and the action is still visibly under way at its "
        "last frame.",
    ),
    WindowRule(
        "official",
        "Ends before the decisive outcome of the step can be seen.",
    ),
    WindowRule(
        "outcome_visible",
        "Runs far enough that the result of the step can be seen.",
    ),
    WindowRule(
        "next_visible",
        "Runs on into the following step, so the beginning of that next action can be seen.",
    ),
)
BY_NAME: dict[str, WindowRule] = {w.name: w for w in WINDOWS}


def window_key(person_id: int, sample_id, seed: int, window: str) -> str:
    """Lowercase hex SHA-256 of ``"{person_id}:{sample_id}:{seed}:{window}"`` (the campaign's
    item order key with the window's name appended)."""
    text = f"{int(person_id)}:{uuid.UUID(str(sample_id))}:{int(seed)}:{window}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def window_order(person_id: int, sample_id, seed: int, windows=WINDOW_NAMES) -> list[str]:
    """The windows of one item in the order this person meets them: by ``window_key``
    ascending. Different per person and item, the same on every machine."""
    return sorted(windows, key=lambda w: window_key(person_id, sample_id, seed, w))
