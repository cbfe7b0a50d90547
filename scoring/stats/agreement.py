"""Categorical agreement (Fleiss' kappa, raw agreement) and intraclass correlation."""

from __future__ import annotations

import numpy as np

from ._checks import as_counts, as_float_array


def _rating_table(table) -> tuple[np.ndarray, int]:
    """Validate an items x categories count table; return it with the raters per item."""
    t = as_counts(table, "table", ndim=2)
    if t.shape[1] == 0:
        raise ValueError("table needs at least one category column")
    if t.shape[0] == 0:
        return t, 0
    # Row and column totals via matrix products: numpy's axis reductions are slow on narrow
    # tables such as the binary (items x 2) audit table.
    per_item = t @ np.ones(t.shape[1])
    if (per_item != per_item[0]).any():
        raise ValueError("every item (row) of table must have the same number of raters")
    return t, int(per_item[0])


def _mean_item_agreement(t: np.ndarray, r: int) -> float:
    """P_bar, the mean over items of eq. 17 generalised to any number of categories.

    ``sum_c n_ic (n_ic - 1) = sum_c n_ic^2 - R`` for every item, so the mean needs one dot
    product.
    """
    n_items = t.shape[0]
    flat = t.ravel()
    return (float(flat @ flat) - n_items * r) / (n_items * r * (r - 1.0))


def raw_agreement(table) -> float:
    """Mean per-item pairwise agreement ``P_bar`` (the numerator term of eq. 18).

    ``table`` has shape (items, categories); entry ``[i, c]`` counts the raters who put item
    ``i`` in category ``c``. Every row must sum to the same number of raters ``R``::

        P_i   = sum_c n_ic (n_ic - 1) / (R (R - 1))        (eq. 17)
        P_bar = mean_i P_i

    Returns a float in [0, 1]. Degenerate input: no items or fewer than two raters per item
    gives ``nan``. Raises ``ValueError`` for a non-2-D table, negative or fractional counts, or
    rows with different totals.
    """
    t, r = _rating_table(table)
    if t.shape[0] == 0 or r < 2:
        return float("nan")
    return _mean_item_agreement(t, r)


def fleiss_kappa(table) -> float:
    """Fleiss' kappa for an items x categories count table (eqs. 17-18).

    ``table`` has shape (items, categories) with the same number ``R`` of raters per item::

        P_i   = sum_c n_ic (n_ic - 1) / (R (R - 1))        (eq. 17)
        P_bar = mean_i P_i
        p_c   = sum_i n_ic / (N R)
        P_e   = sum_c p_c^2
        kappa = (P_bar - P_e) / (1 - P_e)                  (eq. 18)

    Returns a float (at most 1). Degenerate input gives ``nan``: no items, fewer than two
    raters per item, or every rating in a single category (``P_e == 1``, no category
    variation, as for criterion C2 of the paper's audit). Raises ``ValueError`` for a non-2-D
    table, negative or fractional counts, or rows with different totals.
    """
    t, r = _rating_table(table)
    if t.shape[0] == 0 or r < 2:
        return float("nan")
    p_bar = _mean_item_agreement(t, r)
    p_cat = (np.ones(t.shape[0]) @ t) / (t.shape[0] * r)
    if p_cat.max() == 1.0:  # every rating in one category: P_e == 1
        return float("nan")
    p_e = float(p_cat @ p_cat)
    return float((p_bar - p_e) / (1.0 - p_e))


def _icc_mean_squares(ratings) -> tuple[float, float, float, int, int] | None:
    """Two-way ANOVA mean squares (rows, columns, error) for a complete ratings matrix."""
    y = as_float_array(ratings, "ratings", ndim=2)
    if np.isnan(y).any():
        raise ValueError("ratings must be complete (no nan); ICC needs every rater on every item")
    if not np.isfinite(y).all():
        raise ValueError("ratings must be finite")
    n, k = y.shape
    if n < 2 or k < 2 or np.ptp(y) == 0:
        return None
    row_mean = (y @ np.ones(k)) / k
    col_mean = (np.ones(n) @ y) / n
    grand = row_mean.mean()
    row_dev = row_mean - grand
    col_dev = col_mean - grand
    resid = y - row_mean[:, None] - col_dev[None, :]
    ms_rows = k * float(row_dev @ row_dev) / (n - 1)
    ms_cols = n * float(col_dev @ col_dev) / (k - 1)
    resid = resid.ravel()
    ms_err = float(resid @ resid) / ((n - 1) * (k - 1))
    return ms_rows, ms_cols, ms_err, n, k


