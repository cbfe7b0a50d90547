"""Source-video clustered percentile bootstrap (eq. 21, appendix I.2) and paired effects (eq. 45).

Draw rule (reproducible with a plain loop)
-----------------------------------------
1. Drop items whose value is not finite (``nan``/``inf`` = missing).
2. ``labels = numpy.unique(clusters of the remaining items)``; ``K = len(labels)``. Cluster
   ``j`` is ``labels[j]`` (numpy's sorted order); clusters left without items are gone.
3. ``rng = numpy.random.default_rng(seed)``;
   ``draws = rng.integers(0, K, size=(n_resamples, K))`` -- one call, nothing else is drawn.
4. Replicate ``b`` concatenates, for ``j`` in ``draws[b]`` (with repeats), every item of
   cluster ``labels[j]``; its statistic is, by ``statistic``:

   - ``"micro"`` (eq. 42): the mean of those items;
   - ``"scene_macro"`` (eq. 43): for every scene with an item in the replicate, the mean of its
     items there (a cluster drawn twice counts twice), then the mean of those scene means;
   - ``"video_macro"`` (eq. 44): each of the K draws is one video of the replicate: the mean,
     over the K draws, of the drawn cluster's item mean (a cluster drawn twice counts twice).
     The clusters are the source videos, so this is eq. 44 on the resampled videos.

   All three statistics of one input use the same ``draws`` (paired replicates).
5. ``(low, high) = numpy.quantile(replicates, [(1 - confidence) / 2, (1 + confidence) / 2])``
   with numpy's default ``"linear"`` interpolation.

The vectorised implementation computes step 4 as ``C @ [cluster sums, cluster sizes]`` where
``C[b, j]`` counts how often cluster ``j`` was drawn in replicate ``b``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._checks import as_float_array, as_labels, confidence_level, positive_int
from ._groups import row_group_sums
from .macro import macro_estimates, macro_replicates

STATISTICS = ("micro", "scene_macro", "video_macro")


class PairedEffect(NamedTuple):
    """Paired difference of two conditions on their common valid set (eq. 45).

    ``estimate`` is ``mean(a - b)`` over the ``n`` common valid items; ``low``/``high`` its
    clustered percentile interval (``nan`` when it cannot be formed); ``significant`` is true
    only when the interval excludes 0.
    """

    estimate: float
    low: float
    high: float
    n: int
    significant: bool


def picked_counts(k: int, n_resamples: int, seed) -> np.ndarray:
    """(n_resamples, k) float counts: how often each of the k clusters (in ``numpy.unique``
    order) was drawn in each replicate, by the draw rule's step 3 (one ``integers`` call)."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, k, size=(n_resamples, k))
    offsets = np.arange(n_resamples, dtype=draws.dtype)[:, None] * k
    picked = np.bincount((draws + offsets).ravel(), minlength=n_resamples * k)
    return picked.reshape(n_resamples, k).astype(np.float64)


def _replicate_means(sums, sizes, n_resamples: int, seed) -> np.ndarray:
    picked = picked_counts(sums.size, n_resamples, seed)
    totals = picked @ np.column_stack((sums, sizes))
    return totals[:, 0] / totals[:, 1]


def _statistic_args(statistic, scenes, n):
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {', '.join(STATISTICS)}, got {statistic!r}")
    if statistic == "scene_macro":
        if scenes is None:
            raise ValueError("statistic 'scene_macro' needs scenes")
        return as_labels(scenes, "scenes", n)
    return None


def _bootstrap(v: np.ndarray, c: np.ndarray, n_resamples: int, seed, confidence: float):
    if v.size == 0:
        nan = float("nan")
        return nan, nan, nan
    estimate = float(v.mean())
    _, index = np.unique(c, return_inverse=True)
    index = index.ravel()
    sums = np.bincount(index, weights=v)
    if sums.size < 2:
        return estimate, float("nan"), float("nan")
    sizes = np.bincount(index).astype(np.float64)
    replicates = _replicate_means(sums, sizes, n_resamples, seed)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(replicates, [tail, 1.0 - tail])
    return estimate, float(low), float(high)


