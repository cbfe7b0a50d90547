"""Scene- and video-macro means under the clustered bootstrap (private; eqs. 43-44, appendix I.2).

:func:`~scoring.stats.bootstrap.clustered_bootstrap_rows` draws the clusters; this module turns
one draw matrix (``picked[b, j]`` = how often present cluster ``j`` was drawn in replicate ``b``)
into each row's replicate macro means, by the draw rule's step 4:

- scene macro: per scene, ``sum_j picked[b, j] * sum(j, scene) / sum_j picked[b, j] *
  size(j, scene)`` over the clusters holding items of that scene, averaged over the scenes
  with an item in the replicate (rows with the same item counts per cluster and scene share
  the denominators, so their replicates are one matrix product);
- video macro: ``sum_j picked[b, j] * mean(j) / K`` (each draw is one resampled video).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._groups import row_group_sums

#: Rows per matrix product: keeps the (replicates x rows) arrays small.
CHUNK = 512


@dataclass(frozen=True)
class Macro:
    statistic: str
    estimate: np.ndarray  # (S,) macro mean of each row's valid items
    cluster_means: np.ndarray | None = None  # video macro: (S, K_all)
    pair_sums: np.ndarray | None = None  # scene macro: (S, P) per (cluster, scene) pair
    pair_sizes: np.ndarray | None = None
    pair_cluster: np.ndarray | None = None  # (P,) cluster index of each pair
    pair_scene: np.ndarray | None = None  # (P,) scene index of each pair
    n_scenes: int = 0


def _mean_of_group_means(sums, sizes):
    present = sizes > 0
    means = np.divide(sums, sizes, out=np.zeros_like(sums), where=present)
    count = present.sum(axis=1)
    return np.where(count > 0, means.sum(axis=1) / np.maximum(count, 1), np.nan)


def macro_estimates(statistic, v0, valid, clusters, scenes, sums, sizes) -> Macro:
    """The point estimates and the per-cluster pieces the replicates need."""
    if statistic == "video_macro":
        means = np.divide(sums, sizes, out=np.zeros_like(sums), where=sizes > 0)
        return Macro(statistic, _mean_of_group_means(sums, sizes), cluster_means=means)
    _, ci = np.unique(clusters, return_inverse=True)
    _, si = np.unique(scenes, return_inverse=True)
    ci, si = ci.ravel(), si.ravel()
    n_scenes = int(si.max()) + 1 if si.size else 0
    pair_label = ci * max(n_scenes, 1) + si
    labels = np.unique(pair_label)
    psums, psizes = row_group_sums(v0, valid, pair_label)
    ssums, ssizes = row_group_sums(v0, valid, si)
    return Macro(
        statistic,
        _mean_of_group_means(ssums, ssizes),
        pair_sums=psums,
        pair_sizes=psizes,
        pair_cluster=labels // max(n_scenes, 1),
        pair_scene=labels % max(n_scenes, 1),
        n_scenes=n_scenes,
    )


def macro_replicates(macro: Macro, picked, members, cols) -> np.ndarray:
    """(replicates, len(members)) replicate macro means of the rows ``members``, which share
    the present clusters ``cols`` (a boolean mask over all clusters)."""
    b, k = picked.shape
    out = np.empty((b, len(members)))
    if macro.statistic == "video_macro":
        for start in range(0, len(members), CHUNK):
            rows = members[start : start + CHUNK]
            means = macro.cluster_means[rows][:, cols]
            out[:, start : start + len(rows)] = picked @ means.T / k
        return out
    position = np.cumsum(cols) - 1
    pairs = np.flatnonzero(cols[macro.pair_cluster])
    _, scene_of = np.unique(macro.pair_scene[pairs], return_inverse=True)
    scene_of = scene_of.ravel()
    onehot = np.zeros((pairs.size, int(scene_of.max()) + 1))
    onehot[np.arange(pairs.size), scene_of] = 1.0
    drawn = picked[:, position[macro.pair_cluster[pairs]]]  # (b, pairs)
    sizes = macro.pair_sizes[members][:, pairs]
    sums = macro.pair_sums[members][:, pairs]
    # Rows with the same item counts per (cluster, scene) share every replicate's scene sizes:
    # replicate = sum over pairs of drawn * sum / (scene size * scenes present), one product.
    patterns: dict[bytes, list[int]] = {}
    for i, row in enumerate(sizes):
        patterns.setdefault(row.tobytes(), []).append(i)
    for index in patterns.values():
        scene_size = (drawn * sizes[index[0]]) @ onehot  # (b, scenes)
        present = (scene_size > 0).sum(axis=1)
        # sizes are whole counts: a scene's size is 0 (and its sums 0) or >= 1
        weight = drawn / (np.maximum(scene_size, 1.0)[:, scene_of] * present[:, None])
        out[:, index] = weight @ sums[index].T
    return out
