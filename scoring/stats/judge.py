"""Automatic-judge versus human agreement (eqs. 38-41)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from ._checks import as_float_array, as_labels
from .bootstrap import _bootstrap_args, picked_counts

JUDGE_KEYS = ("pearson", "spearman", "kendall_tau_b", "mae", "bias", "large_disagreement_rate")


def _correlation(fn, x: np.ndarray, y: np.ndarray) -> float:
    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(fn(x, y)[0])


def _kendall_tau_b(x, y):
    from scipy import stats  # scipy.stats takes seconds to import: only where it is used

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
    from scipy import stats

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


CORRELATION_KEYS = ("pearson", "spearman", "kendall_tau_b")


def judge_correlation_intervals(
    judge, human, clusters, *, n_resamples: int = 2000, seed=0, confidence: float = 0.95
) -> dict[str, tuple[float, float]]:
    """Source-video clustered percentile intervals of the three correlations of
    :func:`judge_agreement`, by the draw rule of :mod:`.bootstrap` (the same ``seed`` gives the
    same replicates as ``clustered_bootstrap`` of the MAE on these items, so the intervals are
    paired with it).

    Replicate ``b`` is the expanded sample of step 4 (every item of every drawn cluster, repeats
    included); its statistics are scipy's ``pearsonr``, ``spearmanr`` (average ranks for ties)
    and ``kendalltau(variant="b")`` of that sample, computed here from the draw counts without
    expanding it. A replicate where either side has no variation has no correlation and is left
    out of the quantiles. Items where either score is not finite are dropped first.

    Degenerate input: fewer than two items or two clusters, or no replicate with a
    correlation, gives ``(nan, nan)``. Raises ``ValueError`` for mismatched inputs or invalid
    bootstrap settings.
    """
    j = as_float_array(judge, "judge", ndim=1)
    h = as_float_array(human, "human", ndim=1)
    if j.size != h.size:
        raise ValueError(f"judge and human must have the same length, got {j.size} and {h.size}")
    c = as_labels(clusters, "clusters", j.size)
    n_resamples, confidence = _bootstrap_args(n_resamples, confidence)
    valid = np.isfinite(j) & np.isfinite(h)
    j, h, c = j[valid], h[valid], c[valid]
    missing = dict.fromkeys(CORRELATION_KEYS, (math.nan, math.nan))
    if j.size < 2:
        return missing
    labels, inverse = np.unique(c, return_inverse=True)
    if labels.size < 2:
        return missing
    w = picked_counts(labels.size, n_resamples, seed)[:, inverse]  # (R, n) copies of each item
    replicates = {
        "pearson": _weighted_pearson(w, j, h),
        "spearman": _weighted_pearson(w, _midranks(w, j), _midranks(w, h)),
        "kendall_tau_b": _weighted_tau_b(w, j, h),
    }
    q = [(1 - confidence) / 2, (1 + confidence) / 2]
    out = {}
    for key, r in replicates.items():
        r = r[np.isfinite(r)]
        out[key] = tuple(float(x) for x in np.quantile(r, q)) if r.size else (math.nan, math.nan)
    return out


def _varies(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Per replicate: does ``x`` (1-D, or one row per replicate) take two values among the
    items drawn at least once?"""
    x = np.broadcast_to(x, w.shape)
    drawn = w > 0
    return np.where(drawn, x, -np.inf).max(axis=1) > np.where(drawn, x, np.inf).min(axis=1)


def _weighted_pearson(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    total = w.sum(axis=1)
    dx = x - (w * x).sum(axis=1)[:, None] / total[:, None]
    dy = y - (w * y).sum(axis=1)[:, None] / total[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (w * dx * dy).sum(axis=1) / np.sqrt(
            (w * dx * dx).sum(axis=1) * (w * dy * dy).sum(axis=1)
        )
    r[~(_varies(w, x) & _varies(w, y))] = np.nan
    return np.clip(r, -1.0, 1.0)


def _midranks(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """(R, n): each item's average rank in replicate b's expanded sample (ties share it)."""
    values, group = np.unique(x, return_inverse=True)
    onehot = (group[:, None] == np.arange(values.size)[None, :]).astype(float)
    per_value = w @ onehot  # (R, U) copies of each distinct value
    before = np.cumsum(per_value, axis=1) - per_value
    return (before + (per_value + 1) / 2)[:, group]


def _weighted_tau_b(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each expanded sample. Two copies of one item are tied on both sides;
    copies of items i != j form w_i * w_j pairs."""
    sx = np.sign(x[:, None] - x[None, :])
    sy = np.sign(y[:, None] - y[None, :])
    n = w.sum(axis=1)
    pairs = n * (n - 1) / 2
    concordance = ((w @ (sx * sy)) * w).sum(axis=1) / 2  # P - Q
    tied_x = (((w @ (sx == 0).astype(float)) * w).sum(axis=1) - n) / 2
    tied_y = (((w @ (sy == 0).astype(float)) * w).sum(axis=1) - n) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = concordance / np.sqrt((pairs - tied_x) * (pairs - tied_y))
    tau[~(_varies(w, x) & _varies(w, y))] = np.nan
    return np.clip(tau, -1.0, 1.0)
