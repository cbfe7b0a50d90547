"""The demo: after seed_demo an admin finds stand-in endpoints, our packages, the demo release
and a prediction run waiting, and can run predictions and both judges on it with no
configuration (here against a stand-in on a free port)."""

import io

import pytest
from django.core.management import call_command

from scoring.demo import DEMO_RUN
from scoring.judges import benchmark_scores, judge_start
from scoring.models import Endpoint, PromptPackage, Run
from scoring.packages import package_resolve
from scoring.runs import run_drive
from tests.scoring.conftest import render_run_media

pytestmark = pytest.mark.django_db


@pytest.fixture
def short_demo(monkeypatch, settings, stand_in, tmp_path):
    import annotation.demo

    short = annotation.demo.DemoVideo(
        "short.mp4", "indoor/kitchen", False, 8, annotation.demo.DEMO_VIDEOS[0].steps[:2]
    )
    monkeypatch.setattr(annotation.demo, "DEMO_VIDEOS", (short,))
    settings.STUDIO_DEMO_PASSWORD = "demo-pass-for-tests"
    settings.STAND_IN_PROVIDER_PORT = int(stand_in.url.rsplit(":", 1)[1])
    settings.VAR_DIR = tmp_path  # the demo writes the stand-in's scripted answers there


def test_the_demo_can_predict_and_judge_with_no_configuration(short_demo, stand_in):
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    assert "stand-in provider (not a model)" in out.getvalue()
    names = set(Endpoint.objects.values_list("name", flat=True))
    # No judge-validation demo here (its two endpoints hold typed example rows): it draws only
    # steps outside the human-baseline demo, which takes both steps of this short demo.
    assert names == {"stand-in-vlm", "stand-in-vlm-b", "stand-in-judge"}
    assert PromptPackage.objects.filter(builtin=True).count() == 7  # scoring/packages/builtin
    # The QA audit of the demo's QA set: the four media choices (the video has sound), two
    # stand-ins, each run judged; the Edge group is a scripted language shortcut, the Chain group
    # (picture and sound) redundant.
    from scoring.models import QaAudit
    from scoring.qa.demo import DEMO_AUDIT

    audit = QaAudit.objects.get(name=DEMO_AUDIT)
    assert audit.result["conditions"] == ["full", "text_only", "visual_only", "audio_only"]
    assert audit.result["models"] == ["stand-in-vlm", "stand-in-vlm-b"]
    assert len(audit.inputs) == 8 and all(i["judge_run"] for i in audit.inputs)
    edge = [r for r in audit.result["groups"] if r["structure"] == "edge"]
    assert [r["flags"] for r in edge] == [["language_shortcut"]]
    chain = [r for r in audit.result["groups"] if r["structure"] == "chain"]
    assert [r["flags"] for r in chain] == [["redundant_modality"]]
    run = Run.objects.get(name=DEMO_RUN)
    assert run.items.count() == 2 and run.release.name == "demo_models_v1"
    render_run_media(run)
    run_drive(run_id=run.pk)
    assert set(run.items.values_list("outcome", flat=True)) == {"ok"}
    judge = Endpoint.objects.get(name="stand-in-judge")
    for kind, package in (("reference", "reference-judge"), ("video", "video-judge")):
        judged = judge_start(
            name=f"demo-{kind}",
            kind=kind,
            endpoint=judge,
            package=package_resolve(package),
            runs=[run],
        )
        render_run_media(judged)
        run_drive(run_id=judged.pk)
        scores = benchmark_scores(run, judged)
        assert scores["scored"] == 2, kind


def test_the_demo_study_runs_to_a_report(short_demo, stand_in):
    import json

    from scoring.demo import DEMO_STUDY
    from scoring.models import Study, StudyRun
    from scoring.reports.study import study_report
    from scoring.studies import study_advance, study_progress

    call_command("seed_demo", stdout=io.StringIO())
    study = Study.objects.get(name=DEMO_STUDY)
    assert study.study_runs.count() == 12  # 6 conditions x 2 stand-ins, started by the seed
    for _ in range(3):
        for sr in StudyRun.objects.filter(study=study, run__status="running"):
            render_run_media(sr.run)
            run_drive(run_id=sr.run_id)
        study_advance(study=study)
    assert study_progress(study)["stage"] == "complete"
    report = json.loads(study_report(study)[0])
    temporal = [
        r for r in report["effects"] if r["contrast"] == "temporal" and r["stratum"] == "all"
    ]
    assert temporal and all(r["n"] == 2 for r in temporal)
