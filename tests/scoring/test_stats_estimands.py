"""Study estimands on a fixture computed by hand (eqs. 42-45, appendix I.2-I.3)."""

import numpy as np
import pytest

from scoring.stats import (
    ALL_MODELS,
    Cell,
    Contrast,
    ScoreTable,
    benchmark_values,
    clustered_bootstrap,
    clustered_bootstrap_rows,
    group_means,
    macro_mean,
    paired_difference,
    study_estimates,
)

NAN = np.nan
ITEMS = ["i1", "i2", "i3", "i4", "i5", "i6"]
VIDEOS = ["v1", "v2", "v2", "v2", "v3", "v3"]
SCENES = ["s1", "s1", "s2", "s2", "s2", "s2"]
BINS = ["<1 s", "<1 s", "1-2 s", "1-2 s", "1-2 s", "<1 s"]
# (local, next) per item; None marks a cell without scores.
M1A = [(60, 40), None, (80, 20), (50, 50), (70, 30), (90, 10)]  # i2: invalid answer (scores 0)
M1B = [(40, 20), (30, 30), (60, 20), (50, 30), (40, 40), (20, 20)]
M2A = [(50, 50), (70, 10), (60, 60), (40, 20), (30, 30), (80, 40)]
M2B = [(30, 10), (50, 10), (60, 40), (20, 20), (30, 10), None]  # i6: provider refusal


def _cells(rows):
    return [[NAN, NAN] if r is None else list(r) for r in rows]


def _table(window_valid=None):
    scores = np.array([[_cells(M1A), _cells(M1B)], [_cells(M2A), _cells(M2B)]], dtype=float)
    status = np.zeros((2, 2, 6), dtype=int)
    status[0, 0, 1] = Cell.INVALID
    status[1, 1, 5] = Cell.EXECUTION
    return ScoreTable(
        models=("m1", "m2"),
        conditions=("A", "B"),
        dimensions=("local", "next"),
        items=np.array(ITEMS),
        videos=np.array(VIDEOS),
        scenes=np.array(SCENES),
        scores=scores,
        status=status,
        strata={"duration_bin": np.array(BINS, dtype=object)},
        window_valid=window_valid,
    )


CONTRASTS = [Contrast("A minus B", "A", "B"), Contrast("gain", "A", "B", ("local", "next"))]


def _report(**kw):
    kw.setdefault("composite", ("overall", ("local", "next")))
    return study_estimates(_table(kw.pop("window_valid", None)), contrasts=CONTRASTS, **kw)


def _row(rows, **match):
    found = [r for r in rows if all(r[k] == v for k, v in match.items())]
    assert len(found) == 1, (match, found)
    return found[0]


def _cond(report, model, condition, dim="local", stratum="all", level="all"):
    return _row(
        report["conditions"],
        model=model,
        condition=condition,
        dimension=dim,
        stratum=stratum,
        level=level,
    )


def _eff(report, model, dim="local", contrast="A minus B", stratum="all", level="all"):
    return _row(
        report["effects"],
        model=model,
        dimension=dim,
        contrast=contrast,
        stratum=stratum,
        level=level,
    )


def test_condition_means_are_micro_scene_macro_and_video_macro_by_hand():
    r = _report()
    m1a = _cond(r, "m1", "A")
    # [60, 0 (invalid answer), 80, 50, 70, 90]
    assert m1a["n"] == 6
    assert m1a["micro"] == pytest.approx(350 / 6)
    assert m1a["scene_macro"] == pytest.approx(((60 + 0) / 2 + (80 + 50 + 70 + 90) / 4) / 2)
    assert m1a["video_macro"] == pytest.approx((60 + (0 + 80 + 50) / 3 + (70 + 90) / 2) / 3)
    # B lost i6 for both models (m2's refusal): [40, 30, 60, 50, 40]
    m1b = _cond(r, "m1", "B")
    assert (m1b["n"], m1b["micro"]) == (5, pytest.approx(44.0))
    assert _cond(r, "m2", "B")["micro"] == pytest.approx((30 + 50 + 60 + 20 + 30) / 5)
    # The composite is formed per item: m1 A overall = mean of (local+next)/2
    overall = [(60 + 40) / 2, 0, (80 + 20) / 2, (50 + 50) / 2, (70 + 30) / 2, (90 + 10) / 2]
    assert _cond(r, "m1", "A", "overall")["micro"] == pytest.approx(sum(overall) / 6)
    # all models: per-item mean over the two models
    pooled = [(60 + 50) / 2, (0 + 70) / 2, (80 + 60) / 2, (50 + 40) / 2, (70 + 30) / 2]
    pooled.append((90 + 80) / 2)
    assert _cond(r, ALL_MODELS, "A")["micro"] == pytest.approx(sum(pooled) / 6)


