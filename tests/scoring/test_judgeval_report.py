"""The judge-validation report on a small fixture equals hand computations (pure, no database)."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from scipy import stats

from scoring.judgeval.report import RatedTriplet, judgeval_report, report_csv
from scoring.stats import icc_2k, icc_2k_interval, krippendorff_alpha

# Four steps x two models = eight triplets over three videos in two scenes; raters ann, bo, cy.
HUMANS = {
    ("s1", "ma"): ((80, 70, 60), (90, 60, 50), (70, 65, 40)),
    ("s1", "mb"): ((30, 40, 20), (20, 50, 30), (40, 45, 10)),
    ("s2", "ma"): ((60, 60, 60), (50, 70, 80), (55, 65, 70)),
    ("s2", "mb"): ((10, 20, 0), (0, 30, 10), (20, 10, 5)),
    ("s3", "ma"): ((95, 90, 70), (85, 80, 90), (90, 85, 60)),
    ("s3", "mb"): ((50, 40, 30), (60, 30, 20), (40, 50, 25)),
    ("s4", "ma"): ((70, 50, 40), (75, 55, 30), (65, 60, 50)),
    ("s4", "mb"): ((45, 35, 55), (35, 25, 65), (40, 30, 45)),
}
JUDGE = {
    ("s1", "ma"): (85, 60, 20),
    ("s1", "mb"): (30, 45, 30),
    ("s2", "ma"): (50, 70, 70),
    ("s2", "mb"): (5, 15, 40),
    ("s3", "ma"): (90, 85, 80),
    ("s3", "mb"): (45, 40, 20),
    ("s4", "ma"): (60, 60, 45),
    ("s4", "mb"): (40, 20, 50),
}
WHERE = {"s1": ("yard", "v1"), "s2": ("yard", "v1"), "s3": ("hall", "v2"), "s4": ("hall", "v3")}
RATERS = ("ann", "bo", "cy")


def triplets(*, drop=None):
    rows = []
    for (step, model), scores in HUMANS.items():
        humans = dict(zip(RATERS, scores, strict=True))
        if drop == (step, model):
            humans.pop("cy")
        scene, video = WHERE[step]
        rows.append(
            RatedTriplet(step, model, scene, video, humans, {"ref-judge": JUDGE[(step, model)]})
        )
    return rows


@pytest.fixture(scope="module")
def report():
    return judgeval_report(triplets(), raters_per_triplet=3, judges=["ref-judge"], n_resamples=500)


def keys():
    return sorted(HUMANS)


def human_matrix(dim):
    return np.array([[r[dim] for r in HUMANS[k]] for k in keys()], dtype=float)


def overall_matrix():
    return np.array([[np.mean(r) for r in HUMANS[k]] for k in keys()], dtype=float)


def test_human_reliability_is_icc_and_alpha_of_the_independent_ratings(report):
    for d, dim in enumerate(("local", "procedural", "next")):
        y = human_matrix(d)
        got = report["humans"][dim]
        assert got["icc_2k"] == pytest.approx(icc_2k(y))
        assert got["icc_2k_ci"] == pytest.approx(list(icc_2k_interval(y)))
        assert got["alpha"] == pytest.approx(krippendorff_alpha(y.T, level="interval"))
        assert got["n"] == 8
    assert report["humans"]["overall"]["icc_2k"] == pytest.approx(icc_2k(overall_matrix()))


def test_judge_agreement_per_dimension_by_hand(report):
    agreement = report["judges"][0]["agreement"]
    for d, dim in enumerate(("local", "procedural", "next")):
        h = human_matrix(d).mean(axis=1)
        j = np.array([JUDGE[k][d] for k in keys()], dtype=float)
        got = agreement[dim]
        assert got["mae"] == pytest.approx(np.mean(np.abs(j - h)))
        assert got["bias"] == pytest.approx(np.mean(j - h))
        assert got["pearson"] == pytest.approx(np.corrcoef(j, h)[0, 1])
        assert got["spearman"] == pytest.approx(stats.spearmanr(j, h)[0])
        assert got["kendall_tau_b"] == pytest.approx(stats.kendalltau(j, h, variant="b")[0])
        assert got["large_disagreement_rate"] == pytest.approx(np.mean(np.abs(j - h) >= 25))
        low, high = got["mae_ci"]
        assert low <= got["mae"] <= high


def test_correlations_carry_the_engines_clustered_intervals_with_the_reports_seed(report):
    from scoring.judgeval.report import report_csv
    from scoring.stats import judge_correlation_intervals

    videos = [WHERE[step][1] for step, _ in keys()]
    agreement = report["judges"][0]["agreement"]
    for d, dim in enumerate(("local", "procedural", "next")):
        h = human_matrix(d).mean(axis=1)
        j = np.array([JUDGE[k][d] for k in keys()], dtype=float)
        want = judge_correlation_intervals(j, h, videos, n_resamples=500, seed=0)
        for key in ("pearson", "spearman", "kendall_tau_b"):
            low, high = agreement[dim][f"{key}_ci"]
            assert (low, high) == pytest.approx(want[key]), (dim, key)
            assert low <= high
    assert "pearson_low,pearson_high" in report_csv(report).splitlines()[0]


def test_overall_is_computed_within_item_first(report):
    """Eq. 40: Overall MAE is the MAE of the per-item means, not the mean of dimension MAEs."""
    overall = report["judges"][0]["agreement"]["overall"]
    h = overall_matrix().mean(axis=1)
    j = np.array([np.mean(JUDGE[k]) for k in keys()])
    assert overall["mae"] == pytest.approx(np.mean(np.abs(j - h)))
    per_dim = np.mean(
        [report["judges"][0]["agreement"][d]["mae"] for d in ("local", "procedural", "next")]
    )
    assert overall["mae"] != pytest.approx(per_dim)
    # By hand: |J̄ - H̄| per item is 10, 10/3, 0, 25/3, 20/9, 10/3, 0, 5; their mean is 145/36.
    assert overall["mae"] == pytest.approx(145 / 36)


def test_large_disagreements_by_hand(report):
    # Next: only (s1, ma) with J = 20 against H = 50 is 25 or more points away... and (s2, mb)
    # with J = 40 against H = 5.
    assert report["judges"][0]["agreement"]["next"]["large_disagreement_rate"] == pytest.approx(
        2 / 8
    )


def test_model_ranking_side_by_side(report):
    ranking = {r["model"]: r for r in report["judges"][0]["ranking"]}
    h_ma = np.mean([np.mean(HUMANS[k]) for k in keys() if k[1] == "ma"])
    j_mb = np.mean([np.mean(JUDGE[k]) for k in keys() if k[1] == "mb"])
    assert ranking["ma"]["human"] == pytest.approx(h_ma)
    assert ranking["mb"]["judge"] == pytest.approx(j_mb)
    assert (ranking["ma"]["human_rank"], ranking["mb"]["human_rank"]) == (1, 2)
    assert (ranking["ma"]["judge_rank"], ranking["mb"]["judge_rank"]) == (1, 2)


def test_per_scene_mae_and_bias(report):
    scenes = {s["scene"]: s for s in report["judges"][0]["scenes"]}
    yard = [k for k in keys() if WHERE[k[0]][0] == "yard"]
    h = np.array([np.mean(HUMANS[k], axis=0) for k in yard])
    j = np.array([JUDGE[k] for k in yard], dtype=float)
    assert scenes["yard"]["n"] == 4
    assert scenes["yard"]["mae"]["local"] == pytest.approx(np.mean(np.abs(j[:, 0] - h[:, 0])))
    assert scenes["yard"]["bias"]["next"] == pytest.approx(np.mean(j[:, 2] - h[:, 2]))


def test_leave_one_out_for_humans_and_the_judge(report):
    loo = report["leave_one_out"]
    y = human_matrix(0)
    first = loo["humans"][0]["local"]
    others = y[:, 1:].mean(axis=1)
    assert first["mae"] == pytest.approx(np.mean(np.abs(y[:, 0] - others)))
    j = np.array([JUDGE[k][0] for k in keys()], dtype=float)
    expected = np.mean(
        [np.mean(np.abs(j - np.delete(y, c, axis=1).mean(axis=1))) for c in range(3)]
    )
    assert loo["judges"][0]["local"]["mae"] == pytest.approx(expected)


def test_incomplete_triplets_are_left_out_and_counted():
    report = judgeval_report(
        triplets(drop=("s1", "ma")), raters_per_triplet=3, judges=["ref-judge"], n_resamples=200
    )
    assert (report["complete_triplets"], report["incomplete_triplets"]) == (7, 1)


def test_csv_has_a_row_per_statistic(report):
    rows = list(csv.DictReader(io.StringIO(report_csv(report))))
    sections = {r["section"] for r in rows}
    assert sections == {"human", "judge", "ranking", "scene", "loo_human", "loo_judge"}
    judge_overall = next(r for r in rows if r["section"] == "judge" and r["dimension"] == "overall")
    assert float(judge_overall["mae"]) == pytest.approx(
        report["judges"][0]["agreement"]["overall"]["mae"]
    )
