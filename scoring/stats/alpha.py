"""Krippendorff's alpha for nominal, ordinal, interval and ratio data, with missing values.

The textbook computation builds a values x values coincidence matrix, which is quadratic in the
number of distinct values and slow for continuous 0-100 scores. Here each level is reduced to
sums that never materialise that matrix (except the ratio level's expected term, computed in
bounded blocks):

* ``interval``: within a unit of ``m`` values, the sum of squared differences over ordered
  pairs is ``2 m SS`` (``SS`` = sum of squared deviations from the unit mean), so
  ``D_o`` and ``D_e`` are sums of squares.
* ``ordinal``: Krippendorff's ordinal distance between values ``c <= k`` is
  ``(sum_{g=c..k} n_g - (n_c + n_k) / 2)^2``, which equals ``(r_k - r_c)^2`` where
  ``r_v = (sum_{g<v} n_g) + n_v / 2`` is the mid-rank of ``v`` among the pairable values;
  ordinal alpha is therefore interval alpha on mid-ranks.
* ``nominal``: only the per-unit and overall sums of squared category counts are needed.
* ``ratio``: ``((a - b) / (a + b))^2`` (0 when ``a + b == 0``) is summed pairwise within units
  and over the distinct-value grid for the expected term.
"""

from __future__ import annotations

import numpy as np

from ._checks import as_float_array, as_labels, confidence_level, positive_int
from .bootstrap import picked_counts

LEVELS = ("nominal", "ordinal", "interval", "ratio")

# Upper bound on the number of float64 cells held by one temporary block (8 MiB).
_BLOCK_CELLS = 1 << 20


def krippendorff_alpha(data, level: str = "interval") -> float:
    """Krippendorff's alpha reliability coefficient.

    ``data`` has shape (raters, units); ``nan`` marks a missing rating. ``level`` is one of
    ``"nominal"``, ``"ordinal"``, ``"interval"`` or ``"ratio"`` and selects the distance
    ``delta(a, b)``: ``a != b``; squared mid-rank difference; ``(a - b)^2``;
    ``((a - b) / (a + b))^2`` (taken as 0 when ``a + b == 0``).

    Only units with at least two ratings are pairable. With ``m_u`` ratings in unit ``u`` and
    ``n = sum_u m_u`` pairable values::

        D_o   = sum_u 1 / (m_u - 1) * sum_{i != j in u} delta(v_i, v_j)
        D_e   = 1 / (n - 1)         * sum_{i != j over all pairable values} delta(v_i, v_j)
        alpha = 1 - D_o / D_e

    This matches the coincidence-matrix definition used by the ``krippendorff`` package.
    The paper (appendix H.2) reports it with ICC(2,k) for the human ratings.

    Returns a float (at most 1). Degenerate input gives ``nan``: no unit with two or more
    ratings (including all missing), or no variation among the pairable values
    (``D_e == 0``). Raises ``ValueError`` for a non-2-D array, infinite values or an unknown
    ``level``.
    """
    if not isinstance(level, str) or level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; expected one of {', '.join(LEVELS)}")
    x = as_float_array(data, "data", ndim=2)
    if np.isinf(x).any():
        raise ValueError("data must not contain infinite values (use nan for missing)")
    present = ~np.isnan(x)
    m = present.sum(axis=0)
    pairable = m >= 2
    if not pairable.any():
        return float("nan")
    x = x[:, pairable]
    present = present[:, pairable]
    m = m[pairable].astype(np.float64)
    values = x[present]
    if values.min() == values.max():
        return float("nan")

    if level == "nominal":
        d_o, d_e = _nominal_terms(x, present, m, values)
    elif level == "ratio":
        d_o, d_e = _ratio_terms(x, present, m, values)
    else:
        if level == "ordinal":
            x, values = _midranks(x, present, values)
        d_o, d_e = _interval_terms(x, present, m, values)
    if d_e == 0:
        return float("nan")
    return float(1.0 - d_o / d_e)


def _interval_terms(x, present, m, values):
    """Half of D_o and D_e for squared differences (the factor 2 cancels in the ratio)."""
    xz = np.where(present, x, 0.0)
    unit_mean = xz.sum(axis=0) / m
    dev = np.where(present, x - unit_mean, 0.0)
    ss_unit = np.einsum("ij,ij->j", dev, dev)
    d_o = float((m * ss_unit / (m - 1.0)).sum())
    n = values.size
    dv = values - values.mean()
    d_e = n * float(dv @ dv) / (n - 1.0)
    return d_o, d_e


