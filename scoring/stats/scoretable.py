"""Per-item score tables of a study and the two failure rules (appendix I.3).

A :class:`ScoreTable` holds, for M models x C conditions x N items, the judge's scores on D
dimensions and the *status* of every cell (what happened to that model's prediction of that
item under that condition). The two rules turn it into values to average:

- **Full benchmark** (:func:`benchmark_values`): every item counts; a cell that is not ``OK``
  scores 0 on every dimension (coverage is part of performance).
- **Controlled studies** (:func:`controlled_valid`, :func:`controlled_values`): an item whose
  cell is an execution failure (or not usable for another reason below) for *any* model under a
  condition is removed from that condition for *every* model, and counted. A model-side invalid
  answer (``INVALID``: the reply broke its contract) is an answer, and scores 0.

Status codes (:class:`Cell`), in the order exclusions are attributed:

=================== =================================================================
``OK``              prediction ok and judged ok: the scores are used
``INVALID``         the model's reply was not a valid answer (parse failure): 0
``EXECUTION``       a stable provider refusal (content filter, media rejected): removed
``API_ERROR``       the call failed after its retries (transient; belongs rerun): removed
``NO_JUDGEMENT``    the prediction is ok but its judgement is missing or failed: removed
``PENDING``         not run (or not judged) yet: removed
``NO_WINDOW``       the condition has no window for this step (Next visible on a
                    video's last step): removed
=================== =================================================================

Besides cells, a condition can declare an item's window invalid (the human boundary audit):
``window_valid[c, i] = False`` removes item i from condition c for every model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from ._checks import as_labels


class Cell(IntEnum):
    OK = 0
    INVALID = 1
    EXECUTION = 2
    API_ERROR = 3
    NO_JUDGEMENT = 4
    PENDING = 5
    NO_WINDOW = 6


#: Exclusion reasons as reported (the status names, lower case), plus the window audit.
REMOVING = (Cell.EXECUTION, Cell.API_ERROR, Cell.NO_JUDGEMENT, Cell.PENDING, Cell.NO_WINDOW)
REASON_NAMES = {
    Cell.EXECUTION: "execution_failure",
    Cell.API_ERROR: "api_error",
    Cell.NO_JUDGEMENT: "missing_judgement",
    Cell.PENDING: "pending",
    Cell.NO_WINDOW: "no_window",
}
INVALID_WINDOW = "invalid_window"


@dataclass(frozen=True)
class ScoreTable:
    """Scores and cell statuses of a study.

    ``scores`` has shape (M, C, N, D) (``nan`` where there is no score); ``status`` (M, C, N)
    holds :class:`Cell` codes; ``items``, ``videos`` and ``scenes`` are 1-D of length N (the
    sample id, its source video = the bootstrap cluster, its scene); ``strata`` maps a name
    (``duration_bin``, a tag) to 1-D labels of length N (``None``/empty = no label);
    ``window_valid`` is (C, N) booleans or ``None`` (no window audit).
    """

    models: tuple[str, ...]
    conditions: tuple[str, ...]
    dimensions: tuple[str, ...]
    items: np.ndarray
    videos: np.ndarray
    scenes: np.ndarray
    scores: np.ndarray
    status: np.ndarray
    strata: dict = field(default_factory=dict)
    window_valid: np.ndarray | None = None

    def __post_init__(self):
        m, c, d = len(self.models), len(self.conditions), len(self.dimensions)
        n = len(self.items)
        scores = np.asarray(self.scores, dtype=np.float64)
        status = np.asarray(self.status)
        if scores.shape != (m, c, n, d):
            raise ValueError(f"scores must have shape {(m, c, n, d)}, got {scores.shape}")
        if status.shape != (m, c, n):
            raise ValueError(f"status must have shape {(m, c, n)}, got {status.shape}")
        if status.size and not np.isin(status, [int(x) for x in Cell]).all():
            raise ValueError("status holds a code that is not a Cell")
        ok = status == Cell.OK
        if not np.isfinite(scores[ok]).all():
            raise ValueError("an OK cell must have a finite score on every dimension")
        for name in ("items", "videos", "scenes"):
            object.__setattr__(self, name, as_labels(getattr(self, name), name, n))
        for name, labels in self.strata.items():
            as_labels(labels, f"stratum {name}", n)
        if self.window_valid is not None:
            wv = np.asarray(self.window_valid, dtype=bool)
            if wv.shape != (c, n):
                raise ValueError(f"window_valid must have shape {(c, n)}, got {wv.shape}")
            object.__setattr__(self, "window_valid", wv)
        if len(set(self.items.tolist())) != n:
            raise ValueError("items must be unique")
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "status", status.astype(np.int8))


def benchmark_values(table: ScoreTable) -> np.ndarray:
    """Full-benchmark values (M, C, N, D): the scores of OK cells, 0 for every other cell (a
    missing score is never ``nan`` here: coverage is part of performance)."""
    ok = (table.status == Cell.OK)[..., None]
    return np.where(ok, table.scores, 0.0)


def controlled_valid(table: ScoreTable) -> np.ndarray:
    """The valid set of every condition (C, N): items usable for *all* models (appendix I.3);
    an empty table gives an empty mask (the values outside it become ``nan``)."""
    usable = np.isin(table.status, [Cell.OK, Cell.INVALID]).all(axis=0)
    if table.window_valid is not None:
        usable &= table.window_valid
    return usable


def controlled_values(table: ScoreTable) -> np.ndarray:
    """Controlled-study values (M, C, N, D): OK scores, 0 for INVALID, ``nan`` for every item
    outside its condition's valid set (for every model alike)."""
    values = np.where((table.status == Cell.INVALID)[..., None], 0.0, table.scores)
    valid = controlled_valid(table)[None, :, :, None]
    return np.where(valid, values, np.nan)


def exclusions(table: ScoreTable) -> list[dict]:
    """What each rule removed, per condition: the items, the removed count, per reason the
    items it alone or with others removed (an item can have several reasons), and per model and
    reason the cells with that status. Counts only (no ``nan``); a condition with nothing removed
    has empty ``by_reason``."""
    valid = controlled_valid(table)
    out = []
    for ci, condition in enumerate(table.conditions):
        st = table.status[:, ci, :]
        by_reason = {}
        for code in REMOVING:
            count = int((st == code).any(axis=0).sum())
            if count:
                by_reason[REASON_NAMES[code]] = count
        if table.window_valid is not None:
            count = int((~table.window_valid[ci]).sum())
            if count:
                by_reason[INVALID_WINDOW] = count
        by_model = {}
        for mi, model in enumerate(table.models):
            counts = {REASON_NAMES[c]: int((st[mi] == c).sum()) for c in REMOVING}
            counts["invalid_answer_scored_0"] = int((st[mi] == Cell.INVALID).sum())
            by_model[model] = {k: v for k, v in counts.items() if v}
        out.append(
            {
                "condition": condition,
                "items": len(table.items),
                "valid": int(valid[ci].sum()),
                "removed": int((~valid[ci]).sum()),
                "by_reason": by_reason,
                "by_model": by_model,
            }
        )
    return out
