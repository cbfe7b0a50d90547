"""A human baseline end to end: responses in, human answers scored by the same reference judge
package and endpoint as the models (``judge --campaign``; abstentions and broken items never
reach the judge), model scores matched by step uid, and the report command."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from review.baseline.imports import responses_load
from scoring.models import Judgement, Run
from scoring.runs import run_drive, run_predict
from tests.conftest import _user
from tests.review.baseline.world import build_world
from tests.scoring.conftest import render_run_media

pytestmark = pytest.mark.django_db


def dim(texts, conf=3):
    if texts is None:
        return {"answerable": False, "answers": [], "confidence": conf}
    return {"answerable": True, "answers": list(texts), "confidence": conf}


@pytest.fixture
def baseline(tmp_path, admin_user, annotator, rater, django_user_model):
    raters = [rater, _user(django_user_model, "rhea", "rater"),
              _user(django_user_model, "ravi", "rater")]  # fmt: skip
    world = build_world(tmp_path=tmp_path, admin=admin_user, annotator=annotator, raters=raters)
    uids = [str(s.uid) for s in world.steps]
    lines = []
    for n, person in enumerate(raters):
        for k, uid in enumerate(uids):
            if n == 2 and k == 3:
                lines.append({"rater": person.username, "step": uid, "broken": True})
            elif n == 1 and k == 0:  # nothing answerable: no judge call
                lines.append({"rater": person.username, "step": uid, "local": dim(None),
                              "procedural": dim(None), "next": dim(None)})  # fmt: skip
            else:
                lines.append({"rater": person.username, "step": uid,
                              "local": dim([f"hold item {k}"]), "procedural": dim(None),
                              "next": dim(["wash it", "dry it"][: 1 + (n % 2)])})  # fmt: skip
    responses_load(campaign=world.campaign, lines=lines)
    return world


def test_judge_campaign_then_report(baseline, make_endpoint, packages, stand_in, tmp_path):
    model = make_endpoint("secret-model-endpoint", model="stand-in-vision")
    prediction = run_predict(name="pred-official", endpoint=model,
                             package=packages("official-prediction"), condition="official",
                             manifest=baseline.manifest)  # fmt: skip
    render_run_media(prediction)
    run_drive(run_id=prediction.pk)
    judge = make_endpoint("judge", model="stand-in-judge")
    call_command("judge", "judge-models", "--kind", "reference", "--run", "pred-official",
                 "--endpoint", "judge", "--package", "reference-judge")  # fmt: skip
    run_drive(run_id=Run.objects.get(name="judge-models").pk)
    stand_in.reset()
    call_command("judge", "judge-humans", "--kind", "reference", "--campaign",
                 baseline.campaign.name, "--endpoint", judge.name,
                 "--package", "reference-judge")  # fmt: skip
    human_run = Run.objects.get(name="judge-humans")
    run_drive(run_id=human_run.pk)
    rows = list(Judgement.objects.filter(run=human_run))
    # 12 responses: one broken, one with nothing answerable -> 10 judge calls
    assert len(rows) == 10 and {r.subject_kind for r in rows} == {"human_answer"}
    assert {r.outcome for r in rows} == {"ok"}
    assert human_run.options["not_judged"] == {"broken": 1, "unanswerable": 1}
    assert human_run.provenance["campaign"] == baseline.campaign.name
    for body in stand_in.bodies(20):
        text = json.dumps(body)
        for name in ("rhea", "ravi", baseline.raters[0].username, baseline.campaign.name):
            assert name not in text
    # an unanswerable dimension is sent empty
    assert {r.candidate["procedural_intent"] for r in rows} == {""}
    out = tmp_path / "report.json"
    call_command("baseline_report", baseline.campaign.name, "--similarity", "lexical",
                 "--replicates", "300", "-o", str(out))  # fmt: skip
    report = json.loads(out.read_text())
    assert report["judge"]["run"] == "judge-humans"
    assert report["judge"]["package"]["sha256"] == human_run.package.sha256
    assert report["manifest"]["manifest_sha256"] == baseline.manifest.manifest_sha256
    assert report["similarity"]["function"] == "lexical-dice"
    assert report["responses"] == 11 and report["broken"]["responses"] == 1
    assert report["human"]["procedural"]["score"] == 0  # every Procedural unanswerable
    ok = {(r.subject_key.split(":")[1], str(r.sample_id)): r for r in rows}
    expected = sum(r.local for r in ok.values()) / 11
    assert report["human"]["local"]["score"] == pytest.approx(expected)
    (row,) = report["models"]
    assert row["model"] == "pred-official" and row["steps"] == 4 and row["missing_steps"] == 0
    assert report["model_runs"][0]["judge"] == "judge-models"
    csv_out = tmp_path / "report.csv"
    call_command("baseline_report", baseline.campaign.name, "--similarity", "lexical",
                 "--replicates", "300", "--format", "csv", "-o", str(csv_out))  # fmt: skip
    assert csv_out.read_text().startswith("section,name,dimension,metric,value,n,low,high\n")


def test_judgements_made_elsewhere_score_the_answers(baseline, make_endpoint, packages, tmp_path):
    from django.core.management import CommandError

    make_endpoint("outside-judge", model="stand-in-judge")
    packages("reference-judge")
    uids = [str(s.uid) for s in baseline.steps]
    first, second, third = (r.username for r in baseline.raters)
    lines = [
        {"subject": {"kind": "human", "campaign": baseline.campaign.name, "rater": who,
                     "sample": uid}, "judgement_outcome": "ok",
         "scores": {"local": 60, "procedural": 0, "next": 40}}
        for who in (first, second, third) for k, uid in enumerate(uids)
        if not (who == third and k == 3) and not (who == second and k == 0)
    ]  # fmt: skip
    lines[-1] = {**lines[-1], "judgement_outcome": "parse_failure"}
    lines[-1].pop("scores")
    path = tmp_path / "outside.jsonl"
    bad = [*lines, {**lines[0]}]
    path.write_text("\n".join(json.dumps(x) for x in bad) + "\n")
    with pytest.raises(CommandError, match="judged twice"):
        call_command("import_judgements", "outside", str(path), "--campaign",
                     baseline.campaign.name, "--endpoint", "outside-judge")  # fmt: skip
    abstained = {**lines[0], "subject": {**lines[0]["subject"], "rater": second,
                                         "sample": uids[0]}}  # fmt: skip
    path.write_text(json.dumps(abstained) + "\n")
    with pytest.raises(CommandError, match="no judged response"):
        call_command("import_judgements", "outside", str(path), "--campaign",
                     baseline.campaign.name, "--endpoint", "outside-judge")  # fmt: skip
    assert not Run.objects.filter(name="outside").exists()
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    call_command("import_judgements", "outside", str(path), "--campaign",
                 baseline.campaign.name, "--endpoint", "outside-judge")  # fmt: skip
    out = tmp_path / "r.json"
    call_command("baseline_report", baseline.campaign.name, "--similarity", "lexical",
                 "--judge", "outside", "--replicates", "200", "-o", str(out))  # fmt: skip
    report = json.loads(out.read_text())
    # 11 counted responses; 10 judged (one abstained fully), one of them failed (scores 0)
    assert report["judge"]["run"] == "outside" and report["responses"] == 11
    assert report["human"]["local"]["score"] == pytest.approx(9 * 60 / 11)


def test_the_report_says_what_waits_for_a_judge_and_starts_it(
    baseline, make_endpoint, packages, stand_in, client, admin_user
):
    """Answers no judge has scored: the report says how many and offers the reference judge
    (a free name, the judge endpoint and our package preselected); starting it judges the
    campaign's answers, and the offer is gone once every answer is judged. A prediction run on
    the steps without a reference judge gets its own offer (the run page's judge form)."""
    from django.urls import reverse

    judge = make_endpoint("judge", model="stand-in-judge")
    model = make_endpoint("secret-model-endpoint", model="stand-in-vision")
    prediction = run_predict(name="pred-official", endpoint=model,
                             package=packages("official-prediction"), condition="official",
                             manifest=baseline.manifest)  # fmt: skip
    render_run_media(prediction)
    run_drive(run_id=prediction.pk)
    call_command("judge", "judge-models", "--kind", "reference", "--run", "pred-official",
                 "--endpoint", "judge", "--package", "reference-judge")  # fmt: skip
    client.force_login(admin_user)
    url = reverse("scoring:baseline-report", args=[baseline.campaign.pk]) + "?similarity=lexical"
    page = client.get(url).content.decode()
    # 12 responses: one broken and one with nothing answerable are never judged
    assert "10 answers of 10 wait for a judge run" in page
    assert f'value="{baseline.campaign.name}-judge"' in page
    assert f'<option value="{judge.pk}" selected>' in page  # the newest reference judge's
    started = client.post(
        reverse("scoring:baseline-judge", args=[baseline.campaign.pk]),
        {"name": f"{baseline.campaign.name}-judge", "endpoint": judge.pk,
         "package": packages("reference-judge").pk},
    )  # fmt: skip
    run = Run.objects.get(name=f"{baseline.campaign.name}-judge")
    assert started["Location"] == f"/runs/{run.pk}/"
    assert run.provenance["campaign"] == baseline.campaign.name
    run_drive(run_id=run.pk)
    page = client.get(url).content.decode()
    assert "wait for a judge run" not in page and "judge-offer" not in page
    other = run_predict(name="pred-other", endpoint=model,
                        package=packages("official-prediction"), condition="official",
                        manifest=baseline.manifest)  # fmt: skip
    render_run_media(other)
    run_drive(run_id=other.pk)
    page = client.get(url).content.decode()
    assert "pred-other predicted these steps, but no reference judge has scored it" in page
    assert f'action="{reverse("scoring:run-judge", args=[other.pk])}"' in page
    assert 'value="pred-other-reference"' in page
