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

from scoring.reports.shown import excludes_zero, fmt
from scoring.reports.study import TABLES, report_csv, study_report
from scoring.stats import ALL_MODELS
from scoring.studies.views import study_for_or_404
from studio.downloads import as_download
from studio.roles import is_admin


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
    from scoring.reports.leaderboard import OUTCOMES

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
                "failures": sum(r[k] for k in OUTCOMES if k != "ok"),
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


def _report(study) -> dict:
    return json.loads(study_report(study)[0])


@login_required
@require_safe
def study_report_page(request, study_id: int):
    from django.urls import reverse

    from scoring.reports.charts import STUDY_CHARTS, chart_figures

    study = study_for_or_404(request.user, study_id)
    report = _report(study)
    context = report_context(study, report, request)
    context["charts"] = chart_figures(
        STUDY_CHARTS,
        report,
        lambda name, fmt: reverse("scoring:study-chart", args=[study.pk, name, fmt]),
    )
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
    """(release, manifest, condition) from the query; 404 for a name that is not frozen. With
    neither a release nor a manifest, the newest frozen release; without a condition, Official
    when a run has it, else the first condition a run has."""
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
    else:
        release = Release.objects.filter(frozen_at__isnull=False).order_by("-frozen_at").first()
    condition = request.GET.get("condition", "")
    if not condition and (release or manifest):
        from scoring.reports.leaderboard import leaderboard_conditions

        found = leaderboard_conditions(release=release, manifest=manifest)
        condition = "official" if "official" in found or not found else found[0]
    return release, manifest, condition or "official"


@login_required
@require_safe
def leaderboard_page(request):
    from django.urls import reverse
    from django.utils.http import urlencode

    from annotation.models import Release
    from review.models import Manifest
    from scoring.models import Run
    from scoring.reports.charts import LEADERBOARD_CHARTS, chart_figures
    from scoring.reports.leaderboard import (
        COLUMNS,
        leaderboard,
        leaderboard_conditions,
        leaderboard_csv,
    )
    from scoring.reports.offers import reference_offers_for_runs

    release, manifest, condition = _leaderboard_subject(request)
    context = {
        "releases": Release.objects.filter(frozen_at__isnull=False).order_by("-frozen_at"),
        "manifests": Manifest.objects.filter(frozen_at__isnull=False).order_by("name"),
        "condition": condition,
        "conditions": leaderboard_conditions(release=release, manifest=manifest)
        if release or manifest
        else [],
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
    run_ids = dict(
        Run.objects.filter(name__in=[r["run"] for r in board["models"]]).values_list("name", "pk")
    )
    context.update(
        leaderboard_context(board, sort=sort if sort in COLUMNS else "overall", run_ids=run_ids)
    )
    waiting = [r["run"] for r in board["models"] if not r.get("reference_judge")]
    context["offers"] = reference_offers_for_runs(
        Run.objects.filter(name__in=waiting).order_by("name"),
        why="{run} has no reference judge yet: its scores wait for one.",
    )
    context["subject"] = subject
    query = urlencode({subject["kind"]: subject["name"], "condition": condition})
    context["charts"] = chart_figures(
        LEADERBOARD_CHARTS,
        board,
        lambda name, fmt: reverse("scoring:leaderboard-chart", args=[name, fmt]) + "?" + query,
    )
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
    return chart_response(spec, fmt, f"leaderboard-{(manifest or release).name}-{name}")


def chart_response(spec: dict, fmt: str, name: str) -> HttpResponse:
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
    return chart_response(STUDY_CHARTS[name](_report(study)), fmt, f"{study.name}-{name}")
