"""Clustered percentile bootstrap (eq. 21, appendix I.2) and paired difference (eq. 45)."""

import math

import numpy as np
import pytest

from scoring.stats import PairedEffect, clustered_bootstrap, paired_difference

N_CASES = 200


def _percentile(sorted_values, q):
    """Linear-interpolation percentile (numpy's default method), in plain Python."""
    h = (len(sorted_values) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (h - lo) * (sorted_values[hi] - sorted_values[lo])


def _loop_bootstrap(values, clusters, n_resamples, seed, confidence):
    """The documented draw rule, item by item, with Python lists."""
    items = [(v, c) for v, c in zip(values, clusters, strict=True) if math.isfinite(v)]
    if not items:
        return math.nan, math.nan, math.nan
    estimate = sum(v for v, _ in items) / len(items)
    labels = sorted({c for _, c in items})
    if len(labels) < 2:
        return estimate, math.nan, math.nan
    members = {label: [v for v, c in items if c == label] for label in labels}
    draws = np.random.default_rng(seed).integers(0, len(labels), size=(n_resamples, len(labels)))
    replicates = []
    for row in draws.tolist():
        chosen = []
        for j in row:
            chosen.extend(members[labels[j]])
        replicates.append(sum(chosen) / len(chosen))
    replicates.sort()
    tail = (1 - confidence) / 2
    return estimate, _percentile(replicates, tail), _percentile(replicates, 1 - tail)


def _random_clustered_sample(rng, case):
    n = int(rng.integers(1, 60))
    n_clusters = int(rng.integers(1, 9))
    ids = rng.integers(0, n_clusters, size=n)
    clusters = np.array([f"video-{i:02d}" for i in ids]) if case % 3 == 0 else ids * 7 + 3
    values = rng.uniform(0, 100, size=n) if case % 2 else rng.integers(0, 2, size=n).astype(float)
    values[rng.random(n) < 0.1] = np.nan
    return values, clusters


def test_clustered_bootstrap_matches_a_plain_loop_with_the_same_draws(assert_close):
    rng = np.random.default_rng(20260713)
    for case in range(N_CASES):
        values, clusters = _random_clustered_sample(rng, case)
        n_resamples = int(rng.integers(1, 250))
        seed = int(rng.integers(0, 2**31))
        confidence = float(rng.choice([0.95, 0.9, rng.uniform(0.5, 0.99)]))
        ours = clustered_bootstrap(
            values, clusters, n_resamples=n_resamples, seed=seed, confidence=confidence
        )
        ref = _loop_bootstrap(values.tolist(), clusters.tolist(), n_resamples, seed, confidence)
        for name, a, b in zip(("estimate", "low", "high"), ours, ref, strict=True):
            assert_close(a, b, f"case {case} {name}")


def _loop_paired(a, b, clusters, n_resamples, seed, confidence):
    diffs, kept = [], []
    for x, y, c in zip(a, b, clusters, strict=True):
        if math.isfinite(x) and math.isfinite(y):
            diffs.append(x - y)
            kept.append(c)
    est, low, high = _loop_bootstrap(diffs, kept, n_resamples, seed, confidence)
    return est, low, high, len(diffs), bool(low > 0 or high < 0)


def test_paired_difference_matches_a_plain_loop_with_the_same_draws(assert_close):
    rng = np.random.default_rng(45)
    significant = 0
    for case in range(N_CASES):
        a, clusters = _random_clustered_sample(rng, case)
        shift = rng.choice([0.0, 5.0, -20.0])
        b = a + shift + rng.normal(0, 10, size=a.size)
        b[rng.random(a.size) < 0.1] = np.nan
        n_resamples = int(rng.integers(1, 250))
        seed = int(rng.integers(0, 2**31))
        ours = paired_difference(a, b, clusters, n_resamples=n_resamples, seed=seed)
        ref = _loop_paired(a.tolist(), b.tolist(), clusters.tolist(), n_resamples, seed, 0.95)
        assert isinstance(ours, PairedEffect)
        for name, x, y in zip(("estimate", "low", "high"), ours[:3], ref[:3], strict=True):
            assert_close(x, y, f"case {case} {name}")
        assert ours.n == ref[3]
        assert ours.significant is ref[4]
        significant += ours.significant
    assert 20 <= significant <= 180  # both outcomes are exercised


def test_clustered_bootstrap_defaults_follow_the_paper():
    rng = np.random.default_rng(1)
    values = rng.uniform(0, 100, 320)
    clusters = rng.integers(0, 32, 320)
    default = clustered_bootstrap(values, clusters)
    explicit = clustered_bootstrap(values, clusters, n_resamples=2000, seed=0, confidence=0.95)
    assert default == explicit
    assert default[1] < default[0] < default[2]


def test_clustered_bootstrap_is_reproducible_and_depends_on_the_seed():
    rng = np.random.default_rng(2)
    values = rng.normal(size=200)
    clusters = rng.integers(0, 10, 200)
    first = clustered_bootstrap(values, clusters, seed=20260713)
    assert first == clustered_bootstrap(values, clusters, seed=20260713)
    assert first != clustered_bootstrap(values, clusters, seed=1)


def test_clustered_bootstrap_estimate_is_the_item_weighted_mean():
    values = np.array([1.0, 1.0, 1.0, 10.0])
    clusters = np.array(["a", "a", "a", "b"])
    assert clustered_bootstrap(values, clusters, n_resamples=10)[0] == pytest.approx(13 / 4)


def test_clustered_bootstrap_handles_missing_values_and_degenerate_clusters():
    nan = math.nan
    assert all(math.isnan(v) for v in clustered_bootstrap([], []))
    assert all(math.isnan(v) for v in clustered_bootstrap([nan, nan], [1, 2]))
    est, low, high = clustered_bootstrap([1.0, 2.0, 6.0], ["v", "v", "v"])
    assert est == 3.0 and math.isnan(low) and math.isnan(high)
    # a cluster whose only item is missing disappears before drawing
    est, low, high = clustered_bootstrap([1.0, 2.0, nan], [1, 1, 2])
    assert est == 1.5 and math.isnan(low) and math.isnan(high)


def test_clustered_bootstrap_interval_has_zero_width_when_every_cluster_agrees():
    est, low, high = clustered_bootstrap([5.0] * 6, [1, 1, 2, 3, 3, 3], n_resamples=50)
    assert est == low == high == 5.0


def test_paired_difference_uses_only_the_common_valid_set():
    a = [10.0, 20.0, math.nan, 40.0, 50.0]
    b = [0.0, math.nan, 30.0, 30.0, 45.0]
    effect = paired_difference(a, b, [1, 1, 2, 2, 3], n_resamples=100)
    assert effect.n == 3
    assert effect.estimate == pytest.approx((10 + 10 + 5) / 3)


def test_paired_difference_degenerate_cases_are_never_significant():
    empty = paired_difference([math.nan], [1.0], [0])
    assert empty.n == 0 and not empty.significant and math.isnan(empty.estimate)
    one_cluster = paired_difference([5.0, 6.0], [1.0, 1.0], ["v", "v"])
    assert one_cluster.estimate == 4.5 and one_cluster.n == 2 and not one_cluster.significant
    assert math.isnan(one_cluster.low) and math.isnan(one_cluster.high)


def test_paired_difference_flags_a_clear_effect_as_significant():
    rng = np.random.default_rng(3)
    clusters = np.repeat(np.arange(32), 10)
    b = rng.uniform(0, 80, clusters.size)
    effect = paired_difference(b + 10 + rng.normal(0, 1, b.size), b, clusters)
    assert effect.significant and effect.low > 0 and effect.n == 320
    low_first = paired_difference(b, b + 10, clusters)
    assert low_first.significant and low_first.high < 0


def test_paired_effect_is_immutable():
    effect = paired_difference([1.0, 2.0], [0.0, 0.0], [1, 2], n_resamples=10)
    with pytest.raises(AttributeError):
        effect.estimate = 0.0


@pytest.mark.parametrize(
    ("kwargs", "args"),
    [
        ({}, ([1.0, 2.0], [1])),
        ({}, ([[1.0, 2.0]], [[1, 2]])),
        ({"n_resamples": 0}, ([1.0], [1])),
        ({"n_resamples": 2.5}, ([1.0], [1])),
        ({"confidence": 1.0}, ([1.0], [1])),
        ({"confidence": 0.0}, ([1.0], [1])),
        ({}, (["x"], [1])),
    ],
)
def test_clustered_bootstrap_rejects_malformed_input(kwargs, args):
    with pytest.raises(ValueError):
        clustered_bootstrap(*args, **kwargs)


@pytest.mark.parametrize(
    "args", [([1.0, 2.0], [1.0], [1, 2]), ([1.0, 2.0], [1.0, 2.0], [1]), ([[1.0]], [[1.0]], [1])]
)
def test_paired_difference_rejects_mismatched_lengths(args):
    with pytest.raises(ValueError):
        paired_difference(*args)


def _loop_statistic(draw_groups, statistic):
    """The replicate statistic of the draw rule's step 4 on a list of drawn clusters, each a
    list of (value, scene) items, in plain Python."""
    items = [x for group in draw_groups for x in group]
    if statistic == "micro":
        return sum(v for v, _ in items) / len(items)
    if statistic == "video_macro":
        return sum(sum(v for v, _ in g) / len(g) for g in draw_groups) / len(draw_groups)
    by_scene = {}
    for v, scene in items:
        by_scene.setdefault(scene, []).append(v)
    return sum(sum(x) / len(x) for x in by_scene.values()) / len(by_scene)


def _loop_macro_bootstrap(values, clusters, scenes, n_resamples, seed, confidence, statistic):
    items = [(v, c, s) for v, c, s in zip(values, clusters, scenes, strict=True)]
    items = [x for x in items if math.isfinite(x[0])]
    if not items:
        return math.nan, math.nan, math.nan
    labels = sorted({c for _, c, _ in items})
    members = {label: [(v, s) for v, c, s in items if c == label] for label in labels}
    estimate = _loop_statistic([members[label] for label in labels], statistic)
    if len(labels) < 2:
        return estimate, math.nan, math.nan
    draws = np.random.default_rng(seed).integers(0, len(labels), size=(n_resamples, len(labels)))
    replicates = sorted(
        _loop_statistic([members[labels[j]] for j in row], statistic) for row in draws.tolist()
    )
    tail = (1 - confidence) / 2
    return estimate, _percentile(replicates, tail), _percentile(replicates, 1 - tail)


@pytest.mark.parametrize("statistic", ["micro", "scene_macro", "video_macro"])
def test_macro_intervals_match_a_plain_loop_with_the_same_draws(assert_close, statistic):
    rng = np.random.default_rng(4344)
    for case in range(80):
        values, clusters = _random_clustered_sample(rng, case)
        # scenes mostly follow the video, some videos span two scenes
        ids = np.unique(clusters, return_inverse=True)[1].ravel()
        scenes = np.array([f"s{(i * 3 + int(rng.random() < 0.2)) % 4}" for i in ids])
        n_resamples = int(rng.integers(1, 120))
        seed = int(rng.integers(0, 2**31))
        ours = clustered_bootstrap(
            values,
            clusters,
            n_resamples=n_resamples,
            seed=seed,
            statistic=statistic,
            scenes=scenes,
        )
        ref = _loop_macro_bootstrap(
            values.tolist(),
            clusters.tolist(),
            scenes.tolist(),
            n_resamples,
            seed,
            0.95,
            statistic,
        )
        for name, a, b in zip(("estimate", "low", "high"), ours, ref, strict=True):
            assert_close(a, b, f"case {case} {statistic} {name}")


def test_macro_paired_difference_shares_the_micro_draws():
    a = np.array([60.0, 10, 80, 50, 70, 90, 20, 40])
    b = np.array([40.0, 30, 60, 50, 40, 20, 20, np.nan])
    videos = np.array(["v1", "v1", "v2", "v2", "v3", "v3", "v4", "v4"])
    scenes = np.array(["s1", "s1", "s1", "s1", "s2", "s2", "s2", "s2"])
    d = [20, -20, 20, 0, 30, 70, 0]  # the last item is outside the common set
    micro = paired_difference(a, b, videos, n_resamples=500, seed=9)
    scene = paired_difference(
        a, b, videos, n_resamples=500, seed=9, statistic="scene_macro", scenes=scenes
    )
    video = paired_difference(a, b, videos, n_resamples=500, seed=9, statistic="video_macro")
    assert micro.estimate == pytest.approx(sum(d) / 7)
    assert scene.estimate == pytest.approx((sum(d[:4]) / 4 + sum(d[4:]) / 3) / 2)
    assert video.estimate == pytest.approx((0 + 10 + 50 + 0) / 4)
    assert micro.n == scene.n == video.n == 7
    ref = _loop_macro_bootstrap(
        d, videos[:7].tolist(), scenes[:7].tolist(), 500, 9, 0.95, "scene_macro"
    )
    assert (scene.low, scene.high) == pytest.approx(ref[1:], abs=1e-9)


def test_macro_statistic_arguments_are_checked():
    with pytest.raises(ValueError, match="statistic"):
        clustered_bootstrap([1.0, 2.0], [1, 2], statistic="median")
    with pytest.raises(ValueError, match="needs scenes"):
        clustered_bootstrap([1.0, 2.0], [1, 2], statistic="scene_macro")
    with pytest.raises(ValueError, match="scenes has length"):
        clustered_bootstrap([1.0, 2.0], [1, 2], statistic="scene_macro", scenes=["a"])
