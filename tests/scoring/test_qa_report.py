"""The QA report's numbers against a hand computation: two QA runs against the stand-in, every
turn's answer and judgement scripted (tests/scoring/qa_report_world.py), Wilson intervals by
the formula, bootstrap and paired intervals from the statistics engine called directly."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest
from django.core.management import CommandError, call_command

from scoring.qa.report import ReportError, qa_report
from scoring.qa.report_files import CSV_COLUMNS, qa_report_cached, report_subject
from scoring.stats import fleiss_kappa
from scoring.stats.bootstrap import clustered_bootstrap, paired_difference
from tests.scoring import qa_report_world as world
from tests.scoring.conftest import TOLERANCE

Z = 1.96


@pytest.fixture
def report_world(make_video, admin_user, make_endpoint, packages, stand_in):
    return world.build(
        make_video=make_video,
        admin_user=admin_user,
        make_endpoint=make_endpoint,
        packages=packages,
        stand_in=stand_in,
    )


def wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson's score interval written out (eq. 2)."""
    p = k / n
    denominator = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / denominator
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / denominator
    return (0.0 if k == 0 else centre - half), (1.0 if k == n else centre + half)


def hand_turns(which: str, videos) -> list[dict]:
    """Every turn of the scripted run ``which`` as the report must see it."""
    turns = []
    for n, v, structure, category, modality, script in world.GROUPS:
        for t, (kind, a, b) in enumerate(script, start=1):
            s = a if which == "a" else b
            correct = 1.0 if s[0] == "c" else 0.0 if s[0] == "i" else math.nan
            score = float(s[1]) if kind == "open" and s[0] in "ci" else math.nan
            turns.append({"key": (n, t), "video": videos[v].pk, "structure": structure,
                          "category": category, "modality": modality, "turn": str(t),
                          "correct": correct, "score": score, "script": s,
                          "final": len(script) > 1 and t == len(script),
                          "multi": len(script) > 1})  # fmt: skip
    return turns


def close(ours, ref, what):
    assert ours is not None and abs(ours - ref) <= TOLERANCE, f"{what}: {ours} vs {ref}"


def check_cell(cell: dict, turns: list[dict], what: str) -> None:
    judged = [t for t in turns if not math.isnan(t["correct"])]
    acc = cell["accuracy"]
    assert acc["n"] == len(judged), what
    if len(judged) < 3:
        assert acc["few"] and acc["rate"] is None and acc["wilson"] is None, what
    else:
        k = int(sum(t["correct"] for t in judged))
        assert not acc["few"] and acc["correct"] == k, what
        close(acc["rate"], k / len(judged), f"{what} rate")
        low, high = wilson(k, len(judged))
        close(acc["wilson"][0], low, f"{what} wilson low")
        close(acc["wilson"][1], high, f"{what} wilson high")
        values = [t["correct"] for t in judged]
        _estimate, blow, bhigh = clustered_bootstrap(
            values, [t["video"] for t in judged], n_resamples=2000, seed=0
        )
        if math.isnan(blow):
            assert acc["bootstrap"] == [None, None], what
        else:
            close(acc["bootstrap"][0], blow, f"{what} bootstrap low")
            close(acc["bootstrap"][1], bhigh, f"{what} bootstrap high")
    scored = [t for t in turns if not math.isnan(t["score"])]
    sc = cell["score"]
    assert sc["n"] == len(scored), what
    if len(scored) < 3:
        assert sc["few"] and sc["mean"] is None, what
    else:
        _estimate, blow, bhigh = clustered_bootstrap(
            [t["score"] for t in scored], [t["video"] for t in scored], n_resamples=2000, seed=0
        )
        close(sc["mean"], sum(t["score"] for t in scored) / len(scored), f"{what} mean")
        if not math.isnan(blow):
            close(sc["bootstrap"][0], blow, f"{what} score low")
            close(sc["bootstrap"][1], bhigh, f"{what} score high")


