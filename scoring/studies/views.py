"""Study pages (admins only; everything else is a 404): the list with a form to create one from a
template, a study with live progress over all its runs (its report pages: scoring.reports.views).
Every name and text is escaped by the templates."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from scoring.models import Study
from scoring.runs import RunError
from scoring.studies import StudyError, study_create, study_progress, study_start
from scoring.studies.forms import StudyForm
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
