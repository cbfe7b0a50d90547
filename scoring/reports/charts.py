"""Charts of the reports as declarative Vega-Lite specs (data inline), rendered to SVG on the
server by vl-convert-python. Pages show them as ``<img>`` (an SVG image never runs a script) with
a text alternative, and offer each spec with its data as JSON. A chart's SVG is cached by the
hash of its spec, so it is drawn once per report."""

from __future__ import annotations

import json

from scoring.reports.cache import cached_report
from scoring.stats import ALL_MODELS

SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"  # a name, never fetched
FONT = {"config": {"font": "sans-serif", "view": {"stroke": None}}}


def _spec(title: str, body: dict) -> dict:
    return {"$schema": SCHEMA, "title": title, **FONT, **body}


def forest(report: dict) -> dict:
    """Every contrast's Overall (or gain-test) effect per model with its 95% interval."""
    rows = [
        {
            "contrast": r["contrast"],
            "model": r["model"],
            "estimate": r["estimate"],
            "low": r["low"],
            "high": r["high"],
            "significant": "interval excludes 0" if r["significant"] else "includes 0",
            "n": r["n"],
        }
        for r in report["effects"]
        if r["stratum"] == "all"
        and (r["dimension"] == "overall" or "-" in r["dimension"])
        and r["estimate"] is not None
    ]
    return _spec(
        "Paired effects (overall; gain tests in their dimensions) with 95% clustered intervals",
        {
            "data": {"values": rows},
            "facet": {"row": {"field": "contrast", "type": "nominal", "title": None}},
            "spec": {
                "width": 520,
                "height": {"step": 16},
                "layer": [
                    {"mark": {"type": "rule", "color": "#999"}, "encoding": {"x": {"datum": 0}}},
                    {
                        "mark": "rule",
                        "encoding": {
                            "y": {"field": "model", "type": "nominal", "title": None},
                            "x": {"field": "low", "type": "quantitative", "title": "Δ"},
                            "x2": {"field": "high"},
                        },
                    },
                    {
                        "mark": {"type": "point", "filled": True, "size": 50},
                        "encoding": {
                            "y": {"field": "model", "type": "nominal"},
                            "x": {"field": "estimate", "type": "quantitative"},
                            "color": {"field": "significant", "type": "nominal", "title": None},
                        },
                    },
                ],
            },
        },
    )


def profiles(report: dict) -> dict:
    """Overall per condition for every model (the study's condition profile)."""
    order = report["conditions_order"]
    rows = [
        {"model": r["model"], "condition": r["condition"], "overall": r["micro"], "n": r["n"]}
        for r in report["conditions"]
        if r["stratum"] == "all" and r["dimension"] == "overall" and r["micro"] is not None
    ]
    return _spec(
        "Overall by condition and model (common valid set)",
        {
            "data": {"values": rows},
            "width": 560,
            "height": 300,
            "mark": {"type": "line", "point": True},
            "encoding": {
                "x": {"field": "condition", "type": "nominal", "sort": order, "title": None},
                "y": {"field": "overall", "type": "quantitative", "title": "Overall"},
                "color": {"field": "model", "type": "nominal", "title": None},
                "strokeDash": {
                    "condition": {"test": f"datum.model === '{ALL_MODELS}'", "value": [4, 2]},
                    "value": [1, 0],
                },
            },
        },
    )


def leaderboard_bars(board: dict) -> dict:
    """Overall per model as bars with the four diagnostics as lines (figure 1's idea)."""
    order = [r["model"] for r in board["models"]]
    bars = [{"model": r["model"], "overall": r["overall"]} for r in board["models"]]
    lines = [
        {"model": r["model"], "diagnostic": d.upper(), "score": r[d]}
        for r in board["models"]
        for d in ("gf", "hic", "tpc", "npf")
        if r[d] is not None
    ]
    layers = [
        {
            "data": {"values": bars},
            "mark": {"type": "bar", "color": "#8aa9c9"},
            "encoding": {
                "x": {"field": "model", "type": "nominal", "sort": order, "title": None},
                "y": {"field": "overall", "type": "quantitative", "title": "score"},
            },
        }
    ]
    if lines:  # an empty layer leaves Vega without a domain
        layers.append(
            {
                "data": {"values": lines},
                "mark": {"type": "line", "point": True},
                "encoding": {
                    "x": {"field": "model", "type": "nominal", "sort": order},
                    "y": {"field": "score", "type": "quantitative"},
                    "color": {"field": "diagnostic", "type": "nominal", "title": None},
                },
            }
        )
    return _spec(
        "Overall (bars) and the video judge's diagnostics (lines) per model",
        {"width": 620, "height": 300, "layer": layers},
    )


def scene_heatmap(board: dict) -> dict:
    order = [r["model"] for r in board["models"]]
    return _spec(
        "Overall by scene and model",
        {
            "data": {"values": board["scenes"]},
            "mark": "rect",
            "encoding": {
                "x": {"field": "scene", "type": "nominal", "title": None},
                "y": {"field": "model", "type": "nominal", "sort": order, "title": None},
                "color": {"field": "overall", "type": "quantitative", "title": "Overall"},
            },
        },
    )


STUDY_CHARTS = {"forest": forest, "profiles": profiles}
LEADERBOARD_CHARTS = {"bars": leaderboard_bars, "scenes": scene_heatmap}


def chart_points(spec: dict) -> int:
    rows = spec.get("data", {}).get("values")
    if rows is None:
        rows = [v for layer in spec.get("layer", []) for v in layer["data"]["values"]]
    return len(rows)


def chart_alt(name: str, spec: dict) -> str:
    rows = range(chart_points(spec))
    return f"{spec['title']}: {len(rows)} data points; the same numbers are in the tables below."


def chart_svg(spec: dict) -> str:
    """The spec drawn as SVG (cached by the hash of the spec's canonical JSON)."""
    import vl_convert

    text = json.dumps(spec, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    svg, _ = cached_report(
        kind="chart",
        subject=spec["title"][:200],
        inputs={"spec": text},
        compute=lambda: {"svg": vl_convert.vegalite_to_svg(spec)},
    )
    return json.loads(svg)["svg"]
