"""Charts of the reports as declarative Vega-Lite specs (data inline), rendered to SVG on the
server by vl-convert-python. Pages show them as ``<img>`` (an SVG image never runs a script) with
a text alternative, and offer each spec with its data as JSON. A chart's SVG is cached by the
hash of its spec, so it is drawn once per report."""

from __future__ import annotations

import json
import re

from django.utils.safestring import mark_safe

from scoring.reports.cache import cached_report
from scoring.reports.shown import excludes_zero, fmt
from scoring.stats import ALL_MODELS
from studio.vocabulary import label

SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"  # a name, never fetched
# Text sizes that read at 1440 px without zooming.
FONT = {
    "config": {
        "font": "sans-serif",
        "view": {"stroke": None},
        "axis": {"labelFontSize": 12, "titleFontSize": 12},
        "legend": {"labelFontSize": 12, "titleFontSize": 12},
        "header": {"labelFontSize": 12},
        "title": {"fontSize": 14},
    }
}


def _spec(title: str, body: dict) -> dict:
    return {"$schema": SCHEMA, "title": title, **FONT, **body}


chart_spec = _spec  # for the charts of other reports (scoring.qa.report_charts)


def _condition(code: str) -> str:
    return label("condition", code)


MINUS = "\u2212"
# Every mark's description is its row's "hover" text: Vega writes it as the mark's aria-label,
# and chart_inline_svg makes it the <title> a browser shows on hover.
HOVER = {"field": "hover", "type": "nominal"}


def _contrast(r: dict) -> str:
    """``temporal (Frames in order - Frames shuffled)``, with a minus sign."""
    return f"{r['contrast']} ({_condition(r['a'])} {MINUS} {_condition(r['b'])})"


def forest(report: dict) -> dict:
    """Every contrast's Overall (or gain-test) effect per model with its 95% interval; marked
    as excluding 0 by the rule of the tables (scoring.reports.shown)."""
    rows = [
        {
            "contrast": _contrast(r),
            "model": r["model"],
            "estimate": r["estimate"],
            "low": r["low"],
            "high": r["high"],
            "significant": "interval excludes 0"
            if excludes_zero(r["low"], r["high"])
            else "includes 0",
            "n": r["n"],
            "hover": f"{r['model']}: \u0394 {fmt(r['estimate'], True)}, 95% interval "
            f"[{fmt(r['low'], True)}, {fmt(r['high'], True)}], N {r['n']}",
        }
        for r in report["effects"]
        if r["stratum"] == "all"
        and (r["dimension"] == "overall" or "-" in r["dimension"])
        and r["estimate"] is not None
    ]
    models = [*report["models_order"], ALL_MODELS]
    return _spec(
        "Paired effects (overall; gain tests in their dimensions) with 95% clustered intervals",
        {
            "data": {"values": rows},
            "facet": {
                "row": {
                    "field": "contrast",
                    "type": "nominal",
                    "title": None,
                    "sort": list(dict.fromkeys(r["contrast"] for r in rows)),  # the study's order
                    # the contrast's name above its panel, read left to right
                    "header": {
                        "labelAngle": 0,
                        "labelOrient": "top",
                        "labelAlign": "left",
                        "labelAnchor": "start",
                        "labelFontWeight": "bold",
                    },
                }
            },
            "spec": {
                "width": 640,
                "height": {"step": 22},
                "layer": [
                    {"mark": {"type": "rule", "color": "#999"}, "encoding": {"x": {"datum": 0}}},
                    {
                        "mark": "rule",
                        "encoding": {
                            "y": {
                                "field": "model",
                                "type": "nominal",
                                "title": None,
                                "sort": models,
                            },
                            "x": {"field": "low", "type": "quantitative", "title": "Δ"},
                            "x2": {"field": "high"},
                        },
                    },
                    {
                        "mark": {"type": "point", "filled": True, "size": 50},
                        "encoding": {
                            "y": {"field": "model", "type": "nominal", "sort": models},
                            "x": {"field": "estimate", "type": "quantitative"},
                            "color": {
                                "field": "significant",
                                "type": "nominal",
                                "title": None,
                                "scale": {
                                    "domain": ["interval excludes 0", "includes 0"],
                                    "range": ["#c0392b", "#7f8c8d"],
                                },
                            },
                            "description": HOVER,
                        },
                    },
                ],
            },
        },
    )


