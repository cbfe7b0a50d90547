"""Predictions made elsewhere: imported all-or-nothing with line numbers, unknown provenance
stated as unknown, and then judged, reported and ranked exactly as our own runs."""

import json

import pytest
from django.core.management import CommandError, call_command

from scoring.judges import judge_start
from scoring.models import Run
from scoring.reports.leaderboard import leaderboard
from scoring.runs import RunError, run_drive, run_predict
from scoring.runs.export import run_lines
from scoring.runs.imports import predictions_import

pytestmark = pytest.mark.django_db


@pytest.fixture
def exported(study_release, models, packages, stand_in, tmp_path):
    run = run_predict(
        name="ours",
        endpoint=models[0],
        package=packages("frames-prediction"),
        condition="prompt_only",
        release=study_release,
    )
    run_drive(run_id=run.pk)
    path = tmp_path / "ours.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in run_lines(run)))
    return run, path


def test_an_exported_run_imports_as_the_same_predictions(
    study_release, models, packages, exported, make_endpoint
):
    ours, path = exported
    run = predictions_import(
        name="theirs",
        path=path,
        endpoint=models[1],
        package=packages("frames-prediction"),
        condition="prompt_only",
        release=study_release,
    )
    assert run.status == "finished" and run.items.count() == 6
    mine = {i.key: i.prediction for i in ours.items.all()}
    assert {i.key: i.prediction for i in run.items.all()} == mine
    info = run.provenance["imported"]
    assert info["lines"] == 6 and info["missing_steps"] == 0
    assert "media_sha256" in info["unknown"] and "returned_model" not in info["unknown"]
    judge = judge_start(
        name="judge-theirs",
        kind="reference",
        endpoint=make_endpoint("judge", model="stand-in-judge"),
        package=packages("reference-judge"),
        runs=[ours, run],
    )
    run_drive(run_id=judge.pk)
    board = json.loads(leaderboard(release=study_release, condition="prompt_only")[0])
    rows = {r["model"]: r for r in board["models"]}
    assert rows["model-a"]["overall"] == pytest.approx(rows["model-b"]["overall"])
    assert rows["model-b"]["ok"] == 6


def test_a_minimal_file_leaves_everything_else_unknown(study_release, models, packages, tmp_path):
    uid = str(study_release.steps.first().sample_id)
    path = tmp_path / "min.jsonl"
    prediction = {"local_intent": "a", "procedural_intent": "b", "next_step": "c"}
    path.write_text(json.dumps({"sample": uid, "outcome": "ok", "prediction": prediction}))
    call_command(
        "import_predictions", "min", str(path), "--release", "sr", "--condition", "official",
        "--endpoint", "model-a",
    )  # fmt: skip
    run = Run.objects.get(name="min")
    info = run.provenance["imported"]
    assert info["unknown"] == [
        "media_interface",
        "media_sha256",
        "package_sha256",
        "returned_model",
    ]
    assert info["missing_steps"] == 5 and run.items.get().returned_model == ""


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 2: not JSON"),
        ('{"sample": "nope", "outcome": "ok"}', "line 2: sample 'nope' is not a step"),
        ('{"sample": "FIRST", "outcome": "ok", "prediction": null}', "line 2: sample .* twice"),
        ('{"sample": "SECOND", "outcome": "fine", "prediction": null}', "line 2: outcome"),
        ('{"sample": "SECOND", "outcome": "ok", "prediction": {"next_step": "x"}}', "line 2: pr"),
        ('{"sample": "SECOND", "outcome": "refusal", "prediction": {"a": 1}}', "must be null"),
        ('{"sample": "SECOND", "outcome": "ok", "extra": 1}', "unknown field"),
        ('{"sample": "SECOND", "outcome": "api_error", "condition": "early"}', "condition"),
    ],
)  # fmt: skip
def test_a_bad_line_names_its_number_and_nothing_is_written(
    study_release, models, packages, tmp_path, line, message
):
    uids = [str(s.sample_id) for s in study_release.steps.order_by("sample_id")]
    good = {"sample": uids[0], "outcome": "refusal", "prediction": None}
    path = tmp_path / "bad.jsonl"
    path.write_text(
        json.dumps(good) + "\n" + line.replace("FIRST", uids[0]).replace("SECOND", uids[1])
    )
    with pytest.raises(RunError, match=message):
        predictions_import(
            name="bad",
            path=path,
            endpoint=models[0],
            package=packages("frames-prediction"),
            condition="official",
            release=study_release,
        )
    assert not Run.objects.filter(name="bad").exists()
    with pytest.raises(CommandError, match=message):
        call_command(
            "import_predictions", "bad", str(path), "--release", "sr", "--condition",
            "official", "--endpoint", "model-a",
        )  # fmt: skip


def test_judgements_made_elsewhere_score_like_ours(
    study_release, models, packages, exported, make_endpoint, tmp_path
):
    ours, _ = exported
    judge_endpoint = make_endpoint("judge", model="stand-in-judge")
    judge = judge_start(
        name="our-judge",
        kind="reference",
        endpoint=judge_endpoint,
        package=packages("reference-judge"),
        runs=[ours],
    )
    run_drive(run_id=judge.pk)
    path = tmp_path / "judged.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in run_lines(judge)))
    ours_board = json.loads(leaderboard(release=study_release, condition="prompt_only")[0])
    Run.objects.filter(pk=judge.pk).update(name="our-judge-old")
    judge.sources.clear()  # only the imported judge run judges `ours` now
    call_command(
        "import_judgements", "their-judge", str(path), "--run", "ours", "--endpoint", "judge"
    )
    imported = Run.objects.get(name="their-judge")
    assert imported.judgements.count() == 6 and imported.status == "finished"
    board = json.loads(leaderboard(release=study_release, condition="prompt_only")[0])
    assert board["models"][0]["reference_judge"] == "their-judge"
    assert board["models"][0]["overall"] == pytest.approx(ours_board["models"][0]["overall"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.update(subject={"kind": "human", "key": "x"}), "human baseline"),
        (lambda r: r["subject"].update(run="other"), "not one of the --run"),
        (lambda r: r["subject"].update(sample="nope"), "has no sample"),
        (lambda r: r["scores"].update(local=101), "scores.local"),
        (lambda r: r.update(judgement_outcome="great"), "judgement_outcome"),
    ],
)
def test_a_bad_judgement_line_names_its_number_and_writes_nothing(
    study_release, models, packages, exported, make_endpoint, tmp_path, change, message
):
    ours, _ = exported
    uid = ours.items.first().key
    good = {
        "subject": {"kind": "prediction", "run": "ours", "sample": uid},
        "judgement_outcome": "ok",
        "scores": {"local": 50, "procedural": 40, "next": 0, "next_match_type": "none"},
    }
    bad = json.loads(json.dumps(good))
    bad["subject"]["sample"] = ours.items.order_by("-position").first().key
    change(bad)
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(CommandError, match=f"line 2: .*{message}"):
        call_command(
            "import_judgements", "bad", str(path), "--run", "ours", "--endpoint", "model-a"
        )
    assert not Run.objects.filter(name="bad").exists()
