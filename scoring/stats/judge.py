"""Automatic-judge versus human agreement (eqs. 38-41)."""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import stats

from ._checks import as_float_array

JUDGE_KEYS = ("pearson", "spearman", "kendall_tau_b", "mae", "bias", "large_disagreement_rate")


def _correlation(fn, x: np.ndarray, y: np.ndarray) -> float:
    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(fn(x, y)[0])


def _kendall_tau_b(x, y):
    return stats.kendalltau(x, y, variant="b")


def judge_agreement(judge, human, *, large: float = 25.0) -> dict[str, float]:
    """Agreement of judge scores ``J`` with human consensus scores ``H`` (eqs. 38-41).

    ``judge`` and ``human`` are 1-D of equal length: one score per item (e.g. 0-100 for one
    dimension, or the per-item average of eq. 40 for the combined score). Items where either
    score is not finite are dropped; n is the number of remaining pairs. Returns a dict with

    * ``pearson``, ``spearman``, ``kendall_tau_b``: scipy.stats ``pearsonr``, ``spearmanr`` and
      ``kendalltau(variant="b")`` correlations;
    * ``mae`` = ``mean |J - H|`` (eq. 38);
    * ``bias`` = ``mean (J - H)`` (eq. 39; positive means the judge scores higher);
    * ``large_disagreement_rate`` = ``mean 1(|J - H| >= large)`` (eq. 41, ``large = 25``).

    Degenerate input: n = 0 gives ``nan`` for every key; a correlation is ``nan`` when n < 2 or
    either side has no variation. Raises ``ValueError`` for non-1-D or mismatched inputs or a
    non-finite ``large``.
    """
    j = as_float_array(judge, "judge", ndim=1)
    h = as_float_array(human, "human", ndim=1)
    if j.size != h.size:
        raise ValueError(f"judge and human must have the same length, got {j.size} and {h.size}")
    large = float(large)
    if not math.isfinite(large):
        raise ValueError(f"large must be finite, got {large!r}")
    valid = np.isfinite(j) & np.isfinite(h)
    j, h = j[valid], h[valid]
    if j.size == 0:
        return dict.fromkeys(JUDGE_KEYS, float("nan"))
    err = j - h
    abs_err = np.abs(err)
    return {
        "pearson": _correlation(stats.pearsonr, j, h),
        "spearman": _correlation(stats.spearmanr, j, h),
        "kendall_tau_b": _correlation(_kendall_tau_b, j, h),
        "mae": float(abs_err.mean()),
        "bias": float(err.mean()),
        "large_disagreement_rate": float((abs_err >= large).mean()),
    }
