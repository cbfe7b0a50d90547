"""Report pages (admins only; everything else is a 404): a study's report (tables, charts,
downloads) and the leaderboard. Every name and text is escaped by the templates; charts are SVG
images (no script runs in them).

Shapes a stored report for its page: the tables people read first, then the breakdowns.
The numbers are the report's own (the page never recomputes); formatting happens here."""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from scoring.reports.study import TABLES, report_csv, study_report
from scoring.stats import ALL_MODELS
from scoring.studies.views import study_for_or_404
from studio.downloads import as_download
from studio.roles import is_admin


def fmt(x, signed=False) -> str:
    if x is None:
        return "—"
    return f"{x:+.2f}" if signed else f"{x:.2f}"


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
                "significant": r[f"{prefix}significant"],
            }
        )
    return {**r, "variants": variants}


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
                {"n": r["n"], "text": fmt(r["estimate"], True), "significant": r["significant"]}
                if r
                else None
            )
        rows.append(row)
    return {"stratum": stratum, "contrasts": contrasts, "rows": rows}


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
    "ok": "ok",
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


def leaderboard_context(board: dict, sort: str = "overall") -> dict:
    text_sort = sort in ("model", "group")

    def key(r):
        v = r.get(sort)
        if text_sort:
            return (str(v), r["model"])
        return (v is None, -(v or 0), r["model"])

    rows = []
    for r in sorted(board["models"], key=key):
        rows.append(
            {
                **r,
                "numbers": [fmt(r[k]) for k in NUMBERS],
                "diagnostic_text": fmt(r["diagnostic_average"]),
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


def _report(study) -> dict:
    return json.loads(study_report(study)[0])


@login_required
@require_safe
def study_report_page(request, study_id: int):
    from django.urls import reverse

    from scoring.reports.charts import STUDY_CHARTS, chart_alt, chart_points

    study = study_for_or_404(request.user, study_id)
    report = _report(study)
    context = report_context(study, report, request)
    charts = []
    for name, build in STUDY_CHARTS.items():
        spec = build(report)
        if not chart_points(spec):
            continue
        charts.append(
            {
                "title": spec["title"],
                "alt": chart_alt(name, spec),
                "svg_url": reverse("scoring:study-chart", args=[study.pk, name, "svg"]),
                "spec_url": reverse("scoring:study-chart", args=[study.pk, name, "json"]),
            }
        )
    context["charts"] = charts
    return render(request, "scoring/study_report.html", context)


@login_required
@require_safe
def study_report_download(request, study_id: int, fmt: str):
    study = study_for_or_404(request.user, study_id)
    text, _ = study_report(study)
    if fmt == "json":
        response = HttpResponse(text, content_type="application/json; charset=utf-8")
        name = f"{study.name}-report.json"
    elif fmt == "csv":
        table = request.GET.get("table", "effects")
        if table not in TABLES:
            raise Http404
        response = HttpResponse(
            report_csv(json.loads(text), table), content_type="text/csv; charset=utf-8"
        )
        name = f"{study.name}-{table}.csv"
    else:
        raise Http404
    as_download(response, name)
    return response


def _leaderboard_subject(request):
    """(release, manifest, condition) from the query; 404 for a name that is not frozen."""
    from annotation.models import Release
    from review.models import Manifest

    if not is_admin(request.user):
        raise Http404
    release = manifest = None
    if request.GET.get("manifest"):
        manifest = Manifest.objects.filter(
            name=request.GET["manifest"], frozen_at__isnull=False
        ).first()
        if manifest is None:
            raise Http404("No such manifest.")
    elif request.GET.get("release"):
        release = Release.objects.filter(
            name=request.GET["release"], frozen_at__isnull=False
        ).first()
        if release is None:
            raise Http404("No such release.")
    return release, manifest, request.GET.get("condition", "official")


@login_required
@require_safe
def leaderboard_page(request):
    from django.urls import reverse
    from django.utils.http import urlencode

    from annotation.models import Release
    from review.models import Manifest
    from scoring.reports.charts import LEADERBOARD_CHARTS, chart_alt, chart_points
    from scoring.reports.leaderboard import COLUMNS, leaderboard, leaderboard_csv

    release, manifest, condition = _leaderboard_subject(request)
    context = {
        "releases": Release.objects.filter(frozen_at__isnull=False).order_by("name"),
        "manifests": Manifest.objects.filter(frozen_at__isnull=False).order_by("name"),
        "condition": condition,
    }
    if release is None and manifest is None:
        return render(request, "scoring/leaderboard.html", context)
    text, _ = leaderboard(release=release, manifest=manifest, condition=condition)
    subject = {"kind": "manifest" if manifest else "release", "name": (manifest or release).name}
    fmt = request.GET.get("format")
    if fmt in ("json", "csv"):
        if fmt == "json":
            response = HttpResponse(text, content_type="application/json; charset=utf-8")
        else:
            table = request.GET.get("table", "models")
            if table not in ("models", "scenes"):
                raise Http404
            response = HttpResponse(
                leaderboard_csv(json.loads(text), table), content_type="text/csv; charset=utf-8"
            )
        name = f"leaderboard-{subject['name']}.{fmt}"
        as_download(response, name)
        return response
    sort = request.GET.get("sort", "overall")
    board = json.loads(text)
    context.update(leaderboard_context(board, sort=sort if sort in COLUMNS else "overall"))
    context["subject"] = subject
    query = urlencode({subject["kind"]: subject["name"], "condition": condition})
    context["charts"] = [
        {
            "title": spec["title"],
            "alt": chart_alt(name, spec),
            "svg_url": reverse("scoring:leaderboard-chart", args=[name, "svg"]) + "?" + query,
            "spec_url": reverse("scoring:leaderboard-chart", args=[name, "json"]) + "?" + query,
        }
        for name, spec in ((n, build(board)) for n, build in LEADERBOARD_CHARTS.items())
        if chart_points(spec)
    ]
    return render(request, "scoring/leaderboard.html", context)


@login_required
@require_safe
def leaderboard_chart(request, name: str, fmt: str):
    from scoring.reports.charts import LEADERBOARD_CHARTS
    from scoring.reports.leaderboard import leaderboard

    release, manifest, condition = _leaderboard_subject(request)
    if (release is None and manifest is None) or name not in LEADERBOARD_CHARTS:
        raise Http404
    text, _ = leaderboard(release=release, manifest=manifest, condition=condition)
    spec = LEADERBOARD_CHARTS[name](json.loads(text))
    return _chart_response(spec, fmt, f"leaderboard-{(manifest or release).name}-{name}")


def _chart_response(spec: dict, fmt: str, name: str) -> HttpResponse:
    from scoring.reports.charts import chart_points, chart_svg

    if not chart_points(spec):
        raise Http404("Nothing to draw yet.")
    if fmt == "svg":
        response = HttpResponse(chart_svg(spec), content_type="image/svg+xml; charset=utf-8")
        # An SVG opened on its own runs nothing and loads nothing.
        response["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'"
    elif fmt == "json":
        response = HttpResponse(
            json.dumps(spec, indent=2, sort_keys=True, ensure_ascii=False),
            content_type="application/json; charset=utf-8",
        )
        as_download(response, f"{name}.vl.json")
    else:
        raise Http404
    response["X-Content-Type-Options"] = "nosniff"
    return response


@login_required
@require_safe
def study_chart(request, study_id: int, name: str, fmt: str):
    from scoring.reports.charts import STUDY_CHARTS

    study = study_for_or_404(request.user, study_id)
    if name not in STUDY_CHARTS:
        raise Http404
    return _chart_response(STUDY_CHARTS[name](_report(study)), fmt, f"{study.name}-{name}")