def test_the_report_equals_a_hand_computation(report_world):
    runs = report_world["runs"]
    report = qa_report([runs["a"], runs["b"]], [(runs["a"], runs["b"])])
    json.dumps(report, allow_nan=False)  # every number is finite or null
    assert report["same_manifest"] and report["shared_groups"] == len(world.GROUPS)
    assert report["manifests"][0]["manifest_sha256"] == report_world["manifest"].manifest_sha256
    checked = 0
    for which, summary in zip("ab", report["runs"], strict=True):
        run = runs[which]
        assert (summary["run"], summary["id"], summary["model"]) == (
            run.name, run.pk, world.MODELS[which]
        )  # fmt: skip
        assert summary["judge"]["run"] == report_world["judges"][which].name
        assert len(summary["records_sha256"]) == 64
        turns = hand_turns(which, report_world["videos"])
        cells = {(c["stratum"], c["level"]): c for c in summary["cells"]}
        check_cell(cells[("all", "all")], turns, f"{which} all")
        for stratum in ("structure", "category", "modality", "turn"):
            for level in {t[stratum] for t in turns}:
                chosen = [t for t in turns if t[stratum] == level]
                check_cell(cells[(stratum, level)], chosen, f"{which} {stratum} {level}")
                checked += 1
        check_cell(cells[("multi_turn", "all_turns")], [t for t in turns if t["multi"]], "multi")
        check_cell(cells[("multi_turn", "final_turn")], [t for t in turns if t["final"]], "final")
        scripts = [t["script"] for t in turns]
        statuses = cells[("all", "all")]["statuses"]
        assert statuses["review"] == scripts.count("r")
        assert statuses["unjudged"] == scripts.count("u")
        assert statuses["error"] == scripts.count("e")
        assert statuses["not_asked"] == scripts.count("-")
    assert checked > 20

    # Run A by hand: its loop groups have 2 judged turns and world perception 2: no rates.
    a = {(c["stratum"], c["level"]): c for c in report["runs"][0]["cells"]}
    assert a[("structure", "loop")]["accuracy"]["few"]
    assert a[("category", "world_perception")]["accuracy"] == {
        "n": 2, "correct": None, "rate": None, "wilson": None, "bootstrap": None,
        "videos": None, "few": True,
    }  # fmt: skip
    # Final turns of multi-turn groups: 7 (right), 8 (wrong), 13 (right); 9 failed.
    assert (a[("multi_turn", "final_turn")]["accuracy"]["correct"],
            a[("multi_turn", "final_turn")]["accuracy"]["n"]) == (2, 3)  # fmt: skip
    # Whole dialogues: 7 and 8 wrong somewhere, 13 right, 9 an error (apart).
    dialogue = a[("multi_turn", "dialogue")]
    assert dialogue["groups"] == 4 and dialogue["statuses"] == {"incorrect": 2, "correct": 1,
                                                                 "error": 1}  # fmt: skip
    assert (dialogue["accuracy"]["correct"], dialogue["accuracy"]["n"]) == (1, 3)

    # Model x structure and model x category: rows = runs, columns in the paper's order.
    table = report["tables"]["structure"]
    assert [c["label"] for c in table["columns"]] == ["Node", "Edge", "Chain", "Loop", "All turns"]
    assert [r["run"] for r in table["rows"]] == [runs["a"].name, runs["b"].name]
    assert table["rows"][0]["cells"][3]["few"] and table["rows"][1]["cells"][3]["rate"] == 0.5
    assert table["rows"][0]["cells"][4] == a[("all", "all")]["accuracy"]
    columns = [c["label"] for c in report["tables"]["category"]["columns"]]
    assert columns == ["Action status", "Goal planning", "World perception", "All turns"]

    # Paired differences A - B on the common valid set, against the engine called directly.
    (pair,) = report["pairs"]
    assert (pair["a"], pair["b"], pair["shared_turns"]) == (runs["a"].name, runs["b"].name, 18)
    ta, tb = hand_turns("a", report_world["videos"]), hand_turns("b", report_world["videos"])
    assert [t["key"] for t in ta] == [t["key"] for t in tb]
    cells = {(c["stratum"], c["level"]): c for c in pair["accuracy"]}
    for (stratum, level), cell in cells.items():
        if stratum == "multi_turn":
            continue
        chosen = [i for i, t in enumerate(ta) if stratum == "all" or t[stratum] == level]
        effect = paired_difference(
            [ta[i]["correct"] for i in chosen],
            [tb[i]["correct"] for i in chosen],
            [ta[i]["video"] for i in chosen],
            n_resamples=2000,
            seed=0,
        )
        assert cell["n"] == effect.n, (stratum, level)
        if effect.n < 3:
            assert cell["few"] and cell["estimate"] is None
            continue
        close(cell["estimate"], effect.estimate, f"pair {stratum} {level}")
        if not math.isnan(effect.low):
            close(cell["low"], effect.low, f"pair {stratum} {level} low")
            close(cell["high"], effect.high, f"pair {stratum} {level} high")
            assert cell["significant"] == effect.significant
    sa, sb = [t["score"] for t in ta], [t["score"] for t in tb]
    effect = paired_difference(sa, sb, [t["video"] for t in ta], n_resamples=2000, seed=0)
    overall = next(c for c in pair["score"] if c["stratum"] == "all")
    close(overall["estimate"], effect.estimate, "pair score")
    close(overall["low"], effect.low, "pair score low")

    # Agreement on which turns are right: the counts, raw agreement and kappa by hand (two
    # raters, two categories: P_o = share agreeing, P_e = sum of squared pooled shares), and
    # kappa against the statistics engine called directly.
    both = [(x["correct"], y["correct"]) for x, y in zip(ta, tb, strict=True)
            if not (math.isnan(x["correct"]) or math.isnan(y["correct"]))]  # fmt: skip
    agree = pair["agreement"]
    assert agree["n"] == len(both) >= 3
    assert agree["both_correct"] == sum(1 for x, y in both if x and y)
    assert agree["both_incorrect"] == sum(1 for x, y in both if not x and not y)
    assert agree["only_a_correct"] == sum(1 for x, y in both if x and not y)
    assert agree["only_b_correct"] == sum(1 for x, y in both if y and not x)
    observed = sum(1 for x, y in both if x == y) / len(both)
    right = sum(x + y for x, y in both) / (2 * len(both))
    expected = right**2 + (1 - right) ** 2
    close(agree["raw"], observed, "pair raw agreement")
    close(agree["kappa"], (observed - expected) / (1 - expected), "pair kappa by hand")
    table = [[int(x + y), int(2 - x - y)] for x, y in both]
    close(agree["kappa"], fleiss_kappa(table), "pair kappa, engine")


