"""Judge-versus-human agreement (eqs. 38-41) against scipy and plain loops."""

import math

import numpy as np
import pytest
from scipy import stats as sps

from scoring.stats import judge_agreement

N_CASES = 200
KEYS = {"pearson", "spearman", "kendall_tau_b", "mae", "bias", "large_disagreement_rate"}


def _loop_tau_b(x, y):
    """Kendall's tau-b by counting pairs."""
    concordant = discordant = ties_x = ties_y = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    return (concordant - discordant) / math.sqrt(
        (concordant + discordant + ties_x) * (concordant + discordant + ties_y)
    )


def _random_scores(rng, case):
    n = int(rng.integers(3, 80))
    human = rng.uniform(0, 100, n)
    judge = np.clip(human + rng.normal(rng.uniform(-10, 10), rng.uniform(1, 40), n), 0, 100)
    if case % 2 == 0:  # judges emit multiples of 5; human means of three raters land on thirds
        judge = np.round(judge / 5) * 5
        human = np.round(human * 3 / 5) * 5 / 3
    if case % 5 == 0:
        judge[rng.random(n) < 0.15] = np.nan
    return judge, human


def test_judge_agreement_matches_scipy_and_plain_loops(assert_close):
    rng = np.random.default_rng(38)
    for case in range(N_CASES):
        judge, human = _random_scores(rng, case)
        ours = judge_agreement(judge, human)
        assert set(ours) == KEYS
        keep = ~(np.isnan(judge) | np.isnan(human))
        j, h = judge[keep], human[keep]
        if np.ptp(j) == 0 or np.ptp(h) == 0:
            continue
        jl, hl = j.tolist(), h.tolist()
        diffs = [a - b for a, b in zip(jl, hl, strict=True)]
        ref = {
            "pearson": sps.pearsonr(j, h)[0],
            "spearman": sps.spearmanr(j, h)[0],
            "kendall_tau_b": sps.kendalltau(j, h, variant="b")[0],
            "mae": sum(abs(d) for d in diffs) / len(diffs),
            "bias": sum(diffs) / len(diffs),
            "large_disagreement_rate": sum(abs(d) >= 25 for d in diffs) / len(diffs),
        }
        for key in KEYS:
            assert_close(ours[key], ref[key], f"case {case} {key}")
        assert_close(ours["kendall_tau_b"], _loop_tau_b(jl, hl), f"case {case} tau-b loop")
        assert_close(ours["pearson"], np.corrcoef(j, h)[0, 1], f"case {case} pearson numpy")


def test_large_disagreement_threshold_is_inclusive():
    result = judge_agreement([50.0, 75.0, 0.0, 10.0], [25.0, 50.1, 24.9, 10.0])
    assert result["large_disagreement_rate"] == 0.25
    assert judge_agreement([0.0, 9.0], [10.0, 0.0], large=10)["large_disagreement_rate"] == 0.5


def test_bias_is_judge_minus_human():
    result = judge_agreement([60.0, 70.0, 80.0], [50.0, 70.0, 95.0])
    assert result["bias"] == pytest.approx((10 + 0 - 15) / 3)
    assert result["mae"] == pytest.approx((10 + 0 + 15) / 3)


def test_judge_agreement_degenerate_inputs():
    empty = judge_agreement([], [])
    assert set(empty) == KEYS and all(math.isnan(v) for v in empty.values())
    all_missing = judge_agreement([math.nan, 1.0], [2.0, math.nan])
    assert all(math.isnan(v) for v in all_missing.values())
    single = judge_agreement([40.0], [10.0])
    assert math.isnan(single["pearson"]) and single["mae"] == 30.0
    assert single["large_disagreement_rate"] == 1.0
    constant = judge_agreement([50.0, 50.0, 50.0], [10.0, 50.0, 90.0])
    for key in ("pearson", "spearman", "kendall_tau_b"):
        assert math.isnan(constant[key])
    assert constant["bias"] == pytest.approx(0.0)


@pytest.mark.parametrize(
    ("judge", "human", "large"),
    [
        ([1.0, 2.0], [1.0], 25.0),
        ([[1.0, 2.0]], [[1.0, 2.0]], 25.0),
        ([1.0], [1.0], math.nan),
        (["a"], [1.0], 25.0),
    ],
)
def test_judge_agreement_rejects_malformed_input(judge, human, large):
    with pytest.raises(ValueError):
        judge_agreement(judge, human, large=large)


# --- clustered intervals of the correlations -------------------------------------------------


def _loop_correlation_intervals(j, h, clusters, *, n_resamples, seed, confidence=0.95):
    """The draw rule spelled out: expand every replicate, run scipy on it."""
    from scoring.stats.bootstrap import picked_counts

    labels, inverse = np.unique(clusters, return_inverse=True)
    counts = picked_counts(labels.size, n_resamples, seed).astype(int)[:, inverse]
    reps = {"pearson": [], "spearman": [], "kendall_tau_b": []}
    for b in range(n_resamples):
        x, y = np.repeat(j, counts[b]), np.repeat(h, counts[b])
        if np.ptp(x) == 0 or np.ptp(y) == 0:
            continue
        reps["pearson"].append(sps.pearsonr(x, y)[0])
        reps["spearman"].append(sps.spearmanr(x, y)[0])
        reps["kendall_tau_b"].append(sps.kendalltau(x, y, variant="b")[0])
    q = [(1 - confidence) / 2, (1 + confidence) / 2]
    return {k: tuple(np.quantile(v, q)) if v else (math.nan, math.nan) for k, v in reps.items()}


@pytest.mark.parametrize("case", range(12))
def test_correlation_intervals_equal_scipy_on_every_expanded_replicate(case):
    from scoring.stats import judge_correlation_intervals

    rng = np.random.default_rng(1000 + case)
    n = int(rng.integers(4, 40))
    # Integer scores on a coarse grid give ties on both sides, as 0-100 ratings do.
    h = rng.integers(0, 11, n) * 10.0
    j = np.clip(h + rng.integers(-3, 4, n) * 10.0, 0, 100)
    clusters = rng.integers(0, int(rng.integers(2, 8)), n).astype(str)
    got = judge_correlation_intervals(j, h, clusters, n_resamples=150, seed=case)
    want = _loop_correlation_intervals(j, h, clusters, n_resamples=150, seed=case)
    for key in want:
        assert got[key] == pytest.approx(want[key], abs=1e-9, nan_ok=True), key


def test_correlation_intervals_drop_missing_items_and_refuse_bad_input():
    from scoring.stats import judge_correlation_intervals

    j = np.array([10.0, 20.0, np.nan, 40.0, 55.0, 70.0])
    h = np.array([15.0, 10.0, 30.0, 45.0, 50.0, 90.0])
    clusters = np.array(["a", "a", "b", "b", "c", "c"])
    got = judge_correlation_intervals(j, h, clusters, n_resamples=100, seed=3)
    keep = np.isfinite(j)
    want = _loop_correlation_intervals(j[keep], h[keep], clusters[keep], n_resamples=100, seed=3)
    for key in want:
        assert got[key] == pytest.approx(want[key], abs=1e-9), key
    one_video = judge_correlation_intervals(j, h, ["a"] * 6, n_resamples=100, seed=3)
    assert all(math.isnan(v) for pair in one_video.values() for v in pair)
    with pytest.raises(ValueError):
        judge_correlation_intervals(j, h[:3], clusters, n_resamples=100, seed=3)
    with pytest.raises(ValueError):
        judge_correlation_intervals(j, h, clusters, n_resamples=0, seed=3)
