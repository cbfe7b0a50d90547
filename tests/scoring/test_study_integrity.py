"""A study never stops early, never calls a provider unasked, and says what it counts:

- ``study_run --wait`` (and the follow-up task) decide on one consistent state, even when a run
  finishes between the study's advance and the look at what is still running;
- runs adopted under the study's names are taken as they are: no call without ``--retry``;
- a condition whose predictions end without one ok item (no judge run) shows as such on the
  study pages, in ``study_run`` and in the report's exclusions."""

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from scoring.models import Run, StudyRun
from scoring.reports.study import report_csv, study_report
from scoring.runs import run_drive
from scoring.runs.imports import predictions_import
from scoring.studies import services, study_progress
from tests.scoring.studies import create_study, finish_study

pytestmark = pytest.mark.django_db


def _drive_running(study) -> int:
    """Drive every running run of the study to its end here (what the workers do)."""
    running = list(StudyRun.objects.filter(study=study, run__status="running"))
    for sr in running:
        run_drive(run_id=sr.run_id)
    return len(running)


@pytest.fixture
def answer_after_advance(monkeypatch):
    """From the ``first``-th advance of ``study`` on, the stand-in answers every call of the
    study's working runs right after the advance returns: between the advance and the look at
    what still runs, the window in which a run finished unseen."""
    seen = {"advances": 0, "raced": 0}

    def arm(study, first=2):
        real = services.study_advance

        def advance_then_answer(**kwargs):
            started = real(**kwargs)
            seen["advances"] += 1
            if seen["advances"] >= first:
                judged = set(study.study_runs.filter(endpoint=None).values_list("condition"))
                if _drive_running(study) and len(judged) < len(study.conditions):
                    seen["raced"] += 1  # prediction runs ended after the advance looked
            return started

        monkeypatch.setattr(services, "study_advance", advance_then_answer)
        return seen

    return arm


def test_study_run_wait_ends_complete_when_runs_finish_between_advance_and_check(
    study_release, models, make_endpoint, packages, stand_in, answer_after_advance, capsys
):
    study = create_study(study_release, models, make_endpoint, packages)
    seen = answer_after_advance(study)
    call_command("study_run", "st", "--wait", "--poll", "0")
    out = capsys.readouterr()
    assert seen["raced"] >= 1  # the race happened: runs ended between an advance and the look
    assert study_progress(study)["stage"] == "complete"
    assert out.out.strip().splitlines()[-1].startswith("st: complete")
    assert "nothing is running" not in out.err
    assert StudyRun.objects.filter(study=study, endpoint=None).count() == 2


def test_the_follow_up_task_judges_runs_that_finish_during_its_advance(
    study_release, models, make_endpoint, packages, stand_in, answer_after_advance
):
    from scoring.tasks import advance_study

    study = create_study(study_release, models, make_endpoint, packages)
    seen = answer_after_advance(study, first=1)
    # The runs start and end within the task's advance: it advances again and starts (and here
    # sees finished) the judges, instead of leaving the study waiting for judges nobody starts.
    assert advance_study(study.pk) is False
    assert seen["raced"] >= 1
    assert study_progress(study)["stage"] == "complete"


def test_study_run_wait_still_stops_when_nothing_runs_and_the_study_is_stuck(
    study_release, models, make_endpoint, packages, stand_in
):
    study = create_study(study_release, models, make_endpoint, packages)
    call_command("study_run", "st", stdout=io.StringIO())
    for sr in StudyRun.objects.filter(study=study):
        Run.objects.filter(pk=sr.run_id).update(status="cancelled")  # nothing works any more
    with pytest.raises(CommandError, match="nothing is running but the study is not complete"):
        call_command("study_run", "st", "--wait", "--poll", "0", stdout=io.StringIO())


def _import_run(name, study_release, endpoint, packages, tmp_path, condition, failed):
    lines = []
    for i, step in enumerate(study_release.steps.order_by("sample_id")):
        if i in failed:
            lines.append({"sample": str(step.sample_id), "outcome": "api_error"})
        else:
            prediction = {
                "local_intent": f"Pick up thing {i}",
                "procedural_intent": "It is needed next",
                "next_step": "Put it down",
            }
            lines.append({"sample": str(step.sample_id), "outcome": "ok", "prediction": prediction})
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return predictions_import(
        name=name,
        path=path,
        endpoint=endpoint,
        package=packages("frames-prediction"),
        condition=condition,
        release=study_release,
    )


