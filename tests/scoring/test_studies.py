"""Studies against the stand-in provider: created from a template or by hand, advanced through
the run and judge services (cached results reused), reported on the common valid set with the
execution failures removed for every model, with provenance, cached by the hash of its inputs."""

import json

import numpy as np
import pytest
from django.core.management import call_command

from scoring.models import Judgement, ReportCache, Run, Study, StudyRun
from scoring.reports.study import report_csv, study_report
from scoring.runs import run_drive
from scoring.stats import paired_difference
from scoring.studies import StudyError, study_advance, study_create, study_progress
from tests.scoring.studies import CONTRAST, create_study, finish_study

pytestmark = pytest.mark.django_db


def _scores_by_hand(study, condition, model):
    """{sample: overall or 0 or None} from the stored rows, in plain Python."""
    sr = StudyRun.objects.get(study=study, condition=condition, endpoint__name=model)
    judge = StudyRun.objects.get(study=study, condition=condition, endpoint=None).run
    out = {}
    for item in sr.run.items.all():
        if item.outcome == "refusal":
            out[item.key] = None
        elif item.outcome == "parse_failure":
            out[item.key] = 0.0
        else:
            j = Judgement.objects.get(run=judge, prediction=item)
            out[item.key] = (j.local + j.procedural + j.next) / 3
    return out


def test_a_template_fills_conditions_contrasts_and_common_set(
    study_release, models, make_endpoint, packages
):
    study = create_study(
        study_release, models, make_endpoint, packages, template="boundary", conditions=None,
        contrasts=None,
    )  # fmt: skip
    assert study.conditions == ["early", "official", "outcome_visible", "next_visible"]
    assert study.common_set == "study"
    names = [c["name"] for c in study.contrasts]
    assert names[:3] == ["early to official", "outcome", "future"]
    assert {"outcome: L-P", "outcome: L-N", "future: N-L", "future: N-P"} <= set(names)
    gain = next(c for c in study.contrasts if c["name"] == "future: N-P")
    assert gain["dimensions"] == ["next", "procedural"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"conditions": ["scene_only", "sideways"]}, "unknown condition"),
        ({"contrasts": [{"name": "x", "a": "scene_only", "b": "official"}]}, "not a condition"),
        ({"contrasts": [{"name": "x", "a": "scene_only", "b": "scene_only"}]}, "itself"),
        (
            {"contrasts": [{**CONTRAST[0], "dimensions": ["local"]}]},
            "dimensions",
        ),
        ({"template": "sideways"}, "unknown template"),
        ({"name": "Bad Name"}, "name"),
    ],
)  # fmt: skip
def test_a_bad_study_is_refused_and_writes_nothing(
    study_release, models, make_endpoint, packages, changes, message
):
    with pytest.raises(StudyError, match=message):
        create_study(study_release, models, make_endpoint, packages, **changes)
    assert not Study.objects.exists() and not Run.objects.exists()


def test_the_judge_package_must_be_a_reference_judge(
    study_release, models, make_endpoint, packages
):
    with pytest.raises(StudyError, match="reference judge"):
        study_create(
            name="st",
            template="custom",
            conditions=["scene_only", "prompt_only"],
            contrasts=CONTRAST,
            release=study_release,
            endpoints=models,
            package=packages("frames-prediction"),
            judge_endpoint=models[0],
            judge_package=packages("video-judge"),
        )


