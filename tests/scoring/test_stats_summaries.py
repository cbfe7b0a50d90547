"""Macro means (eqs. 43-44), normalised entropy (eq. 26) and set similarity (eq. 20)."""

import math
from collections import defaultdict

import numpy as np
import pytest
from scipy.stats import entropy as scipy_entropy

from scoring.stats import macro_mean, normalized_entropy, set_similarity

N_CASES = 200


def test_macro_mean_matches_a_plain_loop(assert_close):
    rng = np.random.default_rng(43)
    for case in range(N_CASES):
        n = int(rng.integers(1, 100))
        groups = rng.integers(0, int(rng.integers(1, 16)), size=n)
        if case % 2:
            groups = np.array([f"scene-{g}" for g in groups])
        values = rng.uniform(0, 100, n)
        values[rng.random(n) < 0.1] = np.nan
        by_group = defaultdict(list)
        for v, g in zip(values.tolist(), groups.tolist(), strict=True):
            if not math.isnan(v):
                by_group[g].append(v)
        means = [sum(vs) / len(vs) for vs in by_group.values()]
        ref = sum(means) / len(means) if means else math.nan
        assert_close(macro_mean(values, groups), ref, f"case {case}")


def test_macro_mean_gives_every_group_equal_weight():
    values = [100.0, 0.0, 0.0, 0.0, 0.0]
    assert macro_mean(values, ["a", "b", "b", "b", "b"]) == 50.0
    assert macro_mean(values, [1, 1, 1, 1, 1]) == 20.0


def test_macro_mean_degenerate_inputs():
    assert math.isnan(macro_mean([], []))
    assert math.isnan(macro_mean([math.nan], ["a"]))
    assert macro_mean([3.0, math.nan], ["a", "b"]) == 3.0  # group b has no valid item


@pytest.mark.parametrize(
    ("values", "groups"), [([1.0, 2.0], ["a"]), ([[1.0]], [["a"]]), (["x"], ["a"])]
)
def test_macro_mean_rejects_malformed_input(values, groups):
    with pytest.raises(ValueError):
        macro_mean(values, groups)


def _loop_entropy(counts):
    nonzero = [c for c in counts if c > 0]
    if len(nonzero) == 1:
        return 0.0
    total = sum(nonzero)
    return -sum(c / total * math.log(c / total) for c in nonzero) / math.log(len(nonzero))


def test_normalized_entropy_matches_scipy_and_a_plain_loop(assert_close):
    rng = np.random.default_rng(26)
    for case in range(N_CASES):
        counts = rng.integers(0, 6, size=int(rng.integers(1, 8)))
        if counts.sum() == 0:
            counts[0] = 1
        ours = normalized_entropy(counts)
        k = int((counts > 0).sum())
        ref = 0.0 if k == 1 else scipy_entropy(counts) / math.log(k)
        assert_close(ours, ref, f"case {case} counts={counts.tolist()}")
        assert_close(ours, _loop_entropy(counts.tolist()), f"case {case} loop")
        assert 0.0 <= ours <= 1.0 + 1e-12


def test_normalized_entropy_bounds():
    assert normalized_entropy([7]) == 0.0
    assert normalized_entropy([7, 0, 0]) == 0.0
    assert normalized_entropy([2, 2, 2]) == pytest.approx(1.0)
    assert normalized_entropy([3, 0, 3]) == pytest.approx(1.0)


def test_normalized_entropy_of_no_answers_is_nan():
    assert math.isnan(normalized_entropy([]))
    assert math.isnan(normalized_entropy([0, 0]))


@pytest.mark.parametrize("counts", [[-1, 2], [1.5, 2], [[1, 2]], [math.nan, 1], ["a"]])
def test_normalized_entropy_rejects_malformed_counts(counts):
    with pytest.raises(ValueError):
        normalized_entropy(counts)


def _loop_set_similarity(sim):
    rows = [list(r) for r in sim]
    cols = [list(c) for c in zip(*rows, strict=True)]
    forward = sum(max(r) for r in rows) / len(rows)
    backward = sum(max(c) for c in cols) / len(cols)
    return (forward + backward) / 2


def test_set_similarity_matches_a_plain_loop(assert_close):
    rng = np.random.default_rng(20)
    for case in range(N_CASES):
        sim = rng.uniform(0, 1, size=(int(rng.integers(1, 4)), int(rng.integers(1, 4))))
        ours = set_similarity(sim)
        assert_close(ours, _loop_set_similarity(sim.tolist()), f"case {case}")
        assert_close(set_similarity(sim.T), ours, f"case {case} symmetry")


def test_set_similarity_of_identical_sets_is_one():
    assert set_similarity(np.eye(3)) == 1.0
    assert set_similarity([[0.2, 1.0]]) == pytest.approx(0.5 * (1.0 + 0.6))


def test_set_similarity_of_an_empty_set_is_nan():
    assert math.isnan(set_similarity(np.zeros((0, 3))))
    assert math.isnan(set_similarity(np.zeros((2, 0))))


@pytest.mark.parametrize("sim", [[0.5, 0.5], [[0.5, math.nan]], np.zeros((1, 1, 1))])
def test_set_similarity_rejects_malformed_input(sim):
    with pytest.raises(ValueError):
        set_similarity(sim)
