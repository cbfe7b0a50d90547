"""Study pages (admins only; everything else is a 404): the list with a form to create one from a
template, a study with live progress over all its runs, its report (tables, charts, downloads).
Every name and text is escaped by the templates; charts are SVG images (no script runs in them)."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from scoring.forms import StudyForm
from scoring.models import Study
from scoring.reports.study import TABLES, report_csv, study_report
from scoring.runs import RunError
from scoring.studies import StudyError, study_create, study_progress, study_start
from scoring.studies.services import study_advance
from studio.roles import is_admin


def studies_for(user):
    studies = Study.objects.select_related("release", "manifest")
    return studies if is_admin(user) else studies.none()


def study_for_or_404(user, pk) -> Study:
    try:
        return studies_for(user).get(pk=pk)
    except (Study.DoesNotExist, ValueError, TypeError):
        raise Http404("No such study.") from None


@login_required
def study_list(request):
    if not is_admin(request.user):
        raise Http404
    form = StudyForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            study = study_create(
                name=data["name"],
                template=data["template"],
                release=data["release"],
                manifest=data["manifest"],
                endpoints=list(data["endpoints"]),
                package=data["package"],
                judge_endpoint=data["judge_endpoint"],
                judge_package=data["judge_package"],
                bootstrap_seed=data["bootstrap_seed"],
                replicates=data["replicates"],
                user=request.user,
            )
        except StudyError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Study {study.name} created; start it when ready.")
            return redirect("scoring:study-detail", study.pk)
    studies = [(s, study_progress(s)) for s in studies_for(request.user)[:100]]
    return render(request, "scoring/study_list.html", {"studies": studies, "form": form})


def _progress_context(study):
    progress = study_progress(study)
    working = progress["stage"] != "complete"
    started = study.study_runs.exists()
    return {
        "study": study,
        "progress": progress,
        "working": working,
        "started": started,
        "poll": working and started,
    }


@login_required
@require_safe
def study_detail(request, study_id: int):
    study = study_for_or_404(request.user, study_id)
    return render(request, "scoring/study_detail.html", _progress_context(study))


@login_required
@require_safe
@never_cache
def study_progress_fragment(request, study_id: int):
    study = study_for_or_404(request.user, study_id)
    if study.study_runs.exists():
        try:
            study_advance(study=study, user=request.user)  # judges start as soon as they can
        except RunError as exc:
            messages.error(request, str(exc))
    return render(request, "scoring/_study_progress.html", _progress_context(study))


@login_required
@require_POST
def study_run(request, study_id: int):
    study = study_for_or_404(request.user, study_id)
    try:
        started = study_start(study=study, user=request.user, retry="retry" in request.POST)
    except StudyError as exc:
        messages.error(request, str(exc))
    else:
        n = len(started["predictions"]) + len(started["judges"])
        messages.success(request, f"Study {study.name}: {n} run{'s' if n != 1 else ''} started.")
    return redirect("scoring:study-detail", study.pk)


def _report(study) -> dict:
    return json.loads(study_report(study)[0])


@login_required
@require_safe
def study_report_page(request, study_id: int):
    from django.urls import reverse

    from scoring.reports.charts import STUDY_CHARTS, chart_figures
    from scoring.reports.views import report_context

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
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["X-Content-Type-Options"] = "nosniff"
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
    from scoring.reports.charts import LEADERBOARD_CHARTS, chart_figures
    from scoring.reports.leaderboard import (
        COLUMNS,
        leaderboard,
        leaderboard_conditions,
        leaderboard_csv,
    )
    from scoring.reports.views import leaderboard_context

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
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        response["X-Content-Type-Options"] = "nosniff"
        return response
    sort = request.GET.get("sort", "overall")
    board = json.loads(text)
    from scoring.models import Run

    run_ids = dict(
        Run.objects.filter(name__in=[r["run"] for r in board["models"]]).values_list("name", "pk")
    )
    context.update(
        leaderboard_context(board, sort=sort if sort in COLUMNS else "overall", run_ids=run_ids)
    )
    from scoring.judges.offers import reference_offers_for_runs

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
        response["Content-Disposition"] = f'attachment; filename="{name}.vl.json"'
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