def _midranks(x, present, values):
    """Replace each pairable value by its mid-rank among all pairable values."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    mid = np.cumsum(counts) - counts / 2.0
    ranked = mid[inverse]
    out = np.zeros_like(x)
    out[present] = ranked
    return out, ranked


def _nominal_terms(x, present, m, values):
    _, codes, counts = np.unique(values, return_inverse=True, return_counts=True)
    n_codes = counts.size
    _, unit = np.nonzero(present)  # same row-major order as x[present]
    keys, key_counts = np.unique(unit * n_codes + codes, return_counts=True)
    same_unit = np.bincount(
        keys // n_codes, weights=key_counts.astype(np.float64) ** 2, minlength=m.size
    )
    d_o = float(((m * m - same_unit) / (m - 1.0)).sum())
    n = float(values.size)
    counts = counts.astype(np.float64)
    d_e = (n * n - float(counts @ counts)) / (n - 1.0)
    return d_o, d_e


def _ratio_distance(a, b):
    total = a + b
    q = np.divide(a - b, total, out=np.zeros(np.broadcast(a, b).shape), where=total != 0)
    return q * q


def _ratio_terms(x, present, m, values):
    raters, units = x.shape
    xz = np.where(present, x, 0.0)
    step = max(1, _BLOCK_CELLS // (raters * raters))
    d_o = 0.0
    for start in range(0, units, step):
        block = slice(start, start + step)
        xs, ps = xz[:, block], present[:, block]
        dist = _ratio_distance(xs[:, None, :], xs[None, :, :])
        both = ps[:, None, :] & ps[None, :, :]
        per_unit = np.where(both, dist, 0.0).sum(axis=(0, 1))
        d_o += float((per_unit / (m[block] - 1.0)).sum())

    uniq, counts = np.unique(values, return_counts=True)
    counts = counts.astype(np.float64)
    step = max(1, _BLOCK_CELLS // uniq.size)
    total = 0.0
    for start in range(0, uniq.size, step):
        block = slice(start, start + step)
        dist = _ratio_distance(uniq[block, None], uniq[None, :])
        total += float(counts[block] @ dist @ counts)
    d_e = total / (values.size - 1.0)
    return d_o, d_e


def krippendorff_alpha_interval(
    data, clusters, *, n_resamples: int = 2000, seed=0, confidence: float = 0.95
) -> tuple[float, float]:
    """Source-video clustered percentile interval of interval-level Krippendorff's alpha, by
    the draw rule of :mod:`.bootstrap` (the same ``seed`` draws the same clusters as the other
    intervals of a report).

    ``data`` is (raters, units) as for :func:`krippendorff_alpha`; ``clusters`` (length units)
    names each unit's cluster. Units with fewer than two ratings are dropped first (they never
    count); the clusters are those of the remaining units. Replicate ``b`` repeats every unit of
    each drawn cluster as often as it was drawn, and its alpha is exactly
    :func:`krippendorff_alpha` of that expanded data: interval alpha is a ratio of sums over
    units (``D_o``: each unit's ``m SS / (m - 1)``; ``D_e``: ``(n S2 - S1^2) / (n - 1)`` from
    the count, sum and sum of squares of the pairable values), so every replicate is one matrix
    product of the draw counts with per-cluster sums. A replicate without variation has no alpha
    and is left out of the quantiles. Returns ``(nan, nan)`` with fewer than two clusters or no
    replicate with an alpha."""
    x = as_float_array(data, "data", ndim=2)
    labels = as_labels(clusters, "clusters", x.shape[1])
    n_resamples = positive_int(n_resamples, "n_resamples")
    confidence = confidence_level(confidence)
    if np.isinf(x).any():
        raise ValueError("data must not contain infinite values (use nan for missing)")
    present = ~np.isnan(x)
    m = present.sum(axis=0)
    pairable = m >= 2
    names, cluster = np.unique(labels[pairable], return_inverse=True)
    if names.size < 2:
        return float("nan"), float("nan")
    x, present, m = x[:, pairable], present[:, pairable], m[pairable].astype(np.float64)
    xz = np.where(present, x, 0.0)
    s1 = xz.sum(axis=0)
    s2 = (xz * xz).sum(axis=0)
    d_o = s2 - s1 * s1 / m  # SS of each unit
    d_o = m * d_o / (m - 1.0)
    per_cluster = np.zeros((names.size, 4))
    np.add.at(per_cluster, cluster, np.column_stack((d_o, m, s1, s2)))
    totals = picked_counts(names.size, n_resamples, seed) @ per_cluster
    obs, n, t1, t2 = totals.T
    expected = (n * t2 - t1 * t1) / (n - 1.0)
    varied = expected > 1e-12 * np.maximum(n * t2, 1.0)  # all values equal: no alpha
    with np.errstate(divide="ignore", invalid="ignore"):
        replicates = np.where(varied, 1.0 - obs / expected, np.nan)
    replicates = replicates[np.isfinite(replicates)]
    if replicates.size == 0:
        return float("nan"), float("nan")
    low, high = np.quantile(replicates, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(low), float(high)