def test_paired_difference_is_on_the_common_set_before_averaging():
    r = _report()
    m1 = _eff(r, "m1")  # i1..i5: [20, -30, 20, 0, 30]
    assert (m1["n"], m1["videos"]) == (5, 3)
    assert m1["estimate"] == pytest.approx(8.0)
    assert m1["scene_macro"] == pytest.approx(((20 - 30) / 2 + (20 + 0 + 30) / 3) / 2)
    assert m1["video_macro"] == pytest.approx((20 + (-30 + 20 + 0) / 3 + 30) / 3)
    assert _eff(r, "m2")["estimate"] == pytest.approx(12.0)  # [20, 20, 0, 20, 0]
    assert _eff(r, ALL_MODELS)["estimate"] == pytest.approx(10.0)
    assert _eff(r, "m1", "next")["estimate"] == pytest.approx(0.0)  # [20, -30, 0, 20, -10]
    # The difference of the two rounded condition means (58.33 - 44) is not the effect.
    assert m1["estimate"] != pytest.approx(round(350 / 6, 2) - 44.0)


def test_gain_test_is_the_per_item_difference_of_two_dimension_effects():
    g = _eff(_report(), "m1", "local-next", contrast="gain")
    assert (g["n"], g["estimate"]) == (5, pytest.approx((0 + 0 + 20 - 20 + 40) / 5))


def test_intervals_equal_the_engines_with_the_same_seed():
    r = _report(n_resamples=2000, seed=20260721)
    a = np.array([60, 0, 80, 50, 70, NAN])
    b = np.array([40, 30, 60, 50, 40, NAN])
    ref = paired_difference(a, b, np.array(VIDEOS), n_resamples=2000, seed=20260721)
    m1 = _eff(r, "m1")
    assert m1["low"] == pytest.approx(ref.low, abs=1e-9)
    assert m1["high"] == pytest.approx(ref.high, abs=1e-9)
    assert m1["significant"] is ref.significant
    assert r["bootstrap"] == {
        "replicates": 2000,
        "seed": 20260721,
        "confidence": 0.95,
        "cluster": "source video",
        "method": "percentile",
    }


@pytest.mark.parametrize("statistic", ["scene_macro", "video_macro"])
def test_macro_intervals_equal_the_engines_with_the_same_seed(statistic):
    r = _report(n_resamples=2000, seed=20260721)
    a = np.array([60, 0, 80, 50, 70, NAN])
    b = np.array([40, 30, 60, 50, 40, NAN])
    ref = paired_difference(
        a,
        b,
        np.array(VIDEOS),
        n_resamples=2000,
        seed=20260721,
        statistic=statistic,
        scenes=np.array(SCENES),
    )
    m1 = _eff(r, "m1")
    assert m1[statistic] == pytest.approx(ref.estimate)
    assert m1[f"{statistic}_low"] == pytest.approx(ref.low, abs=1e-9)
    assert m1[f"{statistic}_high"] == pytest.approx(ref.high, abs=1e-9)
    assert m1[f"{statistic}_significant"] is ref.significant
    assert (m1["n"], m1["videos"], m1["scenes"]) == (5, 3, 2)


def test_macro_intervals_by_hand_on_two_videos():
    # m1, A - B, scene s1 = i1 (v1) and i2 (v2): differences [20, -30]; two videos, so the
    # replicates are {v1, v1}: 20, {v2, v2}: -30 and {v1, v2}: -5 (twice as likely).
    r = _report(n_resamples=4000, seed=5)
    s1 = _eff(r, "m1", stratum="scene", level="s1")
    assert (s1["n"], s1["videos"], s1["scenes"]) == (2, 2, 1)
    assert s1["estimate"] == s1["scene_macro"] == s1["video_macro"] == pytest.approx(-5.0)
    for prefix in ("", "scene_macro_", "video_macro_"):
        assert s1[f"{prefix}low"] == pytest.approx(-30.0)
        assert s1[f"{prefix}high"] == pytest.approx(20.0)
        assert s1[f"{prefix}significant"] is False
    # one source video: no interval for any variant
    for statistic in ("micro", "scene_macro", "video_macro"):
        est, low, high = clustered_bootstrap(
            [20.0, -30.0], ["v1", "v1"], statistic=statistic, scenes=["s1", "s2"]
        )
        assert est == pytest.approx(-5.0) and np.isnan(low) and np.isnan(high)


def test_exclusions_are_counted_per_condition_reason_and_model():
    ex = {e["condition"]: e for e in _report()["exclusions"]}
    assert ex["A"]["removed"] == 0 and ex["A"]["valid"] == 6
    assert ex["A"]["by_model"]["m1"] == {"invalid_answer_scored_0": 1}
    assert ex["B"]["removed"] == 1 and ex["B"]["valid"] == 5
    assert ex["B"]["by_reason"] == {"execution_failure": 1}
    assert ex["B"]["by_model"] == {"m1": {}, "m2": {"execution_failure": 1}}


def test_an_invalid_window_removes_the_item_for_every_model():
    wv = np.ones((2, 6), dtype=bool)
    wv[0, 2] = False  # i3 under A
    r = _report(window_valid=wv)
    assert _cond(r, "m2", "A")["micro"] == pytest.approx((50 + 70 + 40 + 30 + 80) / 5)
    assert _eff(r, "m1")["estimate"] == pytest.approx((20 - 30 + 0 + 30) / 4)
    ex = {e["condition"]: e for e in r["exclusions"]}
    assert ex["A"]["by_reason"] == {"invalid_window": 1}