def profiles(report: dict) -> dict:
    """Overall per condition for every model: a point with its 95% interval bar per model
    beside the others, the conditions in the order of the study's template (they are
    categories, so nothing joins them)."""
    order = [_condition(c) for c in report["conditions_order"]]
    rows = [
        {
            "model": r["model"],
            "condition": _condition(r["condition"]),
            "overall": r["micro"],
            "low": r.get("low"),
            "high": r.get("high"),
            "n": r["n"],
            "hover": f"{r['model']} under {_condition(r['condition'])}: Overall "
            f"{fmt(r['micro'])}"
            + (
                f", 95% interval [{fmt(r['low'])}, {fmt(r['high'])}]"
                if r.get("low") is not None and r.get("high") is not None
                else ""
            )
            + f", N {r['n']}",
        }
        for r in report["conditions"]
        if r["stratum"] == "all" and r["dimension"] == "overall" and r["micro"] is not None
    ]
    x = {"field": "condition", "type": "nominal", "sort": order, "title": None,
         "axis": {"labelAngle": 0, "labelLimit": 140}}  # fmt: skip
    offset = {"field": "model", "type": "nominal", "sort": report["models_order"]}
    color = {"field": "model", "type": "nominal", "title": None,
             "sort": [*report["models_order"], ALL_MODELS]}  # fmt: skip
    with_interval = [r for r in rows if r["low"] is not None and r["high"] is not None]
    layers = []
    if with_interval:
        layers.append(
            {
                "data": {"values": with_interval},
                "mark": {"type": "rule", "strokeWidth": 2},
                "encoding": {
                    "x": x,
                    "xOffset": offset,
                    "y": {"field": "low", "type": "quantitative"},
                    "y2": {"field": "high"},
                    "color": color,
                },
            }
        )
    layers.append(
        {
            "data": {"values": rows},
            "mark": {"type": "point", "filled": True, "size": 70},
            "encoding": {
                "x": x,
                "xOffset": offset,
                "y": {"field": "overall", "type": "quantitative", "title": "Overall"},
                "color": color,
                "shape": {"field": "model", "type": "nominal", "legend": None},
                "description": HOVER,
            },
        }
    )
    return _spec(
        "Overall by condition and model, with 95% clustered intervals (common valid set)",
        {"width": 720, "height": 300, "layer": layers},
    )


def _judged(board: dict) -> list[dict]:
    """The models a reference judge scored: the others have no score to draw (not 0)."""
    return [r for r in board["models"] if r.get("reference_judge")]


def leaderboard_bars(board: dict) -> dict:
    """Overall per judged model as bars with the four diagnostics as lines (figure 1's idea)."""
    judged = _judged(board)
    order = [r["model"] for r in judged]
    bars = [
        {"model": r["model"], "overall": r["overall"],
         "hover": f"{r['model']}: Overall {fmt(r['overall'])}"}
        for r in judged
    ]  # fmt: skip
    lines = [
        {"model": r["model"], "diagnostic": label("diagnostic", d), "score": r[d],
         "hover": f"{r['model']}: {label('diagnostic', d)} {fmt(r[d])}"}
        for r in judged
        for d in ("gf", "hic", "tpc", "npf")
        if r[d] is not None
    ]  # fmt: skip
    layers = [
        {
            "data": {"values": bars},
            "mark": {"type": "bar", "color": "#8aa9c9"},
            "encoding": {
                "x": {
                    "field": "model",
                    "type": "nominal",
                    "sort": order,
                    "title": None,
                    "axis": {"labelAngle": -20, "labelLimit": 200},
                },
                "y": {"field": "overall", "type": "quantitative", "title": "score"},
                "description": HOVER,
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
                    "description": HOVER,
                },
            }
        )
    return _spec(
        "Overall (bars) and the video judge's diagnostics (lines) per judged model",
        {"width": 620, "height": 300, "layer": layers},
    )


