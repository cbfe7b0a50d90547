"""The QA report's page, charts and downloads (admins only; anyone else gets a 404).

``/runs/qa/report/?runs=A,B`` (or ``runs`` repeated) reports those QA runs in that order;
``pair=A,B`` (repeatable) adds the paired difference A - B; with exactly two runs and no pair,
the two are paired. ``format=json`` or ``format=csv`` downloads the same numbers. Without runs,
the page lists the QA runs to choose from. The numbers are the report's own (cached by the
hash of its inputs); formatting happens here."""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_safe

from scoring.models import Run, RunKind
from scoring.qa.report import FEW, ReportError
from scoring.qa.report_charts import QA_REPORT_CHARTS
from scoring.qa.report_files import qa_report_cached, report_csv, report_json, report_subject
from scoring.reports.charts import chart_figures
from scoring.reports.views import chart_response
from studio.downloads import as_download
from studio.roles import admin_or_404

STRATUM_NAMES = {
    "all": "All",
    "structure": "Structure",
    "category": "Category",
    "modality": "Modality",
    "turn": "Turn",
    "multi_turn": "Multi-turn groups",
}


def _names(request, key: str) -> list[str]:
    return [n.strip() for v in request.GET.getlist(key) for n in v.split(",") if n.strip()]


def _query(request) -> tuple[list[str], list[tuple[str, str]]]:
    names = _names(request, "runs")
    pairs = []
    for value in request.GET.getlist("pair"):
        parts = [p.strip() for p in value.split(",")]
        if len(parts) != 2 or not all(parts):
            raise ReportError(f"a pair is two run names: {value!r}")
        pairs.append((parts[0], parts[1]))
    if not pairs and len(names) == 2:
        pairs = [(names[0], names[1])]
    return names, pairs


def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.2f}%"


def _interval(pair) -> str:
    if not pair or pair[0] is None or pair[1] is None:
        return "—"
    return f"[{_pct(pair[0])}, {_pct(pair[1])}]"


def _score_interval(pair) -> str:
    if not pair or pair[0] is None or pair[1] is None:
        return "—"
    return f"[{pair[0]:.2f}, {pair[1]:.2f}]"


def _points(x, signed=True) -> str:
    return "—" if x is None else f"{100 * x:+.2f}" if signed else f"{100 * x:.2f}"


def accuracy_text(acc: dict | None) -> dict:
    if acc is None:
        return {"few": False, "text": "—", "detail": "", "wilson": "—", "bootstrap": "—"}
    if acc["few"]:
        return {"few": True, "text": FEW, "detail": f"{acc['n']} judged", "wilson": "—",
                "bootstrap": "—"}  # fmt: skip
    return {
        "few": False,
        "text": _pct(acc["rate"]),
        "detail": f"{acc['correct']} of {acc['n']}",
        "wilson": _interval(acc["wilson"]),
        "bootstrap": _interval(acc["bootstrap"]),
    }


def score_text(score: dict | None) -> dict:
    if score is None:
        return {"few": False, "text": "—", "bootstrap": "—", "n": ""}
    if score["few"]:
        return {"few": True, "text": FEW, "bootstrap": "—", "n": score["n"]}
    return {"few": False, "text": f"{score['mean']:.2f}",
            "bootstrap": _score_interval(score["bootstrap"]), "n": score["n"]}  # fmt: skip


def _cell_row(cell: dict) -> dict:
    statuses = cell["statuses"]
    return {
        "stratum": STRATUM_NAMES[cell["stratum"]],
        "label": cell["label"],
        "turns": cell["turns"] if cell["turns"] is not None else f"{cell['groups']} groups",
        "accuracy": accuracy_text(cell["accuracy"]),
        "score": score_text(cell["score"]),
        "review": statuses.get("review", 0),
        "unjudged": statuses.get("unjudged", 0),
        "errors": statuses.get("error", 0),
        "not_asked": statuses.get("not_asked", 0),
        "pending": statuses.get("pending", 0),
    }


