"""Per-row group sums shared by the macro means and the batched bootstrap (private)."""

from __future__ import annotations

import numpy as np


def row_group_sums(v0: np.ndarray, valid: np.ndarray, labels) -> tuple[np.ndarray, np.ndarray]:
    """Per row and group: the sum of the valid values and their count, shape (S, G) each
    (``v0`` holds 0 where not ``valid``; groups in ``numpy.unique`` order)."""
    _, index = np.unique(np.asarray(labels), return_inverse=True)
    index = index.ravel()
    g = int(index.max()) + 1 if index.size else 0
    rows = v0.shape[0]
    flat = (np.arange(rows)[:, None] * g + index[None, :]).ravel()
    sums = np.bincount(flat, weights=v0.ravel(), minlength=rows * g).reshape(rows, g)
    sizes = np.bincount(flat, weights=valid.ravel(), minlength=rows * g).reshape(rows, g)
    return sums, sizes