def test_study_wide_common_set_uses_items_valid_under_every_condition():
    r = _report(common="study")
    assert _cond(r, "m1", "A")["n"] == 5
    assert _cond(r, "m1", "A")["micro"] == pytest.approx((60 + 0 + 80 + 50 + 70) / 5)


def test_breakdowns_by_scene_and_duration_bin():
    r = _report()
    short = _eff(r, "m1", stratum="duration_bin", level="<1 s")  # i1, i2 (i6 removed)
    assert (short["n"], short["estimate"]) == (2, pytest.approx(-5.0))
    s2 = _eff(r, "m1", stratum="scene", level="s2")  # i3, i4, i5
    assert (s2["n"], s2["estimate"]) == (3, pytest.approx(50 / 3))
    assert _cond(r, "m1", "A", stratum="scene", level="s1")["micro"] == pytest.approx(30.0)


def test_full_benchmark_rule_scores_every_failure_as_zero():
    values = benchmark_values(_table())
    assert values[0, 0, :, 0].tolist() == [60, 0, 80, 50, 70, 90]
    assert values[1, 1, :, 0].tolist() == [30, 50, 60, 20, 30, 0]
    means = group_means(values[1, 1, :, 0][None], np.array(SCENES), np.array(VIDEOS))
    assert means["micro"][0] == pytest.approx(190 / 6)


def test_unknown_condition_or_dimension_is_refused():
    with pytest.raises(ValueError, match="unknown condition"):
        study_estimates(_table(), contrasts=[Contrast("x", "A", "Z")])
    with pytest.raises(ValueError, match="unknown dimension"):
        study_estimates(_table(), contrasts=[Contrast("x", "A", "B", ("local", "why"))])
    with pytest.raises(ValueError, match="status"):
        ScoreTable(
            models=("m",),
            conditions=("A",),
            dimensions=("local",),
            items=np.array(["a"]),
            videos=np.array(["v"]),
            scenes=np.array(["s"]),
            scores=np.zeros((1, 1, 1, 1)),
            status=np.full((1, 1, 1), 9),
        )


def test_rows_match_the_engine_on_random_tables(assert_close):
    rng = np.random.default_rng(7)
    for case in range(30):
        n = int(rng.integers(2, 80))
        videos = rng.integers(0, int(rng.integers(1, 9)), size=n)
        scenes = rng.integers(0, 4, size=n)
        rows = rng.uniform(0, 100, size=(5, n))
        rows[rng.random((5, n)) < 0.2] = NAN
        seed = int(rng.integers(0, 2**31))
        batch = clustered_bootstrap_rows(rows, videos, n_resamples=300, seed=seed)
        means = group_means(rows, scenes, videos)
        for s in range(5):
            est, low, high = clustered_bootstrap(rows[s], videos, n_resamples=300, seed=seed)
            assert_close(batch.estimate[s], est, f"case {case} row {s} estimate")
            assert_close(batch.low[s], low, f"case {case} row {s} low")
            assert_close(batch.high[s], high, f"case {case} row {s} high")
            assert_close(means["scene_macro"][s], macro_mean(rows[s], scenes), f"case {case}")
            assert_close(means["video_macro"][s], macro_mean(rows[s], videos), f"case {case}")


def test_a_tag_stratum_breaks_every_contrast_down_and_untagged_items_have_no_level():
    table = _table()
    tagged = ScoreTable(
        **{
            f: getattr(table, f)
            for f in ("models", "conditions", "dimensions", "items", "videos", "scenes")
        },
        scores=table.scores,
        status=table.status,
        strata={"tag:action_type": np.array(["pour", "pour", "", "cut", "pour", ""], dtype=object)},
    )
    r = study_estimates(tagged, contrasts=CONTRASTS, n_resamples=500, seed=3)
    levels = {(e["stratum"], e["level"]) for e in r["effects"]}
    assert {lv for s, lv in levels if s == "tag:action_type"} == {"cut", "pour"}
    pour = _eff(r, "m1", stratum="tag:action_type", level="pour")  # i1, i2, i5: [20, -30, 30]
    assert (pour["n"], pour["videos"], pour["scenes"]) == (3, 3, 2)
    assert pour["estimate"] == pytest.approx(20 / 3)
    assert pour["scene_macro"] == pytest.approx(((20 - 30) / 2 + 30) / 2)
    ref = paired_difference(
        np.array([60.0, 0, 70]), np.array([40.0, 30, 40]), np.array(["v1", "v2", "v3"]),
        n_resamples=500, seed=3,
    )  # fmt: skip
    assert (pour["low"], pour["high"]) == (pytest.approx(ref.low), pytest.approx(ref.high))
    gain = _eff(r, "m1", "local-next", contrast="gain", stratum="tag:action_type", level="cut")
    assert gain["n"] == 1 and gain["low"] is None  # one source video: no interval