def _pair_rows(pair: dict) -> list[dict]:
    scores = {(c["stratum"], c["level"]): c for c in pair["score"]}
    rows = []
    for c in pair["accuracy"]:
        s = scores.get((c["stratum"], c["level"]))
        rows.append(
            {
                "stratum": STRATUM_NAMES[c["stratum"]],
                "label": c["label"],
                "n": c["n"],
                "few": c["few"],
                "a": _pct(c["a"]),
                "b": _pct(c["b"]),
                "difference": _points(c["estimate"]),
                "interval": "—" if c["low"] is None else
                f"[{_points(c['low'])}, {_points(c['high'])}]",
                "significant": c["significant"],
                "score_n": s["n"] if s else 0,
                "score_few": bool(s and s["few"]),
                "score": "—" if not s or s["estimate"] is None else f"{s['estimate']:+.2f}",
                "score_interval": "—" if not s or s["low"] is None else
                f"[{s['low']:+.2f}, {s['high']:+.2f}]",
            }
        )  # fmt: skip
    return rows


def report_context(report: dict) -> dict:
    run_ids = dict(
        Run.objects.filter(name__in=[r["run"] for r in report["runs"]]).values_list("name", "pk")
    )
    runs = []
    for r in report["runs"]:
        cells = {(c["stratum"], c["level"]): c for c in r["cells"]}
        overall = cells[("all", "all")]
        multi = [_cell_row(c) for c in r["cells"] if c["stratum"] == "multi_turn"]
        runs.append(
            {
                **r,
                "pk": run_ids.get(r["run"]),
                "overall": _cell_row(overall),
                "rows": [_cell_row(c) for c in r["cells"]],
                "multi": multi,
            }
        )
    tables = []
    for key, title in (("structure", "Accuracy by model and interaction structure"),
                       ("category", "Accuracy by model and semantic category")):  # fmt: skip
        table = report["tables"][key]
        tables.append(
            {
                "key": key,
                "title": title,
                "columns": table["columns"],
                "rows": [
                    {**row, "cells": [accuracy_text(c) for c in row["cells"]]}
                    for row in table["rows"]
                ],
            }
        )
    pairs = [{**p, "rows": _pair_rows(p)} for p in report["pairs"]]
    return {"report": report, "runs": runs, "tables": tables, "pairs": pairs}


def _chooser(request, error: str = "", status: int = 200):
    runs = (
        Run.objects.filter(kind=RunKind.QA_PREDICTION)
        .select_related("endpoint", "manifest")
        .order_by("-created_at", "-id")
    )
    context = {"choosing": True, "chooser": runs, "error": error}
    return render(request, "scoring/qa_run_report.html", context, status=status)


@login_required
@require_safe
def qa_run_report(request):
    admin_or_404(request)
    try:
        names, pairs = _query(request)
        if not names:
            return _chooser(request)
        runs, pair_runs = report_subject(names, pairs)
        text, _cached = qa_report_cached(runs, pair_runs)
    except ReportError as exc:
        return _chooser(request, error=str(exc), status=400)
    fmt = request.GET.get("format")
    stem = f"qa-report-{'-'.join(r.name for r in runs)}"[:150]
    if fmt == "json":
        response = HttpResponse(report_json(text), content_type="application/json; charset=utf-8")
    elif fmt == "csv":
        response = HttpResponse(
            report_csv(json.loads(text)), content_type="text/csv; charset=utf-8"
        )
    elif fmt:
        raise Http404
    if fmt:
        as_download(response, f"{stem}.{fmt}")
        return response
    report = json.loads(text)
    query = urlencode(
        [("runs", ",".join(r.name for r in runs))]
        + [("pair", f"{a.name},{b.name}") for a, b in pair_runs]
    )
    context = report_context(report)
    context["query"] = query
    context["charts"] = chart_figures(
        QA_REPORT_CHARTS,
        report,
        lambda name, f: reverse("scoring:qa-run-report-chart", args=[name, f]) + "?" + query,
    )
    return render(request, "scoring/qa_run_report.html", context)


@login_required
@require_safe
def qa_run_report_chart(request, name: str, fmt: str):
    admin_or_404(request)
    if name not in QA_REPORT_CHARTS:
        raise Http404
    try:
        names, pairs = _query(request)
        runs, pair_runs = report_subject(names, pairs)
        text, _cached = qa_report_cached(runs, pair_runs)
    except ReportError:
        raise Http404 from None
    spec = QA_REPORT_CHARTS[name](json.loads(text))
    return chart_response(spec, fmt, f"qa-report-{name}")