def test_command_json_and_csv_and_the_cache(report_world):
    a, b = (report_world["runs"][k].name for k in "ab")
    out = io.StringIO()
    call_command("qa_report", a, b, "--pair", a, b, stdout=out)
    report = json.loads(out.getvalue())
    assert report["format"] == "intent-studio.qa-report/1" and len(report["inputs_sha256"]) == 64
    again, cached = qa_report_cached(*report_subject([a, b], [(a, b)]))
    assert cached and json.loads(again)["inputs_sha256"] == report["inputs_sha256"]
    out = io.StringIO()
    call_command("qa_report", a, "--format", "csv", stdout=out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert tuple(rows[0]) == CSV_COLUMNS
    loop = next(r for r in rows if r["stratum"] == "structure" and r["level"] == "loop"
                and r["metric"] == "accuracy")  # fmt: skip
    assert loop["note"] == "fewer than 3 questions" and loop["estimate"] == ""
    overall = next(r for r in rows if r["stratum"] == "all" and r["metric"] == "accuracy")
    assert float(overall["estimate"]) == pytest.approx(11 / 14)
    # A pair: rows of section "pair".
    out = io.StringIO()
    call_command("qa_report", a, b, "--pair", b, a, "--format", "csv", stdout=out)
    pairs = [r for r in csv.DictReader(io.StringIO(out.getvalue())) if r["section"] == "pair"]
    assert {(r["run"], r["run_b"]) for r in pairs} == {(b, a)}


def test_bad_input_is_refused(report_world, db):
    from scoring.models import ReportCache

    a = report_world["runs"]["a"]
    judge = report_world["judges"]["a"]
    for args, message in [
        (["nope"], "no run named nope"),
        ([judge.name], "not a QA run"),
        ([a.name, "--pair", a.name, a.name], "with itself"),
    ]:
        with pytest.raises(CommandError, match=message):
            call_command("qa_report", *args, stdout=io.StringIO())
    with pytest.raises(ReportError, match="twice"):
        qa_report([a, a])
    with pytest.raises(ReportError, match="one or more"):
        report_subject([])
    assert not ReportCache.objects.filter(kind="qa_report").exists()  # nothing written
