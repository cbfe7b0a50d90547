"""The judge form on a run's page comes filled in: the newest package of its kind's purpose and
the endpoint the newest judge run of that kind used (any judge run's when there is none)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_the_qa_judge_form_preselects_the_qa_judge_package_and_the_judges_endpoint(
    make_endpoint, packages
):
    from scoring.judges.forms import JudgeForm
    from scoring.models import Run

    qa_judge = packages("qa-judge")
    predictor = make_endpoint(name="predictor")
    judge = make_endpoint(name="judge", model="stand-in-judge")
    form = JudgeForm(qa=True)
    assert form.initial["kind"] == "qa" and form.initial["package"] == qa_judge.pk
    assert "endpoint" not in form.initial  # no judge run yet: nothing to go by

    reference = packages("reference-judge")
    Run.objects.create(name="older-judge", kind="reference", endpoint=judge, package=reference)
    assert JudgeForm(qa=True).initial["endpoint"] == judge.pk  # a judge run of another kind
    Run.objects.create(name="qa-judged", kind="qa", endpoint=predictor, package=qa_judge)
    Run.objects.create(name="newer-ref", kind="reference", endpoint=judge, package=reference)
    assert JudgeForm(qa=True).initial["endpoint"] == predictor.pk  # its own kind comes first
    plain = JudgeForm()
    assert plain.initial["kind"] == "reference" and plain.initial["package"] == reference.pk
    assert plain.initial["endpoint"] == judge.pk


def test_a_posted_judge_form_keeps_what_was_posted(make_endpoint, packages):
    from scoring.judges.forms import JudgeForm

    packages("qa-judge")
    form = JudgeForm({"name": "x"}, qa=True)
    assert not form.initial and not form.is_valid()
