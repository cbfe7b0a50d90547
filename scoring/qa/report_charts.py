"""Charts of the QA report (``scoring.reports.charts`` draws them): accuracy by structure, by
category and by turn for every run, each point with its source-video bootstrap interval, and the
paired differences. A cell with fewer than three questions has no point (the tables say so)."""

from __future__ import annotations

from scoring.reports.charts import HOVER, MINUS, chart_spec

PERCENT = 100.0


def _pct(x) -> str:
    return "—" if x is None else f"{PERCENT * x:.2f}%"


def _run_name(run: dict) -> str:
    return f"{run['run']} ({run['model']})"


def _accuracy_rows(report: dict, strata: tuple[str, ...]) -> list[dict]:
    rows = []
    for run in report["runs"]:
        name = _run_name(run)
        for cell in run["cells"]:
            acc = cell["accuracy"]
            if cell["stratum"] not in strata or acc["few"]:
                continue
            low, high = acc["bootstrap"] or (None, None)
            rows.append(
                {
                    "run": name,
                    "level": cell["label"],
                    "accuracy": PERCENT * acc["rate"],
                    "low": None if low is None else PERCENT * low,
                    "high": None if high is None else PERCENT * high,
                    "hover": f"{name}, {cell['label']}: accuracy {_pct(acc['rate'])} "
                    f"({acc['correct']} of {acc['n']}), 95% bootstrap interval "
                    f"[{_pct(low)}, {_pct(high)}]",
                }
            )
    return rows


def _points(title: str, rows: list[dict], x_title: str, value: str, domain=None) -> dict:
    """One row per level, a point per run with its interval as a bar."""
    order = list(dict.fromkeys(r["level"] for r in rows))
    runs = list(dict.fromkeys(r["run"] for r in rows))
    y = {"field": "level", "type": "nominal", "sort": order, "title": None,
         "axis": {"labelLimit": 260}}  # fmt: skip
    offset = {"field": "run", "type": "nominal", "sort": runs}
    color = {"field": "run", "type": "nominal", "title": None, "sort": runs,
             "legend": {"orient": "bottom", "labelLimit": 400}}  # fmt: skip
    scale = {"domain": domain} if domain else {"zero": True}
    layers = []
    if domain is None:  # a difference: the zero line
        layers.append({"mark": {"type": "rule", "color": "#999"}, "encoding": {"x": {"datum": 0}}})
    layers.append(
        {
            "transform": [{"filter": "datum.low != null && datum.high != null"}],
            "mark": {"type": "rule", "strokeWidth": 2},
            "encoding": {
                "y": y,
                "yOffset": offset,
                "x": {"field": "low", "type": "quantitative", "scale": scale},
                "x2": {"field": "high"},
                "color": color,
            },
        }
    )
    layers.append(
        {
            "mark": {"type": "point", "filled": True, "size": 70},
            "encoding": {
                "y": y,
                "yOffset": offset,
                "x": {"field": value, "type": "quantitative", "title": x_title, "scale": scale},
                "color": color,
                "shape": {"field": "run", "type": "nominal", "legend": None},
                "description": HOVER,
            },
        }
    )
    height = max(1, len(order)) * max(28, 14 * len(runs))
    return chart_spec(
        title, {"data": {"values": rows}, "width": 640, "height": height, "layer": layers}
    )


def _accuracy_chart(report: dict, strata: tuple[str, ...], what: str) -> dict:
    return _points(
        f"Accuracy by {what} per run, with 95% source-video bootstrap intervals",
        _accuracy_rows(report, strata),
        "accuracy (%)",
        "accuracy",
        domain=[0, 100],
    )


def by_structure(report: dict) -> dict:
    return _accuracy_chart(report, ("structure",), "interaction structure")


def by_category(report: dict) -> dict:
    return _accuracy_chart(report, ("category",), "semantic category")


def by_turn(report: dict) -> dict:
    return _accuracy_chart(report, ("turn", "multi_turn"), "turn position")


def pairs(report: dict) -> dict:
    """Every pair's accuracy difference (A - B, percentage points) per stratum."""
    rows = []
    for pair in report["pairs"]:
        name = f"{pair['a']} {MINUS} {pair['b']}"
        for cell in pair["accuracy"]:
            if cell["few"] or cell["stratum"] == "turn":
                continue
            low, high = cell["low"], cell["high"]
            rows.append(
                {
                    "run": name,
                    "level": cell["label"],
                    "difference": PERCENT * cell["estimate"],
                    "low": None if low is None else PERCENT * low,
                    "high": None if high is None else PERCENT * high,
                    "hover": f"{name}, {cell['label']}: {PERCENT * cell['estimate']:+.2f} points "
                    f"on {cell['n']} turns, 95% interval "
                    + ("—" if low is None else f"[{PERCENT * low:+.2f}, {PERCENT * high:+.2f}]"),
                }
            )
    return _points(
        "Paired accuracy differences (percentage points) with 95% source-video intervals",
        rows,
        f"difference A {MINUS} B (points)",
        "difference",
    )


QA_REPORT_CHARTS = {
    "structure": by_structure,
    "category": by_category,
    "turn": by_turn,
    "pairs": pairs,
}
