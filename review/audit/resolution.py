"""Resolution of one (item, criterion) from the reviewers' labels (paper appendix B.2).

Pure functions over label strings; the database layer feeds them the current (not superseded)
decisions and the adjudication, if any.

Rules:

- at least two reviewers agree on ``valid`` → resolved ``valid``; at least two agree on
  ``invalid`` → resolved ``invalid`` (with three reviewers both cannot happen; with more, the
  larger group wins and a tie is a disagreement);
- otherwise — a three-way split, two or more ``uncertain``, a lone label — the pair waits:
  while fewer decisions are in than the campaign asks for it is *pending*; once all are in it
  *needs adjudication*;
- an adjudicator's ``valid`` or ``invalid`` resolves a pair that needs it. A majority always
  wins over an adjudication (a reviewer who changed their mind before the campaign closed may
  have made one).

A pair that is not resolved is never counted as valid.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from review.audit.criteria import ADJUDICATION_LABELS, INVALID, LABELS, VALID

RESOLVED = "resolved"
PENDING = "pending"
NEEDS_ADJUDICATION = "needs_adjudication"


@dataclass(frozen=True)
class Resolution:
    state: str  # RESOLVED, PENDING or NEEDS_ADJUDICATION
    label: str | None = None  # "valid" or "invalid" once resolved
    by: str = ""  # "majority" or "adjudication" once resolved

    @property
    def is_valid(self) -> bool:
        return self.state == RESOLVED and self.label == VALID


def majority(labels: Iterable[str]) -> str | None:
    """``valid`` or ``invalid`` when at least two labels agree on it (and more agree on it than
    on the other), else None."""
    counts = Counter(labels)
    unknown = set(counts) - set(LABELS)
    if unknown:
        raise ValueError(f"unknown label(s) {sorted(unknown)}; expected one of {LABELS}")
    valid, invalid = counts[VALID], counts[INVALID]
    if valid >= 2 and valid > invalid:
        return VALID
    if invalid >= 2 and invalid > valid:
        return INVALID
    return None


def resolve(labels: Iterable[str], *, required: int, adjudication: str | None = None) -> Resolution:
    """The state of one (item, criterion): ``labels`` are the current decisions (one per
    reviewer), ``required`` how many the campaign asks for, ``adjudication`` the adjudicator's
    label if there is one."""
    labels = list(labels)
    found = majority(labels)
    if found is not None:
        return Resolution(RESOLVED, found, "majority")
    if len(labels) < required:
        return Resolution(PENDING)
    if adjudication is not None:
        if adjudication not in ADJUDICATION_LABELS:
            raise ValueError(f"an adjudication is valid or invalid, not {adjudication!r}")
        return Resolution(RESOLVED, adjudication, "adjudication")
    return Resolution(NEEDS_ADJUDICATION)
