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
