"""Wilson score interval for a binary rate (paper eq. 2)."""

from __future__ import annotations

import math

import numpy as np

from ._checks import as_float_array


def wilson_interval(successes, n, z: float = 1.96):
    """Wilson score interval for ``successes`` out of ``n`` trials (eq. 2).

    With ``p = x / n``::

        centre = (p + z^2 / (2n)) / (1 + z^2 / n)
        half   = z * sqrt(p (1 - p) / n + z^2 / (4 n^2)) / (1 + z^2 / n)
        (low, high) = (centre - half, centre + half), clipped to [0, 1]

    ``z = 1.96`` gives the 95 % interval reported in the paper's audit tables (table 8).

    Inputs: ``successes`` and ``n`` are scalars or broadcastable arrays with
    ``0 <= successes <= n``; ``z`` is a positive finite scalar.

    Returns ``(low, high)`` as proportions in [0, 1]: Python floats when both inputs are
    scalars, otherwise two float arrays of the broadcast shape.

    Degenerate input: ``n == 0`` gives ``(nan, nan)`` (no information about the rate).
    ``successes == 0`` gives ``low == 0`` and ``successes == n`` gives ``high == 1``.

    Raises ``ValueError`` for negative counts, ``successes > n``, non-finite input or a
    non-positive ``z``.
    """
    x = as_float_array(successes, "successes")
    m = as_float_array(n, "n")
    z = float(z)
    if not (math.isfinite(z) and z > 0):
        raise ValueError(f"z must be a positive finite number, got {z!r}")
    if not (np.isfinite(x).all() and np.isfinite(m).all()):
        raise ValueError("successes and n must be finite")
    if (x < 0).any() or (m < 0).any():
        raise ValueError("successes and n must be non-negative")
    try:
        x, m = np.broadcast_arrays(x, m)
    except ValueError:
        msg = f"shapes of successes {x.shape} and n {m.shape} do not broadcast"
        raise ValueError(msg) from None
    if (x > m).any():
        raise ValueError("successes must not exceed n")

    with np.errstate(divide="ignore", invalid="ignore"):
        p = x / m
        z2 = z * z
        denom = 1.0 + z2 / m
        centre = (p + z2 / (2.0 * m)) / denom
        half = z * np.sqrt(p * (1.0 - p) / m + z2 / (4.0 * m * m)) / denom
    # The bounds at p = 0 and p = 1 are exactly 0 and 1; pin them against rounding.
    low = np.where(x == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    high = np.where(x == m, 1.0, np.clip(centre + half, 0.0, 1.0))
    empty = m == 0
    low = np.where(empty, np.nan, low)
    high = np.where(empty, np.nan, high)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high
