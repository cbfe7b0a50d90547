"""How the report pages and charts show numbers: two decimals with no signed zero, an interval
marked as excluding 0 only when its shown bounds do, conditions by their labels in the order of
the template, categorical conditions as points with interval bars (no line), the heatmap with its
values in the cells and on hover, judged models only."""

import pytest

from scoring.reports import charts
from scoring.reports.shown import excludes_zero, fmt

pytestmark = pytest.mark.django_db


def test_an_interval_touching_zero_as_shown_is_not_marked():
    assert fmt(-0.001, signed=True) == "0.00" and fmt(-0.001) == "0.00"
    assert fmt(-2.444, signed=True) == "-2.44" and fmt(0.5, signed=True) == "+0.50"
    assert not excludes_zero(-2.44, -0.001)  # shown as [-2.44, 0.00]
    assert excludes_zero(-2.44, -0.006)  # shown as [-2.44, -0.01]
    assert excludes_zero(0.01, 2.0) and not excludes_zero(-1.0, 1.0)
    assert not excludes_zero(None, 1.0)


def _effect(contrast, a, b, model, estimate, low, high):
    return {"stratum": "all", "level": "all", "contrast": contrast, "a": a, "b": b,
            "model": model, "dimension": "overall", "estimate": estimate, "low": low,
            "high": high, "n": 12}  # fmt: skip


def _report():
    conditions = []
    for model in ("m1", "m2", "all models"):
        for i, condition in enumerate(("ordered", "shuffled", "scene_only")):
            conditions.append({"stratum": "all", "level": "all", "model": model,
                               "condition": condition, "dimension": "overall", "n": 12,
                               "micro": 10.0 + i, "low": 9.0 + i, "high": 11.0 + i})  # fmt: skip
    return {
        "models_order": ["m1", "m2"],
        "conditions_order": ["ordered", "shuffled", "scene_only"],
        "conditions": conditions,
        "effects": [
            _effect("temporal", "ordered", "shuffled", "m1", -1.2, -2.44, -0.001),
            _effect("temporal", "ordered", "shuffled", "m2", -1.2, -2.44, -0.2),
            _effect("visual evidence", "ordered", "scene_only", "m1", 0.3, 0.1, 0.5),
        ],
    }


def test_the_condition_profile_is_points_with_interval_bars_in_the_templates_order():
    spec = charts.profiles(_report())
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["rule", "point"]  # nothing joins the categories
    x = spec["layer"][1]["encoding"]["x"]
    assert x["sort"] == ["Frames in order", "Frames shuffled", "Scene only"]
    assert {r["condition"] for r in spec["layer"][1]["data"]["values"]} == set(x["sort"])
    assert spec["layer"][1]["encoding"]["xOffset"]["field"] == "model"
    bars = spec["layer"][0]
    assert bars["encoding"]["y"]["field"] == "low" and bars["encoding"]["y2"]["field"] == "high"


def test_the_forest_marks_only_intervals_clear_of_zero_as_shown_and_names_conditions():
    rows = charts.forest(_report())["data"]["values"]
    flags = {(r["contrast"], r["model"]): r["significant"] for r in rows}
    assert flags == {
        ("temporal (Frames in order \u2212 Frames shuffled)", "m1"): "includes 0",
        ("temporal (Frames in order \u2212 Frames shuffled)", "m2"): "interval excludes 0",
        ("visual evidence (Frames in order \u2212 Scene only)", "m1"): "interval excludes 0",
    }


def _board():
    model = {"overall": 40.0, "gf": None, "hic": None, "tpc": None, "npf": None}
    return {
        "models": [
            {**model, "model": "judged", "reference_judge": "ref"},
            {**model, "model": "unjudged", "reference_judge": None, "overall": 0.0},
        ],
        "scenes": [
            {"model": "judged", "scene": "indoor/kitchen", "n": 6, "overall": 40.0},
            {"model": "unjudged", "scene": "indoor/kitchen", "n": 6, "overall": 0.0},
        ],
    }


def test_the_heatmap_writes_its_values_and_shows_them_on_hover():
    spec = charts.scene_heatmap(_board())
    assert [r["model"] for r in spec["data"]["values"]] == ["judged"]  # never a fake 0
    rect, text = spec["layer"]
    assert rect["mark"] == "rect" and text["mark"]["type"] == "text"
    assert rect["encoding"]["description"]["field"] == "hover"
    assert spec["width"]["step"] >= 100 and spec["height"]["step"] >= 34
    svg = charts.chart_inline_svg(spec)
    assert svg.startswith('<svg role="img" ')
    hover = "judged in indoor/kitchen: Overall 40.00 (6 steps)"
    assert svg.count(f"<title>{hover}</title>") == 2  # the cell and the value written in it
    assert [
        r["model"] for r in charts.leaderboard_bars(_board())["layer"][0]["data"]["values"]
    ] == ["judged"]


def test_an_svg_with_anything_active_is_never_put_into_a_page(monkeypatch):
    monkeypatch.setattr(charts, "chart_svg", lambda spec: "<svg><script>alert(1)</script></svg>")
    assert charts.chart_inline_svg({}) is None
    monkeypatch.setattr(charts, "chart_svg", lambda spec: '<svg><rect onload="x()"/></svg>')
    assert charts.chart_inline_svg({}) is None