def icc_21(ratings) -> float:
    """ICC(2,1): two-way random effects, absolute agreement, single rater (Shrout & Fleiss).

    ``ratings`` has shape (items n, raters k) and must be complete. With the two-way ANOVA
    mean squares for items (MSR), raters (MSC) and residual (MSE)::

        ICC(2,1) = (MSR - MSE) / (MSR + (k - 1) MSE + k (MSC - MSE) / n)

    The paper (appendix H.2) reports the k-rater form, see :func:`icc_2k`.

    Returns a float (1 = perfect absolute agreement; can be negative). Degenerate input gives
    ``nan``: fewer than two items or raters, all ratings identical, or a zero denominator.
    Raises ``ValueError`` for a non-2-D matrix or missing / non-finite ratings.
    """
    ms = _icc_mean_squares(ratings)
    if ms is None:
        return float("nan")
    msr, msc, mse, n, k = ms
    denom = msr + (k - 1) * mse + k * (msc - mse) / n
    if denom == 0:
        return float("nan")
    return float((msr - mse) / denom)


def icc_2k(ratings) -> float:
    """ICC(2,k): two-way random effects, absolute agreement, mean of k raters (Shrout & Fleiss).

    ``ratings`` has shape (items n, raters k) and must be complete::

        ICC(2,k) = (MSR - MSE) / (MSR + (MSC - MSE) / n)

    This is the human-consistency statistic of the paper's appendix H.2.

    Returns a float (1 = perfect absolute agreement; can be negative). Degenerate input gives
    ``nan``: fewer than two items or raters, all ratings identical, or a zero denominator.
    Raises ``ValueError`` for a non-2-D matrix or missing / non-finite ratings.
    """
    ms = _icc_mean_squares(ratings)
    if ms is None:
        return float("nan")
    msr, msc, mse, n, _ = ms
    denom = msr + (msc - mse) / n
    if denom == 0:
        return float("nan")
    return float((msr - mse) / denom)


def icc_2k_interval(ratings, confidence: float = 0.95) -> tuple[float, float]:
    """Confidence interval of ICC(2,k) (McGraw & Wong 1996, case 2A, the F-based interval).

    ``ratings`` as for :func:`icc_2k`. With the mean squares MSR (items), MSC (raters), MSE
    (residual), ``rho`` = ICC(2,1), ``Fj = MSC / MSE`` and the Satterthwaite degrees of freedom
    ``v = (k-1)(n-1) (k rho Fj + n (1 + (k-1) rho) - k rho)^2 /
    ((n-1) k^2 rho^2 Fj^2 + (n (1 + (k-1) rho) - k rho)^2)``, the single-rater bounds are::

        low1  = n (MSR - F* MSE) / (F* (k MSC + (kn - k - n) MSE) + n MSR),
                F* = F quantile (1 + c) / 2 with (n - 1, v) degrees of freedom
        high1 = n (F' MSR - MSE) / (k MSC + (kn - k - n) MSE + n F' MSR),
                F' = F quantile (1 + c) / 2 with (v, n - 1) degrees of freedom

    and the k-rater bounds follow by Spearman-Brown, ``b k / (1 + (k - 1) b)``.

    Returns ``(low, high)``. Degenerate input (as for :func:`icc_2k`) gives ``(nan, nan)``.
    Raises ``ValueError`` for bad ratings or a ``confidence`` outside (0, 1).
    """
    from scipy.stats import f as f_dist

    from ._checks import confidence_level

    c = confidence_level(confidence)
    ms = _icc_mean_squares(ratings)
    if ms is None:
        return float("nan"), float("nan")
    msr, msc, mse, n, k = ms
    denom = msr + (k - 1) * mse + k * (msc - mse) / n
    if denom == 0 or mse == 0:
        return float("nan"), float("nan")
    rho = (msr - mse) / denom
    fj = msc / mse
    core = n * (1 + (k - 1) * rho) - k * rho
    v_den = (n - 1) * k**2 * rho**2 * fj**2 + core**2
    if v_den == 0:
        return float("nan"), float("nan")
    v = (k - 1) * (n - 1) * (k * rho * fj + core) ** 2 / v_den
    q = (1 + c) / 2
    f_low = float(f_dist.ppf(q, n - 1, v))
    f_high = float(f_dist.ppf(q, v, n - 1))
    shared = k * msc + (k * n - k - n) * mse
    low1 = n * (msr - f_low * mse) / (f_low * shared + n * msr)
    high1 = n * (f_high * msr - mse) / (shared + n * f_high * msr)

    def spearman_brown(b: float) -> float:
        return float(b * k / (1 + (k - 1) * b))

    return spearman_brown(low1), spearman_brown(high1)
