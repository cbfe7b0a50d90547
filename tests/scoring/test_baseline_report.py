"""The baseline report on a fixture with known answers equals hand-computed values for eqs. 9-26
(κ by the statistics engine, the bootstrap by the engine with the fixture's seed)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scoring.reports.baseline import Answer, Item, Response, compute
from scoring.similarity import Lexical
from scoring.stats import paired_difference

SEED = 20260713
REPS = 2000

ITEMS = [
    Item("i1", "vA", "indoor/kitchen", 0),
    Item("i2", "vA", "indoor/kitchen", 1),
    Item("i3", "vB", "outdoor/yard", 0),
    Item("i4", "vB", "outdoor/yard", 1),
]


def r(rater, uid, local, procedural, nxt, conf):
    """A response; a dimension given as None is unanswerable. conf: int or (L, P, N)."""
    confs = conf if isinstance(conf, tuple) else (conf, conf, conf)
    dims = {}
    for name, texts, c in zip(
        ("local", "procedural", "next"), (local, procedural, nxt), confs, strict=True
    ):
        if texts is None:
            dims[name] = Answer(False, (), c)
        else:
            dims[name] = Answer(True, tuple([texts] if isinstance(texts, str) else texts), c)
    return Response(rater, uid, False, dims, 10.0)


RESPONSES = [
    r("r1", "i1", "lift red cup", "clean kitchen", ["rinse cup", "dry mug"], (5, 4, 3)),
    r("r2", "i1", "lift red cup", "clean kitchen", ["rinse cup"], 4),
    r("r3", "i1", "lift blue cup", "clean kitchen", None, (3, 3, 2)),
    r("r1", "i2", "open door", "leave room", ["walk out"], 5),
    r("r2", "i2", "open door", None, None, 2),
    r("r3", "i2", "close window", "leave room", ["walk out"], 3),
    r("r1", "i3", "wipe table", "dry dishes", ["open tap", "fill kettle", "boil water"], 4),
    r("r2", "i3", "wipe table", "dry dishes", ["open tap", "pour milk"], 4),
    r("r3", "i3", "wipe table", "store dishes", ["boil water"], 4),
    r("r1", "i4", "sit", "rest", None, 1),
    Response("r2", "i4", True),
    r("r3", "i4", None, None, None, 1),
]

# z from the judge; 99 on an unanswerable dimension proves it is never used (eq. 9).
Z = {
    ("r1", "i1"): (80, 60, 40),
    ("r2", "i1"): (90, 70, 50),
    ("r3", "i1"): (70, 50, 99),
    ("r1", "i2"): (100, 80, 60),
    ("r2", "i2"): (60, 99, 99),
    ("r3", "i2"): (40, 40, 40),
    ("r1", "i3"): (50, 50, 50),
    ("r2", "i3"): (70, 70, 70),
    ("r3", "i3"): (90, 90, 90),
    ("r1", "i4"): (20, 20, 99),
}
HUMAN = {k: dict(zip(("local", "procedural", "next"), v, strict=True)) for k, v in Z.items()}


def m(scores):
    return {
        u: dict(zip(("local", "procedural", "next"), s, strict=True)) for u, s in scores.items()
    }


MODELS = {
    "m1": m({"i1": (50, 50, 50), "i2": (40, 40, 40), "i3": (60, 30, 30), "i4": (10, 10, 10)}),
    "m2": m({"i1": (90, 90, 90), "i2": (80, 80, 80), "i3": (70, 70, 70)}),
}


@pytest.fixture(scope="module")
def report():
    return compute(
        items=ITEMS,
        responses=RESPONSES,
        human_scores=HUMAN,
        models=MODELS,
        similarity=Lexical(),
        bin_labels=["<1 s", "≥1 s"],
        seed=SEED,
        replicates=REPS,
    )


def close(a, b):
    assert a == pytest.approx(b, abs=1e-12), (a, b)


def test_human_scores_abstention_and_overall(report):  # eqs. 9, 10, 12
    h = report["human"]
    assert h["local"]["n"] == 11 and report["broken"] == {"responses": 1, "items": ["i4"]}
    close(h["local"]["score"], 670 / 11)
    close(h["procedural"]["score"], 530 / 11)
    close(h["next"]["score"], 400 / 11)
    close(h["overall"]["score"], 1600 / 33)


def test_answerability_majority_and_kappa(report):  # eqs. 14-18
    a = report["answerability"]
    close(a["local"]["answerable_rate"], 10 / 11)
    close(a["procedural"]["answerable_rate"], 9 / 11)
    close(a["next"]["answerable_rate"], 7 / 11)
    assert [a[d]["majority_answerable_items"] for d in a] == [3, 3, 3]
    close(a["local"]["human_majority"], 650 / 9)
    close(a["procedural"]["human_majority"], 510 / 9)
    close(a["next"]["human_majority"], 400 / 9)
    assert a["local"]["kappa_items"] == 3 and a["local"]["kappa_raters"] == 3
    assert a["local"]["fleiss_kappa"] is None  # every rating in one category
    close(a["procedural"]["fleiss_kappa"], -0.125)
    close(a["next"]["fleiss_kappa"], -2 / 7)
    close(a["procedural"]["raw_agreement"], 7 / 9)
    close(a["local"]["mean_confidence"], 36 / 11)
    close(a["procedural"]["mean_confidence"], 35 / 11)
    close(a["next"]["mean_confidence"], 3.0)


def test_semantic_agreement(report):  # eqs. 19-20 with the lexical Dice function
    g = report["agreement"]
    close(g["local"]["semantic_agreement"], 19 / 27)
    assert g["local"]["pairs"] == 9
    close(g["procedural"]["semantic_agreement"], 6 / 7)
    assert g["procedural"]["pairs"] == 7
    close(g["next"]["semantic_agreement"], 17 / 30)
    assert g["next"]["pairs"] == 5


def test_next_ambiguity(report):  # eqs. 22-26
    n = report["next_ambiguity"]
    close(n["single_rate"], 1 / 4)
    close(n["multiple_rate"], 2 / 4)
    close(n["unanswerable_rate"], 1 / 4)
    close(n["mean_clusters"], 7 / 3)
    h1 = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3)) / math.log(2)
    h3 = -(2 / 3 * math.log(1 / 3) + 1 / 3 * math.log(1 / 6)) / math.log(4)
    close(n["mean_normalized_entropy"], (h1 + 0 + h3) / 3)
    close(n["top3_cluster_share"], 17 / 18)
    i3 = next(row for row in n["clusters"] if row["step"] == "i3")
    assert i3["clusters"] == [["boil water", "boil water"], ["open tap", "open tap"],
                              ["fill kettle"], ["pour milk"]]  # fmt: skip
    assert [row["step"] for row in n["clusters"]] == ["i1", "i2", "i3"]


def test_models_on_the_identical_steps_and_the_gap(report):  # eqs. 11, 13, 16, 21
    m1, m2 = report["models"]
    assert (m1["model"], m1["steps"], m1["missing_steps"]) == ("m1", 4, 0)
    assert (m2["model"], m2["steps"], m2["missing_steps"]) == ("m2", 3, 1)
    assert m2["missing"] == ["i4"] and m1["missing"] == []
    close(m1["local"], 40)
    close(m1["procedural"], 32.5)
    close(m1["overall"], 35)
    close(m1["local_majority"], 50)
    close(m1["overall_minus_human"], 35 - 1600 / 33)
    gap = m1["gap"]["overall"]
    close(gap["gap"], -10)
    h = np.array([170 / 3, 140 / 3, 70, 20 / 3])
    mo = np.array([50, 40, 40, 10])
    ref = paired_difference(mo, h, ["vA", "vA", "vB", "vB"], n_resamples=REPS, seed=SEED)
    close(gap["ci95"][0], ref.low)
    close(gap["ci95"][1], ref.high)
    assert report["bootstrap"] == {"replicates": REPS, "seed": SEED, "cluster": "source video"}
    assert report["best_model"] == "m2"


def test_strata(report):  # tables 29-31
    r1, r2, r3 = report["raters"]
    close(r1["local"], 62.5)
    close(r1["overall"], (62.5 + 52.5 + 37.5) / 3)
    close(r1["mean_confidence"], 3.5)
    close(r1["answerable_rate"], 11 / 12)
    assert r2["broken"] == 1 and r2["n"] == 3
    close(r2["procedural"], 140 / 3)
    close(r3["next"], 32.5)
    bin0, bin1 = report["duration_bins"]
    assert (bin0["label"], bin0["items"], bin0["n"]) == ("<1 s", 2, 6)
    close(bin0["local"], 75)
    close(bin0["best_model"], 80)
    close(bin0["advantage"], bin0["overall"] - 80)
    assert bin1["items"] == 2 and bin1["best_model"] == 80  # m2 has only i2 of this bin
    kitchen, yard = report["scenes"]
    assert (kitchen["scene"], kitchen["items"]) == ("indoor/kitchen", 2)
    close(yard["local"], (50 + 70 + 90 + 20 + 0) / 5)


def test_not_judged_yet_gives_no_scores_but_every_other_figure(report):
    bare = compute(items=ITEMS, responses=RESPONSES, human_scores=None, models={},
                   similarity=Lexical(), bin_labels=["a", "b"], seed=1, replicates=100)  # fmt: skip
    assert bare["human"]["local"]["score"] is None
    assert bare["answerability"] == {**bare["answerability"]}
    close(bare["agreement"]["procedural"]["semantic_agreement"], 6 / 7)
