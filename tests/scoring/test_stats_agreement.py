"""Fleiss' kappa and raw agreement (eqs. 17-18), ICC(2,1) and ICC(2,k)."""

import functools
import math
import warnings

import numpy as np
import pandas as pd
import pingouin
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from scoring.stats import fleiss_kappa, icc_2k, icc_21, raw_agreement

N_CASES = 200


def _random_table(rng):
    """items x categories counts from R raters with skewed category preferences."""
    n_items = int(rng.integers(1, 40))
    n_cat = int(rng.integers(2, 7))
    n_raters = int(rng.integers(2, 9))
    prefs = rng.dirichlet(np.full(n_cat, 0.7))
    table = np.zeros((n_items, n_cat), dtype=int)
    for i in range(n_items):
        item_prefs = rng.dirichlet(prefs * 5 + 0.05)
        table[i] = rng.multinomial(n_raters, item_prefs)
    return table


def _loop_raw_agreement(table):
    rows = [list(map(int, row)) for row in table]
    r = sum(rows[0])
    per_item = [sum(c * (c - 1) for c in row) / (r * (r - 1)) for row in rows]
    return sum(per_item) / len(per_item)


def test_fleiss_kappa_matches_statsmodels(assert_close):
    rng = np.random.default_rng(17)
    defined = 0
    for case in range(N_CASES):
        table = _random_table(rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # statsmodels divides 0 by 0
            ref = sm_fleiss_kappa(table, method="fleiss")
        ours = fleiss_kappa(table)
        assert_close(ours, ref, f"case {case} table={table.tolist()}")
        defined += not math.isnan(ours)
    assert defined >= 180


def test_raw_agreement_matches_a_plain_loop(assert_close):
    rng = np.random.default_rng(18)
    for case in range(N_CASES):
        table = _random_table(rng)
        assert_close(raw_agreement(table), _loop_raw_agreement(table), f"case {case}")


def test_fleiss_kappa_accepts_the_binary_two_column_form_of_eq_17():
    # 4 items, 3 raters, columns = (answerable, unanswerable)
    table = [[3, 0], [2, 1], [0, 3], [3, 0]]
    p_bar = (1 + 1 / 3 + 1 + 1) / 4
    p1 = 8 / 12
    p_e = p1**2 + (1 - p1) ** 2
    assert fleiss_kappa(table) == pytest.approx((p_bar - p_e) / (1 - p_e), abs=1e-12)
    assert raw_agreement(table) == pytest.approx(p_bar, abs=1e-12)


def test_fleiss_kappa_is_nan_without_category_variation():
    # Like audit criterion C2: every sample passed, so kappa is undefined.
    table = np.column_stack([np.full(756, 3), np.zeros(756, dtype=int)])
    assert math.isnan(fleiss_kappa(table))
    assert raw_agreement(table) == 1.0


@pytest.mark.parametrize("fn", [fleiss_kappa, raw_agreement])
def test_agreement_is_nan_for_no_items_or_a_single_rater(fn):
    assert math.isnan(fn(np.zeros((0, 3))))
    assert math.isnan(fn([[1, 0], [0, 1]]))
    assert math.isnan(fn([[0, 0], [0, 0]]))


@pytest.mark.parametrize(
    "table",
    [
        [3, 0, 0],
        [[3, 0], [2, 0]],
        [[3, -1], [1, 1]],
        [[1.5, 1.5], [2, 1]],
        [[1, np.nan]],
        [["a", "b"]],
        np.zeros((2, 0)),
    ],
)
@pytest.mark.parametrize("fn", [fleiss_kappa, raw_agreement])
def test_agreement_rejects_malformed_tables(fn, table):
    with pytest.raises(ValueError):
        fn(table)


# --- ICC --------------------------------------------------------------------------------------


def _random_ratings(rng):
    n = int(rng.integers(3, 30))
    k = int(rng.integers(2, 7))
    item = rng.normal(0, rng.uniform(0.1, 30), size=(n, 1))
    rater = rng.normal(0, rng.uniform(0, 10), size=(1, k))
    noise = rng.normal(0, rng.uniform(0.5, 20), size=(n, k))
    y = 50 + item + rater + noise
    if rng.random() < 0.4:  # scores on a coarse grid, with ties
        y = np.clip(np.round(y / 5) * 5, 0, 100)
    return y


def _pingouin_icc(y):
    n, k = y.shape
    frame = pd.DataFrame(
        {"item": np.repeat(np.arange(n), k), "rater": np.tile(np.arange(k), n), "score": y.ravel()}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas deprecation notices raised inside pingouin
        table = pingouin.intraclass_corr(frame, targets="item", raters="rater", ratings="score")
    by_type = dict(zip(table["Type"], table["ICC"], strict=True))
    single = by_type.get("ICC2", by_type.get("ICC(A,1)"))
    average = by_type.get("ICC2k", by_type.get("ICC(A,k)"))
    return float(single), float(average)


@functools.cache
def _icc_cases():
    rng = np.random.default_rng(19)
    cases = []
    for _ in range(N_CASES):
        y = _random_ratings(rng)
        cases.append((y, *_pingouin_icc(y)))
    return cases


def test_icc_21_matches_pingouin_icc2(assert_close):
    for case, (y, ref_single, _) in enumerate(_icc_cases()):
        assert_close(icc_21(y), ref_single, f"case {case} shape={y.shape}")


def test_icc_2k_matches_pingouin_icc2k(assert_close):
    for case, (y, _, ref_average) in enumerate(_icc_cases()):
        assert_close(icc_2k(y), ref_average, f"case {case} shape={y.shape}")


@pytest.mark.parametrize("fn", [icc_21, icc_2k])
def test_icc_is_nan_without_variation_or_replication(fn):
    assert math.isnan(fn(np.full((10, 3), 37.3)))
    assert math.isnan(fn(np.ones((1, 3))))
    assert math.isnan(fn(np.arange(5.0).reshape(5, 1)))
    assert math.isnan(fn(np.zeros((0, 3))))


@pytest.mark.parametrize("fn", [icc_21, icc_2k])
def test_icc_is_zero_when_items_do_not_differ_but_raters_do(fn):
    y = np.tile([10.0, 20.0, 30.0], (6, 1))
    assert fn(y) == 0.0


@pytest.mark.parametrize("fn", [icc_21, icc_2k])
def test_icc_is_one_for_perfect_absolute_agreement(fn):
    y = np.repeat(np.array([[1.0], [4.0], [2.0], [8.0]]), 3, axis=1)
    assert fn(y) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(
    "ratings",
    [
        [1.0, 2.0, 3.0],
        [[1.0, np.nan], [2.0, 3.0]],
        [[1.0, np.inf], [2.0, 3.0]],
        np.zeros((2, 2, 2)),
        [["x", "y"], ["z", "w"]],
    ],
)
@pytest.mark.parametrize("fn", [icc_21, icc_2k])
def test_icc_rejects_malformed_ratings(fn, ratings):
    with pytest.raises(ValueError):
        fn(ratings)


def _pingouin_icc2k_ci(y):
    n, k = y.shape
    frame = pd.DataFrame(
        {"item": np.repeat(np.arange(n), k), "rater": np.tile(np.arange(k), n), "score": y.ravel()}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = pingouin.intraclass_corr(frame, targets="item", raters="rater", ratings="score")
    row = table[table["Type"].isin(["ICC2k", "ICC(A,k)"])].iloc[0]
    return [float(b) for b in row["CI95%" if "CI95%" in table else "CI95"]]


def test_icc_2k_interval_matches_pingouin():
    from scoring.stats import icc_2k_interval

    rng = np.random.default_rng(23)
    checked = 0
    for _ in range(40):
        y = _random_ratings(rng)
        ours = icc_2k_interval(y)
        if not np.isfinite(ours).all():
            continue
        ref = _pingouin_icc2k_ci(y)
        # pingouin rounds its interval to two decimals.
        assert abs(ours[0] - ref[0]) <= 0.0051 and abs(ours[1] - ref[1]) <= 0.0051, (ours, ref)
        checked += 1
    assert checked >= 20


def test_icc_2k_interval_of_a_hand_example():
    from scoring.stats import icc_2k_interval

    # Shrout & Fleiss (1979) table 2: six targets, four judges; ICC(2,4) = 0.62.
    y = np.array(
        [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]],
        dtype=float,
    )
    assert icc_2k(y) == pytest.approx(0.6200505, abs=1e-6)
    low, high = icc_2k_interval(y)
    assert low < 0.62 < high
    assert icc_2k_interval(np.ones((4, 3))) != icc_2k_interval(np.ones((4, 3)))  # nan pair
