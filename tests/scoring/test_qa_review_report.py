"""The QA-group review report: decisions by structure, category and modality with Wilson
intervals, agreement when two reviewers see a group, the edits list, and the QA judge's accuracy
and mean score per structure and category with errors and review cases apart; page and command."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from review.campaigns.services import claim_next, submit
from review.qa.kind import CHECKS
from review.qa.selectors import group_for_sample
from scoring.judges import judge_start
from scoring.reports.qa_review import qa_review_report
from scoring.runs import run_drive
from scoring.stats import wilson_interval
from tests.conftest import _user
from tests.review.qa.world import build_qa_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewers(auditor, django_user_model):
    return [auditor, _user(django_user_model, "bea", "auditor")]


@pytest.fixture
def world(tmp_path, admin_user, reviewers):
    return build_qa_world(tmp_path=tmp_path, admin=admin_user, reviewers=reviewers, per_item=2)


def _review_all(world, person, decide):
    while (assignment := claim_next(campaign=world.campaign, person=person)) is not None:
        group = group_for_sample(assignment.item.sample)
        decision, extra = decide(group)
        payload = {
            "decision": decision,
            "reasons": [] if decision == "accept" else ["answer_wrong"],
            "turns": [dict.fromkeys(CHECKS, "pass") for _ in range(group.turn_count)],
            **extra,
        }
        submit(assignment=assignment, person=person, part="", payload=payload)


def test_decisions_agreement_and_edits(world, reviewers):
    _review_all(world, reviewers[0], lambda g: ("accept", {}))

    def second(group):
        if group.structure == "chain":
            edit = {"field": "answer", "turn": 1, "value": "Better", "reason": "why"}
            return "revise", {"edits": [edit]}
        return "accept", {}

    _review_all(world, reviewers[1], second)
    report = qa_review_report(campaign=world.campaign, judge_runs=[])
    assert report["groups"] == 4 and report["reviews"] == 8
    overall = {r["decision"]: r for r in report["decisions"] if r["dimension"] == "all"}
    assert overall["accept"]["count"] == 7 and overall["accept"]["n"] == 8
    low, high = wilson_interval(7, 8)
    assert overall["accept"]["low"] == pytest.approx(low)
    assert overall["accept"]["high"] == pytest.approx(high)
    chain = [
        r for r in report["decisions"] if r["dimension"] == "structure" and r["value"] == "chain"
    ]
    assert {r["decision"]: r["count"] for r in chain}["revise"] == 1
    assert {r["value"] for r in report["decisions"] if r["dimension"] == "modality"} == {
        "audio_visual",
        "visual",
    }
    agreement = report["agreement"]
    assert agreement["groups"] == 4 and agreement["raters"] == 2
    assert agreement["raw_agreement"] == pytest.approx(3 / 4)
    assert [e["proposed"] for e in report["edits"]] == ["Better"]
    assert report["edits"][0]["original"] == "Answer 1"


def test_qa_judge_per_structure_and_category(
    world, reviewers, make_endpoint, packages, stand_in, tmp_path
):
    path = tmp_path / "answers.jsonl"
    lines = []
    for record in world.records:
        for t, turn in enumerate(record["turns"]):
            right = record["structure"] != "chain" or t == 0
            lines.append(
                {
                    "uid": f"{record['uid']}:{t}",
                    "question": turn["question"],
                    "reference_answer": turn["answer"],
                    "answer": turn["answer"] if right else "something unrelated",
                }
            )
    lines.append({"uid": "not-a-group", "question": "q", "reference_answer": "a", "answer": "a"})
    path.write_text("\n".join(json.dumps(x) for x in lines))
    run = judge_start(
        name="qa-judge-run", kind="qa", endpoint=make_endpoint("judge"),
        package=packages("qa-judge"), qa_file=path,
    )  # fmt: skip
    run_drive(run_id=run.pk)
    report = qa_review_report(campaign=world.campaign)
    rows = {(r["dimension"], r["value"]): r for r in report["judge"] if r["run"] == run.name}
    everything = rows[("all", "all")]
    assert everything["records"] == 7 and everything["unmatched"] == 1
    chain = rows[("structure", "chain")]
    assert chain["records"] == 3 and chain["judged"] + chain["review_cases"] == 3
    assert chain["judged"] and chain["accuracy"] < 1
    node = rows[("structure", "node")]
    assert node["accuracy"] == 1.0 and 4 <= node["mean_score"] <= 5
    assert ("category", "world_perception") in rows


def test_page_and_command(world, reviewers, admin_user, client, auditor):
    _review_all(world, reviewers[0], lambda g: ("reject", {}))
    url = reverse("scoring:qa-report", args=[world.campaign.pk])
    client.force_login(auditor)
    assert client.get(url).status_code == 404
    assert client.get(reverse("scoring:qa-reports")).status_code == 404
    client.force_login(admin_user)
    assert world.campaign.name in client.get(reverse("scoring:qa-reports")).content.decode()
    page = client.get(url).content.decode()
    assert "Reject" in page and "Wilson" in page
    data = client.get(url + "?format=json").json()
    assert data["reviews"] == 4
    rows = list(csv.DictReader(io.StringIO(client.get(url + "?format=csv").content.decode())))
    assert any(r["section"] == "decisions" and r["decision"] == "reject" for r in rows)
    out = io.StringIO()
    call_command("qa_review_report", world.campaign.name, "--format", "json", stdout=out)
    assert json.loads(out.getvalue())["reviews"] == 4
    out = io.StringIO()
    call_command("qa_review_report", world.campaign.name, "--format", "csv", stdout=out)
    assert out.getvalue().startswith("section,dimension")
    with pytest.raises(CommandError, match="No QA-review campaign"):
        call_command("qa_review_report", "nope", stdout=io.StringIO())


def test_the_report_counts_a_qa_runs_judged_turns_by_their_group(
    world, make_endpoint, packages, stand_in
):
    from scoring.qa.runs import qa_predict

    asked = qa_predict(
        name="qa-asked", manifest=world.manifest, endpoint=make_endpoint(),
        package=packages("qa-prediction"), media="text_only",
    )  # fmt: skip
    run_drive(run_id=asked.pk)
    judge = judge_start(
        name="qa-asked-judged", kind="qa", endpoint=make_endpoint("judge", model="stand-in-judge"),
        package=packages("qa-judge"), runs=[asked],
    )  # fmt: skip
    run_drive(run_id=judge.pk)
    report = qa_review_report(campaign=world.campaign, judge_runs=[judge])
    rows = {(r["dimension"], r["value"]): r for r in report["judge"]}
    # Six open-ended turns (the Chain's multiple-choice turn is scored without a judge).
    assert rows[("all", "all")]["records"] == 6 and rows[("all", "all")]["unmatched"] == 0
    assert rows[("structure", "chain")]["records"] == 2
