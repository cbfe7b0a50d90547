"""The qa_review campaign kind: decisions with reasons, forced uncertain, per-turn checks,
edits kept apart from the original, versions with their parent and diff."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from review.campaigns.services import claim_next, submit
from review.qa.kind import CHECKS
from review.qa.models import QaEdit, QaGroup, QaGroupSet
from review.qa.selectors import group_for_sample
from review.qa.services import qa_version_create, version_diff
from review.qa.store import set_records
from tests.review.qa.world import build_qa_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(tmp_path, admin_user, auditor):
    return build_qa_world(tmp_path=tmp_path, admin=admin_user, reviewers=[auditor])


def checks(group, value="pass"):
    return [dict.fromkeys(CHECKS, value) for _ in range(group.turn_count)]


def claim_group(world, person, structure=None):
    """Claim until the group of ``structure`` comes up (others are released again)."""
    while True:
        assignment = claim_next(campaign=world.campaign, person=person)
        group = group_for_sample(assignment.item.sample)
        if structure is None or group.structure == structure:
            return assignment, group
        submit(
            assignment=assignment, person=person, part="",
            payload={"decision": "accept", "turns": checks(group)},
        )  # fmt: skip


def test_accept_needs_no_reason_but_others_do(world, auditor):
    assignment, group = claim_group(world, auditor)
    with pytest.raises(ValidationError) as caught:
        submit(
            assignment=assignment, person=auditor, part="",
            payload={"decision": "reject", "turns": checks(group)},
        )  # fmt: skip
    assert "reasons" in caught.value.message_dict
    with pytest.raises(ValidationError) as caught:
        submit(
            assignment=assignment, person=auditor, part="",
            payload={"decision": "accept", "turns": [*checks(group)[:-1], {}]},
        )  # fmt: skip
    assert any(k.startswith("turns.") for k in caught.value.message_dict)
    submission = submit(
        assignment=assignment, person=auditor, part="",
        payload={"decision": "accept", "turns": checks(group)},
    )  # fmt: skip
    assert submission.payload["decision"] == "accept" and submission.payload["reasons"] == []


def test_media_that_will_not_play_forces_uncertain(world, auditor):
    assignment, group = claim_group(world, auditor)
    for flag in ("media_unplayable", "evidence_unverifiable"):
        with pytest.raises(ValidationError, match="stays uncertain"):
            submit(
                assignment=assignment, person=auditor, part="",
                payload={"decision": "accept", flag: True, "turns": checks(group, "unsure")},
            )  # fmt: skip
    submission = submit(
        assignment=assignment, person=auditor, part="",
        payload={"decision": "uncertain", "media_unplayable": True,
                 "turns": checks(group, "unsure")},
    )  # fmt: skip
    assert submission.payload["reasons"] == ["media_problem"]


def test_an_edit_is_kept_apart_and_accepted_into_a_new_version(world, auditor, admin_user):
    assignment, group = claim_group(world, auditor, structure="chain")
    before = list(set_records(world.group_set))
    submit(
        assignment=assignment,
        part="",
        person=auditor,
        payload={
            "decision": "revise",
            "reasons": ["answer_wrong"],
            "turns": checks(group),
            "edits": [
                {"field": "answer", "turn": 1, "value": "A better answer", "reason": "seen later"},
                {"field": "interval", "turn": 0, "evidence": 0, "value": [0, 600_000],
                 "reason": "starts earlier"},
            ],
        },
    )  # fmt: skip
    edits = list(QaEdit.objects.order_by("id"))
    assert [e.field for e in edits] == ["answer", "interval"]
    assert edits[0].original == "Answer 1" and edits[0].proposed == "A better answer"
    assert edits[0].author == auditor and edits[0].reason == "seen later"
    # The original group never changed.
    assert list(set_records(world.group_set)) == before
    assert QaGroup.objects.get(pk=group.pk).turns.get(position=1).answer == "Answer 1"

    child = qa_version_create(
        parent=world.group_set, name="qa_set_v2", edits=edits, admin=admin_user
    )
    assert child.parent == world.group_set and child.is_frozen
    assert child.manifest["parent"]["manifest_sha256"] == world.group_set.manifest_sha256
    changed = child.manifest["changes"]["changed"]
    assert changed == [{"sample_id": str(group.uid), "fields": ["turns"]}]
    diff = version_diff(child)
    assert diff[0]["uid"] == str(group.uid)
    new_group = QaGroup.objects.get(group_set=child, uid=group.uid)
    assert new_group.turns.get(position=1).answer == "A better answer"
    assert list(set_records(world.group_set)) == before  # the parent is as it was
    assert set(QaEdit.objects.values_list("state", flat=True)) == {"accepted"}
    with pytest.raises(ValidationError, match="already decided"):
        qa_version_create(parent=world.group_set, name="qa_set_v3", edits=edits, admin=admin_user)
    with pytest.raises(PermissionError):
        QaEdit.objects.all().update(proposed="x")


def test_bad_edits_are_named_and_nothing_is_written(world, auditor):
    assignment, group = claim_group(world, auditor, structure="chain")
    with pytest.raises(ValidationError) as caught:
        submit(
            assignment=assignment,
            part="",
            person=auditor,
            payload={
                "decision": "revise",
                "reasons": ["answer_wrong"],
                "turns": checks(group),
                "edits": [
                    {"field": "answer", "turn": 9, "value": "x", "reason": "r"},
                    {"field": "question", "turn": 0, "value": "New?", "reason": ""},
                    {"field": "structure", "value": "chain", "reason": "same"},
                    {"field": "interval", "turn": 0, "evidence": 0, "value": [0, 10**9],
                     "reason": "r"},
                ],
            },
        )  # fmt: skip
    problems = caught.value.message_dict["edits"]
    assert len(problems) == 4
    assert problems[0].startswith("edit 1: turn must be")
    assert "say why" in problems[1] and "is the original" in problems[2]
    assert "inside the video" in problems[3]
    assert not QaEdit.objects.exists()
    assert not assignment.submissions.exists()


def test_set_page_lists_edits_for_admins_only(world, auditor, admin_user, client):
    assignment, group = claim_group(world, auditor, structure="chain")
    submit(
        assignment=assignment, person=auditor, part="",
        payload={"decision": "revise", "reasons": ["answer_wrong"], "turns": checks(group),
                 "edits": [{"field": "answer", "turn": 1, "value": "Better", "reason": "why"}]},
    )  # fmt: skip
    url = reverse("qa:set", args=[world.group_set.pk])
    client.force_login(auditor)
    assert client.get(url).status_code == 404
    assert client.get(reverse("qa:sets")).status_code == 404
    client.force_login(admin_user)
    page = client.get(url).content.decode()
    assert "Better" in page and "Answer 1" in page
    # the group by its name, not its uid; the field by its label
    assert f"<td>{group.display_name}</td>" in page and str(group.uid) not in page
    assert group.display_name.startswith("Chain question on ")
    assert "<td>Reference answer · turn 2</td>" in page
    edit = QaEdit.objects.get()
    response = client.post(url, {"action": "accept", "edit": [edit.pk], "name": "qa_set_v2"})
    assert response.status_code == 302
    child = QaGroupSet.objects.get(name="qa_set_v2")
    page = client.get(reverse("qa:set", args=[child.pk])).content.decode()
    assert "Changes against" in page and "Better" in page
    assert str(group.uid) not in page and "question on " in page


def test_an_interval_edit_is_read_as_typed_on_the_clips_frames(world, auditor):
    """The page sends the interval as typed; the server reads each end with the one parser of
    typed times (studio.display.parse_timecode) on the clip's own frames."""
    assignment, group = claim_group(world, auditor, structure="chain")
    start = group.span_start_us
    clip = [int(t) - start for t in group.video.frame_times_us() if start <= t < group.span_end_us]
    base = {"decision": "revise", "reasons": ["evidence_misaligned"], "turns": checks(group)}
    edit = {"field": "interval", "turn": 0, "evidence": 0, "reason": "starts earlier"}
    typo = {**base, "edits": [{**edit, "value": "soon-#5"}]}
    with pytest.raises(ValidationError, match="interval: 'soon' is not a time"):
        submit(assignment=assignment, person=auditor, part="", payload=typo)
    typed = {**base, "edits": [{**edit, "value": "#2 \u2013 0:00.21"}]}
    submit(assignment=assignment, person=auditor, part="", payload=typed)
    proposed = QaEdit.objects.get().proposed
    assert proposed == [start + clip[2], start + clip[6]]  # 0.21 s is nearest clip frame 6 (30 fps)


def test_the_review_state_places_a_predictive_turns_cutoff_on_the_clip(world, auditor):
    from review.qa.blind import review_state

    assignment, group = claim_group(world, auditor, structure="chain")
    turns = review_state(assignment=assignment, user=auditor)["turns"]
    cutoff = group.turns.get(position=2).cutoff_us
    assert cutoff is not None
    assert [t["cutoff_us"] for t in turns] == [None, None, cutoff - group.span_start_us]