def _calls(stand_in, model: str) -> int:
    return sum(1 for entry in stand_in.stats()["log"] if entry["model"] == model)


def test_adopted_runs_are_never_called_again_unless_retry(
    study_release, models, make_endpoint, packages, stand_in, tmp_path, capsys
):
    model = models[0]
    for condition in ("scene_only", "prompt_only"):
        _import_run(f"st.{condition}.model-a", study_release, model, packages, tmp_path,
                    condition, failed={1, 4})  # fmt: skip
    study = create_study(study_release, [model], make_endpoint, packages)
    call_command("study_run", "st")
    out = capsys.readouterr().out
    _drive_running(study)  # whatever the study queued, as a worker would run it
    finish_study(study)
    assert _calls(stand_in, "stand-in-vision") == 0  # the provider was never asked again
    assert "adopted run st.scene_only.model-a as it is" in out
    assert _calls(stand_in, "stand-in-judge") > 0  # (the judges did run on the ok items)
    for condition in ("scene_only", "prompt_only"):
        run = Run.objects.get(name=f"st.{condition}.model-a")
        assert run.items.filter(outcome="api_error").count() == 2
    report = json.loads(study_report(study)[0])
    assert {e["condition"]: e["by_reason"] for e in report["exclusions"]} == {
        "scene_only": {"api_error": 2},
        "prompt_only": {"api_error": 2},
    }

    call_command("study_run", "st", "--retry")
    _drive_running(study)
    assert _calls(stand_in, "stand-in-vision") == 4  # now, and only now, the two api errors each
    assert (
        not Run.objects.get(name="st.scene_only.model-a").items.filter(outcome="api_error").exists()
    )


@pytest.fixture
def unjudged(study_release, models, make_endpoint, packages, stand_in):
    """A study whose scene_only predictions all end in api_error (no judge run for it)."""
    stand_in.rules(
        {"model": "stand-in-vision", "contains": "scene name", "times": -1,
         "action": {"status": 500}},
        {"model": "stand-in-vision-b", "contains": "scene name", "times": -1,
         "action": {"status": 400, "code": "content_filter"}},
    )  # fmt: skip
    study = create_study(study_release, models, make_endpoint, packages)
    finish_study(study)
    return study


def test_a_condition_without_an_ok_prediction_is_shown_and_counted(unjudged, capsys):
    study = unjudged
    progress = study_progress(study)
    assert progress["stage"] == "complete"
    scene = next(c for c in progress["conditions"] if c["condition"] == "scene_only")
    assert scene["nothing_to_judge"] and scene["judge"] is None
    assert not StudyRun.objects.filter(study=study, condition="scene_only", endpoint=None).exists()

    call_command("study_run", "st", "--wait", "--poll", "0")
    out = capsys.readouterr().out
    assert "st: complete" in out and "nothing to judge (no ok prediction): scene_only" in out

    call_command("study_report", "st", "--format", "csv", "--table", "exclusions")
    csv_text = capsys.readouterr().out
    assert "scene_only,6,0,6,,api_error,6" in csv_text
    assert "scene_only,6,0,6,,execution_failure,6" in csv_text
    report = json.loads(study_report(study)[0])
    ex = {e["condition"]: e for e in report["exclusions"]}
    assert ex["scene_only"]["removed"] == 6 and ex["scene_only"]["valid"] == 0
    assert ex["scene_only"]["by_model"] == {
        "model-a": {"api_error": 6},
        "model-b": {"execution_failure": 6},
    }
    assert ex["prompt_only"]["removed"] == 0
    assert report["nothing_to_judge"] == ["scene_only"]
    assert '# nothing_to_judge: ["scene_only"]' in csv_text
    assert report_csv(report, "exclusions") == csv_text


def test_the_study_pages_show_a_condition_without_an_ok_prediction(unjudged, client, admin_user):
    client.force_login(admin_user)
    listing = client.get(reverse("scoring:study-list"))
    assert listing.status_code == 200
    assert "st" in listing.content.decode()
    for name in ("scoring:study-detail", "scoring:study-progress", "scoring:study-report"):
        page = client.get(reverse(name, args=[unjudged.pk]))
        assert page.status_code == 200, name
    detail = client.get(reverse("scoring:study-detail", args=[unjudged.pk])).content.decode()
    assert "nothing to judge (no ok prediction)" in detail
    report = client.get(reverse("scoring:study-report", args=[unjudged.pk])).content.decode()
    assert "API error 6" in report and "Execution failure (refusal) 6" in report
    assert "Nothing to judge (no ok prediction) under Scene only" in report
