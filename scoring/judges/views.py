"""The judges' part of the run pages (admins only): a judge run's scores on its page, and on a
prediction run's page the form that starts a judge over it (``run_judge``; on a QA run's page,
the QA judge over its open-ended turns)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from scoring.judges import benchmark_scores, judge_start, qa_summary
from scoring.judges.forms import JudgeForm
from scoring.models import RunKind
from scoring.runs import RunError
from scoring.selectors import run_for_or_404
from studio.display import form_problems


def _scores(run) -> dict | None:
    if run.kind == "qa":
        return {"qa": qa_summary(run)}
    if run.is_judge and run.sources.count() == 1:
        return benchmark_scores(run.sources.get(), run)
    return None


def run_page_part(run) -> dict:
    """What a run's page shows of the judges (registered with
    ``scoring.runs.views.run_page_part_register``)."""
    return {
        "scores": _scores(run),
        "judge_form": JudgeForm(
            initial={"name": f"{run.name}-judge"}, qa=run.kind == RunKind.QA_PREDICTION
        )
        if not run.is_judge
        else None,
    }


@login_required
@require_POST
def run_judge(request, run_id: int):
    run = run_for_or_404(request.user, run_id)
    form = JudgeForm(request.POST, qa=run.kind == RunKind.QA_PREDICTION)
    if form.is_valid():
        data = form.cleaned_data
        try:
            judge = judge_start(
                name=data["name"],
                kind=data["kind"],
                endpoint=data["endpoint"],
                package=data["package"],
                runs=[run],
                unit=data.get("unit", "candidate"),
                user=request.user,
            )
        except RunError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"Judge run {judge.name} started.")
            return redirect("scoring:run-detail", judge.pk)
    else:
        messages.error(request, form_problems(form))
    return redirect("scoring:run-detail", run.pk)
