"""Macro averages (eqs. 43-44), answer-cluster entropy (eq. 26) and set similarity (eq. 20)."""

from __future__ import annotations

import numpy as np

from ._checks import as_counts, as_float_array, as_labels


def macro_mean(values, groups) -> float:
    """Equal-group macro average: the mean over groups of each group's item mean (eqs. 43-44).

    ``values`` and ``groups`` are 1-D of equal length: one score per item and its group label
    (scene for eq. 43, source video for eq. 44)::

        S_macro = (1 / G) * sum_g (1 / N_g) * sum_{i in g} S_i

    Non-finite values are treated as missing and their items dropped; a group left without
    items does not count in G. Returns a float; ``nan`` when no valid item remains. Raises
    ``ValueError`` for non-1-D or mismatched inputs.
    """
    v = as_float_array(values, "values", ndim=1)
    g = as_labels(groups, "groups", v.size)
    valid = np.isfinite(v)
    v, g = v[valid], g[valid]
    if v.size == 0:
        return float("nan")
    _, index = np.unique(g, return_inverse=True)
    index = index.ravel()
    sums = np.bincount(index, weights=v)
    sizes = np.bincount(index)
    return float((sums / sizes).mean())


def normalized_entropy(counts) -> float:
    """Normalised entropy of an item's answer clusters (eq. 26).

    ``counts`` is 1-D: the number of answers in each cluster. Clusters with a zero count are
    ignored, so K is the number of non-empty clusters and ``p_j = counts_j / sum(counts)``::

        H = 0                                  if K == 1
        H = -sum_j p_j ln p_j / ln K           if K >= 2

    Returns a float in [0, 1] (1 = answers spread evenly over the clusters). Degenerate input:
    no answers at all (empty or all-zero ``counts``) gives ``nan``. Raises ``ValueError`` for
    non-1-D input or negative / fractional counts.
    """
    c = as_counts(counts, "counts", ndim=1)
    c = c[c > 0]
    if c.size == 0:
        return float("nan")
    if c.size == 1:
        return 0.0
    p = c / c.sum()
    return float(-(p @ np.log(p)) / np.log(c.size))


def set_similarity(sim) -> float:
    """Symmetric best-match similarity of two answer sets T and T' (eq. 20).

    ``sim`` has shape (|T|, |T'|); ``sim[u, v]`` is the similarity (normally in [0, 1]) of
    answer u of T and answer v of T'::

        sim_N = 1/2 * ( mean_u max_v sim[u, v] + mean_v max_u sim[u, v] )

    The result is symmetric: ``set_similarity(sim.T) == set_similarity(sim)``. Returns a float;
    ``nan`` when either set is empty. Raises ``ValueError`` for non-2-D or non-finite input.
    """
    s = as_float_array(sim, "sim", ndim=2)
    if not np.isfinite(s).all():
        raise ValueError("sim must contain only finite similarities")
    if s.size == 0:
        return float("nan")
    return float(0.5 * (s.max(axis=1).mean() + s.max(axis=0).mean()))