def test_a_study_predicts_then_judges_each_condition_and_reports_by_hand(
    study_release, models, make_endpoint, packages, stand_in
):
    study = create_study(study_release, models, make_endpoint, packages, bootstrap_seed=11)
    started = study_advance(study=study)
    assert len(started["predictions"]) == 4 and started["judges"] == []
    assert study_progress(study)["stage"] == "predicting"
    finish_study(study)
    assert StudyRun.objects.filter(study=study, endpoint=None).count() == 2
    report = json.loads(study_report(study)[0])
    by_hand = {
        (m, c): _scores_by_hand(study, c, m)
        for m in ("model-a", "model-b")
        for c in ("scene_only", "prompt_only")
    }
    samples = sorted(by_hand[("model-a", "scene_only")])
    for model in ("model-a", "model-b"):
        a = [by_hand[(model, "scene_only")][s] for s in samples]
        b = [by_hand[(model, "prompt_only")][s] for s in samples]
        row = next(
            r
            for r in report["effects"]
            if r["model"] == model and r["dimension"] == "overall" and r["stratum"] == "all"
        )
        assert row["n"] == 6
        assert row["estimate"] == pytest.approx(sum(x - y for x, y in zip(a, b, strict=True)) / 6)
        videos = [
            study_release.steps.get(sample_id=s).video_sha256 for s in samples
        ]  # fmt: skip
        ref = paired_difference(np.array(a), np.array(b), np.array(videos), seed=11)
        assert (row["low"], row["high"]) == (
            pytest.approx(ref.low, abs=1e-9),
            pytest.approx(ref.high, abs=1e-9),
        )
        scenes = [study_release.steps.get(sample_id=s).scene_slug for s in samples]
        for statistic in ("scene_macro", "video_macro"):
            ref = paired_difference(
                np.array(a),
                np.array(b),
                np.array(videos),
                seed=11,
                statistic=statistic,
                scenes=np.array(scenes),
            )
            assert row[statistic] == pytest.approx(ref.estimate)
            assert row[f"{statistic}_low"] == pytest.approx(ref.low, abs=1e-9)
            assert row[f"{statistic}_high"] == pytest.approx(ref.high, abs=1e-9)
            assert row[f"{statistic}_significant"] is ref.significant
        # every tag present is a breakdown: action_type by value, the plain label by itself
        tags = {s: study_release.steps.get(sample_id=s).tags for s in samples}
        for stratum, level, members in (
            ("tag:action_type", "grasp", [s for s in samples if "action_type:grasp" in tags[s]]),
            ("tag:action_type", "place", [s for s in samples if "action_type:place" in tags[s]]),
            ("tag:occluded", "occluded", [s for s in samples if "occluded" in tags[s]]),
        ):
            part = next(
                r
                for r in report["effects"]
                if r["model"] == model
                and r["dimension"] == "overall"
                and (r["stratum"], r["level"]) == (stratum, level)
            )
            d = [a[samples.index(s)] - b[samples.index(s)] for s in members]
            assert (part["n"], part["videos"]) == (3, 3)
            assert part["estimate"] == pytest.approx(sum(d) / 3)
            ref = paired_difference(
                np.array(d), np.zeros(3), np.array([videos[samples.index(s)] for s in members]),
                seed=11,
            )  # fmt: skip
            assert (part["low"], part["high"]) == (
                pytest.approx(ref.low, abs=1e-9),
                pytest.approx(ref.high, abs=1e-9),
            )
        strata = {r["stratum"] for r in report["effects"]}
        assert strata == {"all", "scene", "duration_bin", "tag:action_type", "tag:occluded"}
    assert report["bootstrap"]["replicates"] == 2000 and report["bootstrap"]["seed"] == 11
    prov = report["provenance"]
    assert prov["set"]["sample_list_sha256"] == study_release.sample_list_sha256
    assert prov["set"]["manifest_sha256"] == study_release.manifest_sha256
    assert prov["models"][0]["returned_models"] == ["stand-in-vision+stand-in-build-1"]
    assert prov["judge"]["package"]["sha256"] == packages("reference-judge").sha256
    assert prov["prediction_package"]["sha256"] == packages("frames-prediction").sha256
    assert "computed_at" in report and len(report["inputs_sha256"]) == 64


def test_a_refusal_removes_the_step_from_that_condition_for_every_model(
    study_release, models, make_endpoint, packages, stand_in
):
    study = create_study(study_release, models, make_endpoint, packages)
    stand_in.rules(
        {
            "model": "stand-in-vision-b",
            "contains": "scene name",
            "times": 1,
            "action": {"status": 400, "code": "content_filter"},
        }
    )
    finish_study(study)
    refused = Run.objects.get(name="st.scene_only.model-b").items.get(outcome="refusal")
    report = json.loads(study_report(study)[0])
    ex = {e["condition"]: e for e in report["exclusions"]}
    assert ex["scene_only"]["removed"] == 1 and ex["scene_only"]["valid"] == 5
    assert ex["scene_only"]["by_reason"] == {"execution_failure": 1}
    assert ex["scene_only"]["by_model"]["model-b"] == {"execution_failure": 1}
    assert ex["prompt_only"]["removed"] == 0
    a_scene = _scores_by_hand(study, "scene_only", "model-a")
    a_prompt = _scores_by_hand(study, "prompt_only", "model-a")
    kept = [s for s in a_scene if s != refused.key]
    row = next(
        r
        for r in report["effects"]
        if r["model"] == "model-a" and r["dimension"] == "overall" and r["stratum"] == "all"
    )
    assert row["n"] == 5  # model-a's own ok prediction of that step is removed too
    assert row["estimate"] == pytest.approx(sum(a_scene[s] - a_prompt[s] for s in kept) / 5)
    cond = next(
        r
        for r in report["conditions"]
        if (r["model"], r["condition"], r["dimension"], r["stratum"])
        == ("model-a", "prompt_only", "overall", "all")
    )
    assert cond["n"] == 6  # prompt only keeps all six (pair common sets)


def test_a_second_study_on_the_same_inputs_makes_no_call(
    study_release, models, make_endpoint, packages, stand_in
):
    judge = make_endpoint("judge", model="stand-in-judge")
    finish_study(create_study(study_release, models, make_endpoint, packages, judge=judge))
    before = stand_in.stats()["requests"]
    again = create_study(study_release, models, make_endpoint, packages, name="st2", judge=judge)
    finish_study(again)
    assert stand_in.stats()["requests"] == before
    progress = study_progress(again)
    assert progress["predictions"]["cached"] == 24 == progress["judgements"]["cached"]


