"""The audit over real campaign records: phases, resolution and adjudication, corrections and the
corrected release, the report, import and export of decisions."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from annotation.models import MicroStep, StepRevision
from review.audit.decisions import adjudication_queue, campaign_records
from review.audit.imports import ImportRefused, decisions_export, decisions_load
from review.audit.models import Adjudication, Correction, ImmutableError
from review.audit.reporting import campaign_report
from review.audit.services import adjudicate, corrected_release_freeze, correction_apply
from review.campaigns.models import CampaignItem
from review.campaigns.services import claim_next, submit
from tests.conftest import _user
from tests.review.audit_world import answers, build_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewers(auditor, django_user_model):
    return [
        auditor,
        _user(django_user_model, "bea", "auditor"),
        _user(django_user_model, "cyd", "auditor"),
    ]


@pytest.fixture
def world(tmp_path, admin_user, annotator, reviewers, audit_source):
    return build_world(
        tmp_path=tmp_path,
        admin=admin_user,
        annotator=annotator,
        reviewers=reviewers,
        source=audit_source,
    )


def _do(campaign, person, phase1, phase2):
    a = claim_next(campaign=campaign, person=person)
    submit(assignment=a, person=person, part="phase1", payload=phase1)
    submit(assignment=a, person=person, part="phase2", payload=phase2)
    return a


def test_phase_two_cannot_be_submitted_before_phase_one(world):
    a = claim_next(campaign=world.campaign, person=world.reviewers[0])
    with pytest.raises(ValidationError, match="phase1"):
        submit(assignment=a, person=world.reviewers[0], part="phase2", payload=answers("phase2"))
    with pytest.raises(ValidationError):  # phase 1 must answer all five of its criteria
        submit(
            assignment=a,
            person=world.reviewers[0],
            part="phase1",
            payload={"criteria": {"C1": {"label": "valid"}}},
        )
    with pytest.raises(ValidationError, match="Invalid only"):
        submit(
            assignment=a,
            person=world.reviewers[0],
            part="phase1",
            payload=answers("phase1", C1={"label": "valid", "error_types": ["other"]}),
        )


def test_a_three_way_split_goes_to_adjudication_and_is_resolved_apart(world, adjudicator):
    labels = ["valid", "invalid", "uncertain"]
    items = set()
    for reviewer, label in zip(world.reviewers, labels, strict=True):
        a = _do(world.campaign, reviewer, answers("phase1"), answers("phase2", C7=label))
        items.add(a.item_id)
    # Each reviewer's first item in their own order may differ; find an item all three judged.
    records = campaign_records(world.campaign)
    split = [i for i, r in records.items() if len(r.labels("C7")) == 3]
    if not split:  # give every reviewer the remaining items until one item has all three
        for _ in range(4):
            for reviewer, label in zip(world.reviewers, labels, strict=True):
                a = claim_next(campaign=world.campaign, person=reviewer)
                if a is not None:
                    submit(assignment=a, person=reviewer, part="phase1", payload=answers("phase1"))
                    submit(
                        assignment=a,
                        person=reviewer,
                        part="phase2",
                        payload=answers("phase2", C7=label),
                    )
        records = campaign_records(world.campaign)
        split = [i for i, r in records.items() if len(r.labels("C7")) == 3]
    item_id = split[0]
    queue = dict(adjudication_queue(world.campaign))
    assert queue[item_id] == ["C7"]
    item = CampaignItem.objects.get(pk=item_id)
    with pytest.raises(ValidationError):
        adjudicate(
            campaign=world.campaign, item=item, adjudicator=adjudicator, labels={"C7": "uncertain"}
        )
    with pytest.raises(ValidationError, match="does not wait"):
        adjudicate(
            campaign=world.campaign, item=item, adjudicator=adjudicator, labels={"C1": "invalid"}
        )
    adjudicate(
        campaign=world.campaign, item=item, adjudicator=adjudicator, labels={"C7": "invalid"}
    )
    assert item_id not in dict(adjudication_queue(world.campaign))
    stored = Adjudication.objects.get(item=item, criterion="C7")
    assert stored.label == "invalid"
    with pytest.raises(ImmutableError):
        stored.save()
    # The raw labels are untouched: still the three-way split.
    assert sorted(campaign_records(world.campaign)[item_id].labels("C7")) == sorted(labels)
    report = campaign_report(world.campaign)
    c7 = next(c for c in report["criteria"] if c["id"] == "C7")
    assert c7["adjudicated"] == 1 and c7["invalid"] >= 1


def _import_all(world, rows):
    lines = []
    for step, per_reviewer in zip(world.steps, rows, strict=True):
        for reviewer, labels in zip(world.reviewers, per_reviewer, strict=True):
            for cid, label in labels.items():
                line = {
                    "kind": "decision",
                    "reviewer": reviewer.username,
                    "step": str(step.uid),
                    "criterion": cid,
                    "label": label,
                }
                if label == "invalid":
                    line["error_types"] = ["outcome_visible"] if cid == "C3" else ["other"]
                lines.append(line)
    return lines


ALL = ("C1", "C2", "C3", "C4", "C5", "C6", "C7")


def _labels(**over):
    return {cid: over.get(cid, "valid") for cid in ALL}


def test_the_report_of_imported_decisions_equals_hand_computed_numbers(world, tmp_path):
    rows = [
        [_labels(), _labels(), _labels()],
        [_labels(C3="invalid"), _labels(C3="invalid"), _labels()],  # C3 invalid by majority
        [_labels(C3="uncertain"), _labels(C3="uncertain"), _labels()],  # waits
        [_labels(), _labels(), _labels(C3="invalid")],
    ]
    path = tmp_path / "decisions.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in _import_all(world, rows)) + "\n")
    call_command("audit_import_decisions", world.campaign.name, str(path))
    out = tmp_path / "report.json"
    call_command("audit_report", world.campaign.name, "--format", "json", "-o", str(out))
    report = json.loads(out.read_text())
    assert report["manifest"] == {
        "name": world.manifest.name,
        "samples_sha256": world.manifest.sample_list_sha256,
        "manifest_sha256": world.manifest.manifest_sha256,
    }
    assert report["release"] == world.release.name
    c3 = next(c for c in report["criteria"] if c["id"] == "C3")
    assert (c3["valid"], c3["invalid"], c3["unresolved"], c3["n"]) == (2, 1, 1, 4)
    assert c3["uncertain"] == 1 and c3["needs_adjudication"] == 1
    # Agreeing pairs per item: 3, 1, 1, 1 of 3 → mean 0.5.
    assert c3["raw_agreement"] == pytest.approx(0.5, abs=1e-12)
    # Labels VVV, IIV, UUV, VVI: valid 7, invalid 3, uncertain 2 of 12.
    p = [7 / 12, 3 / 12, 2 / 12]
    p_e = sum(x * x for x in p)
    assert c3["fleiss_kappa"] == pytest.approx((0.5 - p_e) / (1 - p_e), abs=1e-12)
    assert report["overall"]["valid"] == 2 and report["overall"]["unresolved"] == 1
    assert report["macro"]["excluded"] == ["C1", "C2", "C4", "C5", "C6", "C7"]
    assert report["errors"]["outcome_visible"] == 1  # item 2 only: item 4's invalid lost
    assert report["corrections"]["deleted_steps"] == 0
    csv_out = tmp_path / "report.csv"
    call_command("audit_report", world.campaign.name, "--format", "csv", "-o", str(csv_out))
    assert csv_out.read_text().startswith("section,id,name,valid")


def test_an_import_with_any_bad_line_writes_nothing_and_names_every_line(world, tmp_path, rater):
    step = str(world.steps[0].uid)
    good = {
        "kind": "decision",
        "reviewer": world.reviewers[0].username,
        "step": step,
        "criterion": "C1",
        "label": "valid",
    }
    lines = [
        good,
        {**good, "reviewer": "nobody"},
        {**good, "step": "00000000-0000-0000-0000-000000000000"},
        {**good, "reviewer": rater.username},
        {**good, "criterion": "C9"},
        {**good, "criterion": "C2", "label": "invalid", "error_types": ["no_such_code"]},
        {**good, "criterion": "C4", "reviewer": world.annotator.username},
    ]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\nnot json\n")
    with pytest.raises(CommandError) as caught:
        call_command("audit_import_decisions", world.campaign.name, str(path))
    text = str(caught.value)
    for number in (2, 3, 4, 5, 6, 7, 8):
        assert f"line {number}:" in text
    assert "line 1:" not in text
    assert "unknown user 'nobody'" in text and "not in the campaign's manifest" in text
    assert world.campaign.submissions.count() == 0


def test_export_writes_back_what_import_read(world, tmp_path, adjudicator):
    rows = [[_labels(C7="invalid"), _labels(C7="uncertain"), _labels()]] + [
        [_labels(), _labels(), _labels()] for _ in world.steps[1:]
    ]
    lines = _import_all(world, rows)
    lines.append(
        {
            "kind": "adjudication",
            "adjudicator": adjudicator.username,
            "step": str(world.steps[0].uid),
            "criterion": "C7",
            "label": "valid",
        }
    )
    counts = decisions_load(campaign=world.campaign, lines=lines)
    assert counts["decisions"] == 4 * 3 * 7 and counts["adjudications"] == 1
    exported = list(decisions_export(campaign=world.campaign))
    key = lambda x: json.dumps(x, sort_keys=True)  # noqa: E731
    assert sorted(map(key, exported)) == sorted(map(key, lines))
    out = tmp_path / "out.jsonl"
    call_command("audit_export_decisions", world.campaign.name, "-o", str(out))
    assert len(out.read_text().splitlines()) == len(lines)
    # Importing a changed label again supersedes (the old submission is kept).
    before = world.campaign.submissions.count()
    decisions_load(campaign=world.campaign, lines=[{**lines[0], "label": "uncertain"}])
    assert world.campaign.submissions.count() == before + 1
    with pytest.raises(ImportRefused):
        decisions_load(campaign=world.campaign, lines=[{**lines[0], "label": "maybe"}])


def test_a_correction_makes_a_new_release_whose_parent_is_the_audited_one(world, admin_user):
    rows = (
        [[_labels(C3="invalid"), _labels(C3="invalid"), _labels()]]
        + [[_labels(C1="invalid"), _labels(C1="invalid"), _labels()] for _ in world.steps[1:2]]
        + [[_labels(), _labels(), _labels()] for _ in world.steps[2:]]
    )
    decisions_load(campaign=world.campaign, lines=_import_all(world, rows))
    steps_before = MicroStep.objects.count()
    items = {
        str(i.sample.sample_id): i for i in CampaignItem.objects.filter(campaign=world.campaign)
    }
    first, second = world.steps[0], world.steps[1]
    new_cutoff = first.cutoff_us - 300_000
    correction_apply(
        campaign=world.campaign,
        item=items[str(first.uid)],
        author=admin_user,
        kind="move_cutoff",
        values={"cutoff_us": new_cutoff},
        note="outcome seen",
    )
    correction_apply(
        campaign=world.campaign,
        item=items[str(second.uid)],
        author=admin_user,
        kind="split_step",
        values={"at_us": (second.start_us + second.end_us) // 2},
    )
    correction_apply(
        campaign=world.campaign,
        item=items[str(second.uid)],
        author=admin_user,
        kind="revise_local",
        values={"text": "Pick up the sponge"},
    )
    with pytest.raises(ValidationError):
        correction_apply(
            campaign=world.campaign,
            item=items[str(first.uid)],
            author=admin_user,
            kind="delete_step",
            values={},
        )
    revision = StepRevision.objects.filter(step=first).order_by("-version").first()
    assert revision.action == "correct"
    assert world.campaign.name in revision.reason and "move_cutoff" in revision.reason
    assert Correction.objects.filter(campaign=world.campaign).count() == 3

    corrected = corrected_release_freeze(
        campaign=world.campaign, name="secret_release_v2", author=admin_user
    )
    assert corrected.parent_id == world.release.pk
    assert corrected.manifest_sha256 != world.release.manifest_sha256
    assert corrected.sample_list_sha256 != world.release.sample_list_sha256  # the split adds one
    assert corrected.manifest["changes"]["removed"] == []
    assert MicroStep.objects.count() == steps_before + 1
    assert not MicroStep.objects.exclude(status=MicroStep.Status.ACTIVE).exists()
    report = campaign_report(world.campaign)
    assert report["corrections"] == {
        "move_cutoff": 1,
        "split_step": 1,
        "revise_local": 1,
        "revise_procedural": 0,
        "revise_next": 0,
        "add_plausible": 0,
        "at_least_one": 2,
        "deleted_steps": 0,
    }


def test_the_correction_command_does_what_the_page_does(world, admin_user, capsys):
    rows = [[_labels(C7="invalid"), _labels(C7="invalid"), _labels()]] + [
        [_labels(), _labels(), _labels()] for _ in world.steps[1:]
    ]
    decisions_load(campaign=world.campaign, lines=_import_all(world, rows))
    step = world.steps[0]
    with pytest.raises(CommandError, match="No correction"):
        call_command(
            "audit_correct", world.campaign.name, "--freeze", "v2", "--user", admin_user.username
        )
    call_command(
        "audit_correct",
        world.campaign.name,
        "--step",
        str(step.uid),
        "--type",
        "add_plausible",
        "--text",
        "Rinse the sink",
        "--user",
        admin_user.username,
    )
    call_command(
        "audit_correct",
        world.campaign.name,
        "--step",
        str(step.uid),
        "--type",
        "revise_next",
        "--text",
        "Rinse the cup first",
        "--user",
        admin_user.username,
    )
    with pytest.raises(CommandError, match="Required"):
        call_command(
            "audit_correct",
            world.campaign.name,
            "--step",
            str(step.uid),
            "--type",
            "revise_next",
            "--user",
            admin_user.username,
        )
    step.refresh_from_db()
    assert step.next_step == "Rinse the cup first"
    assert step.plausible_next_steps[-1] == "Rinse the sink"
    call_command(
        "audit_correct",
        world.campaign.name,
        "--freeze",
        "secret_release_v2",
        "--user",
        admin_user.username,
    )
    assert "parent secret_release_v1" in capsys.readouterr().out
