"""Krippendorff's alpha at all four levels, with missing values, against `krippendorff`."""

import math
import warnings

import krippendorff
import numpy as np
import pytest

from scoring.stats import krippendorff_alpha

N_CASES = 200
LEVELS = ["nominal", "ordinal", "interval", "ratio"]


def _random_reliability_data(rng, case):
    """raters x units with nan for missing; small sizes keep the reference package fast."""
    raters = int(rng.integers(2, 6))
    units = int(rng.integers(2, 20))
    kind = case % 4
    if kind == 0:  # a few categories
        data = rng.integers(1, int(rng.integers(3, 7)), size=(raters, units)).astype(float)
    elif kind == 1:  # 0-100 scores with a shared unit effect and ties on a grid of 5
        truth = rng.uniform(0, 100, size=(1, units))
        data = np.clip(np.round((truth + rng.normal(0, 15, (raters, units))) / 5) * 5, 0, 100)
    elif kind == 2:  # continuous scores
        data = rng.uniform(0, 100, size=(raters, units))
    else:  # positive non-integer values, some zeros (ratio edge case a + b == 0)
        data = rng.choice([0.0, 0.5, 1.25, 3.0, 7.5, 10.0], size=(raters, units))
    data[rng.random((raters, units)) < rng.uniform(0, 0.4)] = np.nan
    return data


def _reference_alpha(data, level):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
        except ValueError:  # the package refuses data without two pairable values
            return math.nan


@pytest.mark.parametrize("level", LEVELS)
def test_krippendorff_alpha_matches_the_krippendorff_package(level, assert_close):
    rng = np.random.default_rng(["nominal", "ordinal", "interval", "ratio"].index(level) + 100)
    defined = 0
    for case in range(N_CASES):
        data = _random_reliability_data(rng, case)
        ref = _reference_alpha(data, level)
        ours = krippendorff_alpha(data, level=level)
        assert_close(ours, ref, f"{level} case {case} data={data.tolist()}")
        defined += not math.isnan(ours)
    assert defined >= 180


def test_krippendorff_alpha_defaults_to_interval():
    data = np.array([[1.0, 2.0, 3.0, np.nan], [1.0, 2.5, 2.0, 4.0], [2.0, 2.0, 3.0, 4.0]])
    assert krippendorff_alpha(data) == krippendorff_alpha(data, level="interval")


@pytest.mark.parametrize("level", LEVELS)
def test_krippendorff_alpha_is_one_for_perfect_agreement(level):
    data = np.array([[1.0, 2.0, 3.0, np.nan], [1.0, 2.0, 3.0, 4.0], [1.0, np.nan, 3.0, 4.0]])
    assert krippendorff_alpha(data, level=level) == pytest.approx(1.0, abs=1e-12)


def test_ordinal_alpha_ignores_monotone_relabelling():
    rng = np.random.default_rng(5)
    data = rng.integers(0, 5, size=(3, 25)).astype(float)
    data[0, :4] = np.nan
    relabelled = np.exp(data)  # strictly increasing map keeps the order, nan stays nan
    assert krippendorff_alpha(relabelled, "ordinal") == pytest.approx(
        krippendorff_alpha(data, "ordinal"), abs=1e-12
    )


def test_krippendorff_alpha_is_unchanged_by_units_with_a_single_rating():
    data = np.array([[1.0, 3.0, 5.0, 9.0], [2.0, 3.0, 4.0, np.nan]])
    for level in LEVELS:
        assert krippendorff_alpha(data, level) == krippendorff_alpha(data[:, :3], level)


@pytest.mark.parametrize("level", LEVELS)
def test_krippendorff_alpha_is_nan_when_undefined(level):
    nan = np.nan
    assert math.isnan(krippendorff_alpha(np.full((3, 5), nan), level))  # all missing
    assert math.isnan(krippendorff_alpha([[1.0, nan], [nan, 2.0]], level))  # nothing pairable
    assert math.isnan(krippendorff_alpha([[4.0, 4.0], [4.0, 4.0]], level))  # no variation
    assert math.isnan(krippendorff_alpha(np.zeros((2, 0)), level))  # no units
    assert math.isnan(krippendorff_alpha(np.zeros((0, 4)), level))  # no raters


@pytest.mark.parametrize(
    ("data", "level"),
    [
        ([[1.0, 2.0]], "cardinal"),
        ([[1.0, 2.0]], "Interval"),
        ([[1.0, 2.0]], None),
        ([1.0, 2.0, 3.0], "interval"),
        ([[1.0, np.inf], [1.0, 2.0]], "interval"),
        ([["a", "b"], ["a", "c"]], "nominal"),
    ],
)
def test_krippendorff_alpha_rejects_malformed_input(data, level):
    with pytest.raises(ValueError):
        krippendorff_alpha(data, level=level)


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_alphas_interval_is_the_plain_loop_over_the_expanded_replicates(seed):
    """Each replicate's alpha equals krippendorff_alpha of the data with every unit of each
    drawn cluster repeated as often as the cluster was drawn (the bootstrap's draw rule)."""
    from scoring.stats import krippendorff_alpha_interval
    from scoring.stats.bootstrap import picked_counts

    rng = np.random.default_rng(seed)
    units = 30
    data = rng.integers(0, 101, (3, units)).astype(float)
    data[0, 3] = data[1, 7] = np.nan
    data[:2, 9] = np.nan  # one rating: never pairable
    clusters = np.array([f"video-{i % 6}" for i in range(units)])
    low, high = krippendorff_alpha_interval(data, clusters, n_resamples=200, seed=seed)
    pairable = np.flatnonzero((~np.isnan(data)).sum(axis=0) >= 2)
    names, which = np.unique(clusters[pairable], return_inverse=True)
    replicates = []
    for counts in picked_counts(names.size, 200, seed):
        columns = [u for j, c in enumerate(counts) for u in pairable[which == j].tolist() * int(c)]
        replicates.append(krippendorff_alpha(data[:, columns], "interval"))
    replicates = np.array(replicates)
    expected = np.quantile(replicates[np.isfinite(replicates)], [0.025, 0.975])
    assert (low, high) == pytest.approx(tuple(expected), abs=1e-9)
    assert low <= krippendorff_alpha(data, "interval") <= high


def test_alphas_interval_needs_two_clusters_and_variation():
    from scoring.stats import krippendorff_alpha_interval

    data = np.array([[1.0, 2.0, 3.0], [2.0, 2.0, 4.0]])
    assert all(math.isnan(x) for x in krippendorff_alpha_interval(data, ["a", "a", "a"]))
    flat = np.full((2, 4), 5.0)
    assert all(math.isnan(x) for x in krippendorff_alpha_interval(flat, ["a", "b", "a", "b"]))
    with pytest.raises(ValueError):
        krippendorff_alpha_interval(data, ["a", "b"])  # one cluster label short
