"""Wilson interval (eq. 2) against statsmodels."""

import math
import warnings

import numpy as np
import pytest
from scipy.stats import norm
from statsmodels.stats.proportion import proportion_confint

from scoring.stats import wilson_interval

N_CASES = 200


def _statsmodels_wilson(x, n, z):
    alpha = 2.0 * norm.sf(z)  # statsmodels turns alpha back into z = norm.isf(alpha / 2)
    return proportion_confint(x, n, alpha=alpha, method="wilson")


def test_wilson_interval_matches_statsmodels(assert_close):
    rng = np.random.default_rng(20260713)
    for case in range(N_CASES):
        special = int(rng.choice([1, 2, 5, 30, 756, 3014]))
        n = special if case % 4 == 0 else int(rng.integers(1, 2000))
        x = int(rng.choice([0, n, rng.integers(0, n + 1)]))
        z = 1.96 if case % 2 == 0 else float(rng.uniform(0.5, 3.5))
        low, high = wilson_interval(x, n, z)
        ref_low, ref_high = _statsmodels_wilson(x, n, z)
        assert_close(low, ref_low, f"case {case} low x={x} n={n} z={z}")
        assert_close(high, ref_high, f"case {case} high x={x} n={n} z={z}")
        assert 0.0 <= low <= x / n <= high <= 1.0


def test_wilson_interval_vectorised_matches_statsmodels(assert_close):
    rng = np.random.default_rng(7)
    n = rng.integers(1, 1000, size=N_CASES)
    x = rng.integers(0, n + 1)
    low, high = wilson_interval(x, n)
    ref_low, ref_high = _statsmodels_wilson(x, n, 1.96)
    assert low.shape == high.shape == (N_CASES,)
    for i in range(N_CASES):
        assert_close(low[i], ref_low[i], f"element {i}")
        assert_close(high[i], ref_high[i], f"element {i}")


def test_wilson_interval_returns_plain_floats_for_scalars():
    low, high = wilson_interval(3, 10)
    assert type(low) is float and type(high) is float


def test_wilson_interval_of_zero_trials_is_nan():
    low, high = wilson_interval(0, 0)
    assert math.isnan(low) and math.isnan(high)
    low, high = wilson_interval([0, 1], [0, 2])
    assert math.isnan(low[0]) and math.isnan(high[0])
    assert not math.isnan(low[1])


def test_wilson_interval_touches_the_bounds_at_zero_and_all_successes():
    assert wilson_interval(0, 20)[0] == 0.0
    assert wilson_interval(20, 20)[1] == 1.0
    assert wilson_interval(756, 756)[0] == pytest.approx(1 / (1 + 1.96**2 / 756))


@pytest.mark.parametrize(
    ("successes", "n", "z"),
    [
        (5, 4, 1.96),
        (-1, 4, 1.96),
        (1, -4, 1.96),
        (1, 4, 0.0),
        (1, 4, -1.0),
        (1, 4, math.inf),
        (math.nan, 4, 1.96),
        ([1, 2], [3, 4, 5], 1.96),
        ("a", 4, 1.96),
    ],
)
def test_wilson_interval_rejects_malformed_input(successes, n, z):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError):
            wilson_interval(successes, n, z)