def test_the_report_is_cached_by_its_inputs_and_identical_on_recompute(
    study_release, models, make_endpoint, packages, stand_in
):
    study = create_study(study_release, models, make_endpoint, packages)
    finish_study(study)
    first, cached = study_report(study)
    assert not cached
    second, cached = study_report(study)
    assert cached and second == first and ReportCache.objects.count() == 1
    fresh, _ = study_report(study, fresh=True)
    strip = lambda t: {k: v for k, v in json.loads(t).items() if k != "computed_at"}  # noqa: E731
    assert strip(fresh) == strip(first)
    Study.objects.filter(pk=study.pk).update(bootstrap_seed=5)
    study.refresh_from_db()
    third, cached = study_report(study)
    assert not cached and json.loads(third)["inputs_sha256"] != json.loads(first)["inputs_sha256"]


def test_csv_tables_carry_the_provenance(study_release, models, make_endpoint, packages, stand_in):
    study = create_study(study_release, models, make_endpoint, packages)
    finish_study(study)
    report = json.loads(study_report(study)[0])
    for table in ("effects", "conditions", "exclusions"):
        text = report_csv(report, table)
        heads = [line for line in text.splitlines() if line.startswith("# ")]
        assert any(study_release.manifest_sha256 in line for line in heads)
        assert any(line.startswith("# bootstrap: ") and '"seed": 0' in line for line in heads)
        assert any(line.startswith("# computed_at: ") for line in heads)
    rows = [line for line in report_csv(report).splitlines() if not line.startswith("#")]
    assert rows[0].startswith("stratum,level,contrast,a,b,model,dimension,n,")


def test_commands_create_run_and_report(
    study_release, models, make_endpoint, packages, stand_in, capsys, tmp_path
):
    make_endpoint("judge", model="stand-in-judge")
    call_command(
        "study_create",
        "cmd",
        "--template",
        "custom",
        "--release",
        "sr",
        "--endpoint",
        "model-a",
        "--endpoint",
        "model-b",
        "--package",
        "frames-prediction",
        "--judge-endpoint",
        "judge",
        "--conditions",
        "scene_only,prompt_only",
        "--contrasts",
        str(_write(tmp_path / "c.json", CONTRAST)),
    )
    study = Study.objects.get(name="cmd")
    call_command("study_run", "cmd")
    assert "predicting" in capsys.readouterr().out
    finish_study(study)
    call_command("study_run", "cmd", "--json")
    assert json.loads(capsys.readouterr().out)["stage"] == "complete"
    call_command("study_report", "cmd", "--format", "csv", "--table", "conditions")
    out = capsys.readouterr().out
    assert out.startswith("# format: ") and "model-a,scene_only,overall" in out


def _write(path, data):
    path.write_text(json.dumps(data))
    return path


def test_the_follow_up_task_advances_the_study_while_its_runs_work(
    study_release, models, make_endpoint, packages, stand_in
):
    from scoring.tasks import advance_study

    study = create_study(study_release, models, make_endpoint, packages)
    assert advance_study(study.pk) is True  # runs started and still working: look again later
    assert study.study_runs.count() == 4
    for sr in StudyRun.objects.filter(study=study):
        run_drive(run_id=sr.run_id)
    assert advance_study(study.pk) is True  # the judges just started
    for sr in StudyRun.objects.filter(study=study, endpoint=None):
        run_drive(run_id=sr.run_id)
    assert advance_study(study.pk) is False and study_progress(study)["stage"] == "complete"
    assert advance_study(999_999) is False


def test_the_export_holds_every_record_and_checks_with_sha256sum(
    study_release, models, make_endpoint, packages, stand_in, tmp_path
):
    import shutil
    import subprocess

    sha256sum = shutil.which("sha256sum")
    study = create_study(study_release, models, make_endpoint, packages)
    finish_study(study)
    call_command("study_export", "st", str(tmp_path / "out"))
    out = tmp_path / "out"
    predictions = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    judgements = [json.loads(x) for x in (out / "judgements.jsonl").read_text().splitlines()]
    assert len(predictions) == 24 and {p["format"] for p in predictions} == {
        "intent-studio.prediction/1"
    }
    assert len(judgements) == 24 and all(j["judgement_outcome"] == "ok" for j in judgements)
    assert json.loads((out / "report.json").read_text())["study"] == "st"
    check = subprocess.run([sha256sum, "-c", "SHA256SUMS"], cwd=out, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    (out / "report.json").write_text("{}")
    assert subprocess.run([sha256sum, "-c", "SHA256SUMS"], cwd=out).returncode != 0
