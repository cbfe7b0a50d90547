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

from review.audit.criteria import INVALID, LABELS, VALID

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


_PENDING = Resolution(PENDING)
_WAITING = Resolution(NEEDS_ADJUDICATION)
_BY_MAJORITY = {VALID: Resolution(RESOLVED, VALID, "majority"),
                INVALID: Resolution(RESOLVED, INVALID, "majority")}  # fmt: skip
_BY_ADJUDICATION = {VALID: Resolution(RESOLVED, VALID, "adjudication"),
                    INVALID: Resolution(RESOLVED, INVALID, "adjudication")}  # fmt: skip


def resolve_counts(
    valid: int, invalid: int, total: int, *, required: int, adjudication: str | None = None
) -> Resolution:
    """``resolve`` from the label counts (``total`` labels, of which ``valid`` and ``invalid``)."""
    if valid >= 2 and valid > invalid:
        return _BY_MAJORITY[VALID]
    if invalid >= 2 and invalid > valid:
        return _BY_MAJORITY[INVALID]
    if total < required:
        return _PENDING
    if adjudication is not None:
        try:
            return _BY_ADJUDICATION[adjudication]
        except KeyError:
            raise ValueError(f"an adjudication is valid or invalid, not {adjudication!r}") from None
    return _WAITING


def resolve(labels: Iterable[str], *, required: int, adjudication: str | None = None) -> Resolution:
    """The state of one (item, criterion): ``labels`` are the current decisions (one per
    reviewer), ``required`` how many the campaign asks for, ``adjudication`` the adjudicator's
    label if there is one."""
    labels = list(labels)
    majority(labels)  # checks the labels
    return resolve_counts(labels.count(VALID), labels.count(INVALID), len(labels),
                          required=required, adjudication=adjudication)  # fmt: skip
