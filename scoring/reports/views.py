"""Shapes a stored report for its page: the tables people read first, then the breakdowns.
The numbers are the report's own (the page never recomputes); formatting happens here."""

from __future__ import annotations

from scoring.reports.shown import excludes_zero, fmt
from scoring.stats import ALL_MODELS


def _interval_text(low, high) -> str:
    return "—" if low is None or high is None else f"[{fmt(low, True)}, {fmt(high, True)}]"


def _effect_row(r: dict) -> dict:
    """The row with its three variants (micro, scene macro, video macro) as display cells."""
    variants = []
    for key, prefix in (
        ("estimate", ""),
        ("scene_macro", "scene_macro_"),
        ("video_macro", "video_macro_"),
    ):
        variants.append(
            {
                "text": fmt(r[key], signed=True),
                "interval": _interval_text(r[f"{prefix}low"], r[f"{prefix}high"]),
                "significant": excludes_zero(r[f"{prefix}low"], r[f"{prefix}high"]),
            }
        )
    return {**r, "variants": variants, "significant": variants[0]["significant"]}


def condition_table(report: dict, stratum="all", level="all") -> dict:
    """Rows (model, condition) with micro per dimension, and macros of Overall side by side."""
    dims = report["dimensions"]
    cells = {}
    for r in report["conditions"]:
        if r["stratum"] == stratum and r["level"] == level:
            cells[(r["model"], r["condition"], r["dimension"])] = r
    rows = []
    for model in [*report["models_order"], ALL_MODELS]:
        for condition in report["conditions_order"]:
            overall = cells.get((model, condition, dims[-1]))
            if overall is None:
                continue
            rows.append(
                {
                    "model": model,
                    "condition": condition,
                    "n": overall["n"],
                    "values": [fmt(cells[(model, condition, d)]["micro"]) for d in dims],
                    "scene_macro": fmt(overall["scene_macro"]),
                    "video_macro": fmt(overall["video_macro"]),
                }
            )
    return {"dimensions": dims, "rows": rows}


def breakdown(report: dict, stratum: str) -> dict:
    """All-models Overall effect of every contrast per level of ``stratum`` (gain tests use
    their own dimension)."""
    levels, contrasts, cells = [], [], {}
    for r in report["effects"]:
        if r["stratum"] != stratum or r["model"] != ALL_MODELS:
            continue
        if r["dimension"] not in ("overall",) and "-" not in r["dimension"]:
            continue
        if r["level"] not in levels:
            levels.append(r["level"])
        if r["contrast"] not in contrasts:
            contrasts.append(r["contrast"])
        cells[(r["level"], r["contrast"])] = r
    rows = []
    for level in levels:
        row = {"level": level, "cells": []}
        for c in contrasts:
            r = cells.get((level, c))
            row["cells"].append(
                {
                    "n": r["n"],
                    "text": fmt(r["estimate"], True),
                    "significant": excludes_zero(r["low"], r["high"]),
                }
                if r
                else None
            )
        rows.append(row)
    return {
        "stratum": stratum,
        "stratum_name": stratum_name(stratum),
        "contrasts": contrasts,
        "rows": rows,
    }


def stratum_name(stratum: str) -> str:
    """``duration_bin`` -> "step duration"; ``tag:hand`` -> "tag hand"."""
    if stratum.startswith("tag:"):
        return f"tag {stratum[4:]}"
    return {"duration_bin": "step duration"}.get(stratum, stratum.replace("_", " "))


def report_context(study, report: dict, request=None) -> dict:
    main = [_effect_row(r) for r in report["effects"] if r["stratum"] == "all"]
    strata = []
    for r in report["effects"]:
        if r["stratum"] != "all" and r["stratum"] not in strata:
            strata.append(r["stratum"])
    return {
        "study": study,
        "report": report,
        "effects": main,
        "conditions": condition_table(report),
        "breakdowns": [breakdown(report, s) for s in strata],
        "exclusions": report["exclusions"],
        "provenance": report["provenance"],
        "tables": ("effects", "conditions", "exclusions"),
    }


SORTABLE = {
    "model": "Model",
    "group": "Group",
    "ok": "Predictions ok",
    "local": "Local",
    "procedural": "Procedural",
    "next": "Next",
    "overall": "Overall",
    "gf": "GF",
    "hic": "HIC",
    "tpc": "TPC",
    "npf": "NPF",
    "diagnostic_average": "Diagnostic avg.",
}
NUMBERS = ("local", "procedural", "next", "overall", "gf", "hic", "tpc", "npf")
REFERENCE_NUMBERS = ("local", "procedural", "next", "overall")


def _judged_value(r: dict, key: str):
    """A model's score, or None where no judge scored it ("not judged" on the page, never 0:
    the report's JSON keeps the full-benchmark zeros with ``reference_judge`` null)."""
    if key in REFERENCE_NUMBERS:
        return r.get(key) if r.get("reference_judge") else None
    return r.get(key)


def leaderboard_context(board: dict, sort: str = "overall", run_ids: dict | None = None) -> dict:
    text_sort = sort in ("model", "group")

    def key(r):
        v = r.get(sort) if text_sort else _judged_value(r, sort)
        if text_sort:
            return (str(v), r["model"])
        return (v is None, -(v or 0), r["model"])

    rows = []
    rank = 0
    for r in sorted(board["models"], key=key):
        if r.get("reference_judge"):
            rank += 1
        rows.append(
            {
                **r,
                "rank": rank,
                "run_id": (run_ids or {}).get(r.get("run")),
                "numbers": [
                    None if (v := _judged_value(r, k)) is None else fmt(v) for k in NUMBERS
                ],
                "diagnostic_text": None
                if r["diagnostic_average"] is None
                else fmt(r["diagnostic_average"]),
                "failures": r["parse_failure"] + r["refusal"] + r["api_error"] + r["pending"],
            }
        )
    scenes = sorted({s["scene"] for s in board["scenes"]})
    by = {(s["model"], s["scene"]): s for s in board["scenes"]}
    scene_rows = [
        {
            "model": r["model"],
            "cells": [
                fmt(by[(r["model"], s)]["overall"]) if (r["model"], s) in by else "—"
                for s in scenes
            ],
        }
        for r in rows
        if r.get("reference_judge")
    ]
    c = board["correlation"]
    return {
        "board": board,
        "rows": rows,
        "groups": [
            ("closed", [r for r in rows if r["group"] == "closed"]),
            ("open", [r for r in rows if r["group"] == "open"]),
        ],
        "sortable": SORTABLE,
        "sort": sort,
        "scenes": scenes,
        "scene_rows": scene_rows,
        "correlation": {
            **c,
            "pearson_text": fmt(c["pearson"]),
            "spearman_text": fmt(c["spearman"]),
        },
    }