def scene_heatmap(board: dict) -> dict:
    """Overall per scene and judged model: cells big enough to read at 1440 px, each with its
    value written in it and on hover."""
    judged = {r["model"] for r in _judged(board)}
    order = [r["model"] for r in board["models"] if r["model"] in judged]
    rows = [
        {**r, "hover": f"{r['model']} in {r['scene']}: Overall {fmt(r['overall'])} "
         f"({r['n']} steps)"}
        for r in board["scenes"]
        if r["model"] in judged
    ]  # fmt: skip
    x = {"field": "scene", "type": "nominal", "title": None,
         "axis": {"labelAngle": -30, "labelLimit": 160}}  # fmt: skip
    y = {"field": "model", "type": "nominal", "sort": order, "title": None,
         "axis": {"labelLimit": 220}}  # fmt: skip
    return _spec(
        "Overall by scene and judged model",
        {
            "data": {"values": rows},
            "width": {"step": 120},
            "height": {"step": 40},
            "encoding": {"x": x, "y": y},
            "layer": [
                {
                    "mark": "rect",
                    "encoding": {
                        "color": {
                            "field": "overall",
                            "type": "quantitative",
                            "title": "Overall",
                            "scale": {"scheme": "blues", "domain": [0, 100]},
                        },
                        "description": HOVER,
                    },
                },
                {
                    "mark": {"type": "text", "fontSize": 13},
                    "encoding": {
                        "text": {"field": "overall", "type": "quantitative", "format": ".1f"},
                        "description": HOVER,
                        "color": {
                            "condition": {"test": "datum.overall > 55", "value": "white"},
                            "value": "black",
                        },
                    },
                },
            ],
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


# A mark Vega drew with a description: an element closed on itself, or a text mark (whose
# <title> goes before its text).
_MARK = re.compile(
    r'<(path|line|rect|circle)\b([^<>]*?\baria-label="([^"<>]*)"[^<>]*?\brole="graphics-symbol"'
    r"[^<>]*?)/>"
)
_TEXT_MARK = re.compile(
    r'<text\b([^<>]*?\baria-label="([^"<>]*)"[^<>]*?\baria-roledescription="text mark"'
    r"[^<>]*?)>"
)
# What an SVG put into a page must never hold (Vega writes none of it; checked all the same).
_ACTIVE = re.compile(r"<script|<foreignObject|\son[a-z]+\s*=|javascript:", re.IGNORECASE)


def chart_inline_svg(spec: dict) -> str | None:
    """The chart for a page: its SVG with each mark's values as a ``<title>`` (shown on
    hover), or ``None`` when the SVG holds anything active (the page then shows it as an
    image, where nothing runs)."""
    svg = chart_svg(spec)
    if _ACTIVE.search(svg):
        return None
    svg = _MARK.sub(lambda m: f"<{m[1]}{m[2]}><title>{m[3]}</title></{m[1]}>", svg)
    svg = _TEXT_MARK.sub(lambda m: f"<text{m[1]}><title>{m[2]}</title>", svg)
    return svg.replace("<svg ", '<svg role="img" ', 1)


def chart_figures(charts: dict, source: dict, url) -> list[dict]:
    """The figures of a report page: ``charts`` maps names to spec builders, ``url(name, fmt)``
    gives a chart's download address; a chart with nothing to draw is left out."""
    figures = []
    for name, build in charts.items():
        spec = build(source)
        if not chart_points(spec):
            continue
        figures.append(
            {
                "name": name,
                "title": spec["title"],
                "alt": chart_alt(name, spec),
                # Vega's own SVG of our spec, checked by chart_inline_svg: no script, no handler
                "svg": mark_safe(svg) if (svg := chart_inline_svg(spec)) else None,  # noqa: S308
                "svg_url": url(name, "svg"),
                "spec_url": url(name, "json"),
            }
        )
    return figures
