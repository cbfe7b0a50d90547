"""Starting a QA run from the Runs page (admins only; anyone else gets a 404). The run itself is
shown by the run pages like any other."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render

from scoring.qa.forms import QaPredictForm
from scoring.qa.runs import qa_predict
from scoring.runs import RunError
from studio.roles import is_admin


def run_list_part(request) -> dict:
    """The Runs page's QA start form (``scoring.runs.views.run_list_part_register``)."""
    return {"qa_form": QaPredictForm()} if is_admin(request.user) else {}


@login_required
def qa_run_start(request):
    if not is_admin(request.user):
        raise Http404
    form = QaPredictForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            run = qa_predict(
                name=data["name"],
                manifest=data["manifest"],
                endpoint=data["endpoint"],
                package=data["package"],
                media=data["media"],
                user=request.user,
            )
        except RunError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"QA run {run.name} started.")
            return redirect("scoring:run-detail", run.pk)
    return render(request, "scoring/qa_run_start.html", {"form": form})