def _bootstrap_args(n_resamples, confidence):
    return positive_int(n_resamples, "n_resamples"), confidence_level(confidence)


def clustered_bootstrap(
    values,
    clusters,
    *,
    n_resamples: int = 2000,
    seed=0,
    confidence: float = 0.95,
    statistic: str = "micro",
    scenes=None,
) -> tuple[float, float, float]:
    """Item-weighted mean with a cluster-bootstrap percentile interval (eq. 21, appendix I.2).

    ``values`` and ``clusters`` are 1-D of equal length n: one score per item (step) and the
    label of its resampling cluster (source video). Non-finite values are treated as missing
    and their items dropped. Each of ``n_resamples`` replicates draws as many clusters as
    there are (K), with replacement, and includes every item of a drawn cluster as often as
    the cluster was drawn; the replicate statistic is the mean over those items. The interval
    is the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` percentiles of the replicates
    (eq. 21: 2.5th and 97.5th). The exact draw rule is in the module docstring.

    Returns ``(estimate, low, high)``, where ``estimate`` is the plain mean of the valid items
    (eq. 42). Degenerate input: no valid item gives ``(nan, nan, nan)``; a single cluster gives
    ``(estimate, nan, nan)`` because resampling one cluster carries no between-cluster
    variation. Raises ``ValueError`` for non-1-D or mismatched inputs, a non-positive
    ``n_resamples`` or a ``confidence`` outside (0, 1).

    ``statistic="scene_macro"`` (with ``scenes``, the items' scene labels) or
    ``"video_macro"`` gives the macro mean of eq. 43 or 44 instead, with the replicate statistic
    of the draw rule's step 4 (same draws as the micro mean for the same seed).
    """
    v = as_float_array(values, "values", ndim=1)
    c = as_labels(clusters, "clusters", v.size)
    n_resamples, confidence = _bootstrap_args(n_resamples, confidence)
    g = _statistic_args(statistic, scenes, v.size)
    if statistic != "micro":
        batch = clustered_bootstrap_rows(
            v[None, :],
            c,
            n_resamples=n_resamples,
            seed=seed,
            confidence=confidence,
            statistic=statistic,
            scenes=g,
        )
        return float(batch.estimate[0]), float(batch.low[0]), float(batch.high[0])
    valid = np.isfinite(v)
    return _bootstrap(v[valid], c[valid], n_resamples, seed, confidence)


def paired_difference(
    a,
    b,
    clusters,
    *,
    n_resamples: int = 2000,
    seed=0,
    confidence: float = 0.95,
    statistic: str = "micro",
    scenes=None,
) -> PairedEffect:
    """Paired effect ``mean(a - b)`` on the common valid set, with a clustered interval (eq. 45).

    ``a``, ``b`` and ``clusters`` are 1-D of equal length: the per-item scores under conditions
    A and B and each item's cluster label. The common valid set keeps items where both ``a``
    and ``b`` are finite; differences are formed per item before averaging, then passed to
    :func:`clustered_bootstrap` with the same ``n_resamples``, ``seed`` and ``confidence``
    (so the replicates use exactly its draw rule).

    Returns ``PairedEffect(estimate, low, high, n, significant)`` where ``n`` is the size of
    the common valid set and ``significant`` is true when the interval excludes 0
    (``low > 0`` or ``high < 0``). Degenerate input: an empty common set gives
    ``(nan, nan, nan, 0, False)``; a single cluster gives ``(estimate, nan, nan, n, False)``.
    Raises ``ValueError`` for non-1-D or mismatched inputs and invalid bootstrap settings.
    ``statistic`` and ``scenes`` choose the micro or a macro mean of the per-item differences,
    as in :func:`clustered_bootstrap`.
    """
    x = as_float_array(a, "a", ndim=1)
    y = as_float_array(b, "b", ndim=1)
    if x.size != y.size:
        raise ValueError(f"a and b must have the same length, got {x.size} and {y.size}")
    c = as_labels(clusters, "clusters", x.size)
    n_resamples, confidence = _bootstrap_args(n_resamples, confidence)
    g = _statistic_args(statistic, scenes, x.size)
    valid = np.isfinite(x) & np.isfinite(y)
    diff = x[valid] - y[valid]
    estimate, low, high = clustered_bootstrap(
        diff,
        c[valid],
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        statistic=statistic,
        scenes=None if g is None else g[valid],
    )
    significant = bool(low > 0.0 or high < 0.0)
    return PairedEffect(estimate, low, high, int(valid.sum()), significant)


class BootstrapBatch(NamedTuple):
    """Row-wise results of :func:`clustered_bootstrap_rows` (arrays of length S): estimate, low,
    high (``nan`` where the row has no valid item, or fewer than two clusters for the interval),
    the number of valid items ``n`` and of present clusters."""

    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n: np.ndarray
    clusters: np.ndarray


def clustered_bootstrap_rows(
    values,
    clusters,
    *,
    n_resamples: int = 2000,
    seed=0,
    confidence: float = 0.95,
    statistic: str = "micro",
    scenes=None,
) -> BootstrapBatch:
    """:func:`clustered_bootstrap` of every row of ``values`` at once, with its draw rule.

    ``values`` has shape (S, n): S statistics over the same n items (non-finite = missing for
    that row); ``clusters`` is 1-D of length n. Row ``s`` gets the result
    ``clustered_bootstrap(values[s], clusters, n_resamples=..., seed=..., confidence=...,
    statistic=..., scenes=...)`` (equal up to floating-point summation order): each row's K is
    the number of clusters with a valid item in that row, and rows that share the same present
    clusters share one draw matrix, so a report of thousands of statistics draws only a few
    times. ``statistic`` is ``"micro"``, ``"scene_macro"`` (needs ``scenes``, 1-D of length n)
    or ``"video_macro"`` (module docstring, step 4); ``estimate`` is then the macro mean of the
    row's valid items. Also returns each row's number of valid items ``n`` and of present
    clusters.

    Degenerate input: a row without valid items gives ``nan`` for all three numbers; a row with
    one cluster gives its estimate and ``nan`` bounds. Raises ``ValueError`` for a ``values``
    that is not 2-D, mismatched ``clusters`` or ``scenes``, an unknown ``statistic`` or invalid
    bootstrap settings.
    """
    v = as_float_array(values, "values", ndim=2)
    c = as_labels(clusters, "clusters", v.shape[1])
    n_resamples, confidence = _bootstrap_args(n_resamples, confidence)
    g = _statistic_args(statistic, scenes, v.shape[1])
    rows = v.shape[0]
    estimate = np.full(rows, np.nan)
    low = np.full(rows, np.nan)
    high = np.full(rows, np.nan)
    valid = np.isfinite(v)
    n = valid.sum(axis=1)
    if v.shape[1] == 0:
        return BootstrapBatch(estimate, low, high, n, np.zeros(rows, dtype=np.int64))
    v0 = np.where(valid, v, 0.0)
    sums, sizes = row_group_sums(v0, valid, c)  # (S, K_all)
    present = sizes > 0
    n_clusters = present.sum(axis=1)
    has = n > 0
    macro = None
    if statistic == "micro":
        estimate[has] = v0[has].sum(axis=1) / n[has]
    else:
        macro = macro_estimates(statistic, v0, valid, c, g, sums, sizes)
        estimate[has] = macro.estimate[has]
    tail = (1.0 - confidence) / 2.0
    groups: dict[bytes, list[int]] = {}
    for s in np.flatnonzero(n_clusters >= 2):
        groups.setdefault(present[s].tobytes(), []).append(int(s))
    for members in groups.values():
        cols = present[members[0]]
        picked = picked_counts(int(cols.sum()), n_resamples, seed)
        if macro is None:
            totals = picked @ sums[members][:, cols].T
            counts = picked @ sizes[members][:, cols].T
            replicates = totals / counts
        else:
            replicates = macro_replicates(macro, picked, members, cols)
        lo, hi = np.quantile(replicates, [tail, 1.0 - tail], axis=0)
        low[members] = lo
        high[members] = hi
    return BootstrapBatch(estimate, low, high, n, n_clusters)
