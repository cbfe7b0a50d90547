"""The human_baseline kind on the campaign machinery: responses validated, drafts kept, broken
flags, time spent from the server's exposure log, immutable submissions."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError

from review.baseline.blind import rater_state
from review.baseline.kind import PART
from review.baseline.responses import clean_response
from review.campaigns.models import Submission
from review.campaigns.order import person_order
from review.campaigns.services import campaign_create, claim_next, save_draft, submit, supersede
from tests.review.baseline.world import dims

pytestmark = pytest.mark.django_db


def test_each_rater_gets_the_items_in_their_own_sha256_order(world):
    samples = list(world.manifest.samples.values_list("sample_id", flat=True))
    for person in world.raters:
        expected = person_order(person.pk, samples, world.campaign.seed)
        seen = []
        for _ in samples:
            assignment = claim_next(campaign=world.campaign, person=person)
            seen.append(str(assignment.item.sample.sample_id))
            submit(assignment=assignment, person=person, part=PART, payload=dims())
        assert seen == expected
        assert claim_next(campaign=world.campaign, person=person) is None


def test_a_baseline_needs_raters_and_a_baseline_manifest(world, auditor, admin_user):
    with pytest.raises(ValidationError, match="rater"):
        campaign_create(
            name="b2", kind="human_baseline", manifest=world.manifest, people=[auditor],
            per_item=1, author=admin_user,
        )  # fmt: skip
    from review.manifests.services import design_create, manifest_freeze

    design = design_create(
        author=admin_user, name="aud", method="stratified", release=world.release, seed=1,
        params={"target_n": 2}, kind="audit",
    )  # fmt: skip
    with pytest.raises(ValidationError, match="human_baseline"):
        campaign_create(
            name="b3", kind="human_baseline", manifest=manifest_freeze(design=design,
            author=admin_user), people=world.raters, author=admin_user,
        )  # fmt: skip


@pytest.mark.parametrize(
    "payload, field",
    [
        ({"broken": False, "dimensions": {}}, "local"),
        (dims(local=()), "local"),
        (dims(nxt=("a", "b", "c", "d")), "next"),
        (dims(procedural=("a", "b")), "procedural"),
        (dims(nxt=("Rinse", "rinse")), "next"),
        (dims(conf=6), "local"),
        ({**dims(), "extra": 1}, "payload"),
        ({"broken": "yes"}, "broken"),
        (
            {
                "dimensions": {
                    **dims()["dimensions"],
                    "next": {"answerable": False, "answers": ["x"], "confidence": 3},
                }
            },
            "next",
        ),
        ({"dimensions": {**dims()["dimensions"], "why": {}}}, "dimensions"),
    ],
)
def test_a_bad_response_is_refused_with_the_field_named(payload, field):
    with pytest.raises(ValidationError) as caught:
        clean_response(payload, complete=True)
    assert field in caught.value.error_dict


def test_unanswerable_takes_no_text_and_next_takes_up_to_three():
    cleaned = clean_response(dims(local=None, nxt=(" Rinse it ", "Dry it", "Put it away")),
                             complete=True)  # fmt: skip
    assert cleaned["dimensions"]["local"] == {"answerable": False, "answers": [], "confidence": 4}
    assert cleaned["dimensions"]["next"]["answers"] == ["Rinse it", "Dry it", "Put it away"]


def test_a_draft_may_be_partial_and_survives_a_lost_lease(world):
    person = world.raters[0]
    assignment = claim_next(campaign=world.campaign, person=person)
    partial = {"dimensions": {"local": {"answerable": True, "answers": ["half a tho"]}}}
    save_draft(assignment=assignment, person=person, part=PART, payload=partial)
    assignment.refresh_from_db()
    assert assignment.draft[PART]["dimensions"]["local"]["answers"] == ["half a tho"]
    with pytest.raises(ValidationError):
        save_draft(assignment=assignment, person=person, part=PART,
                   payload={"dimensions": {"local": {"confidence": "high"}}})  # fmt: skip
    state = rater_state(assignment=assignment, user=person)
    assert state["draft"]["dimensions"]["local"]["answers"] == ["half a tho"]


def test_time_spent_is_measured_by_the_server_from_the_first_showing(world, monkeypatch):
    from review.campaigns import services as campaign_services
    from studio import services as studio_services

    person = world.raters[0]
    assignment = claim_next(campaign=world.campaign, person=person)
    rater_state(assignment=assignment, user=person)
    later = studio_services.now() + timedelta(seconds=42)
    monkeypatch.setattr(studio_services, "now", lambda: later)
    monkeypatch.setattr(campaign_services.studio_services, "now", lambda: later)
    payload = {**dims(), "seconds": 1}
    with pytest.raises(ValidationError):  # the page cannot send its own time
        submit(assignment=assignment, person=person, part=PART, payload=payload)
    submission = submit(assignment=assignment, person=person, part=PART, payload=dims())
    assert 41 <= submission.payload["seconds"] <= 43


def test_a_broken_flag_is_a_submission_without_answers(world):
    person = world.raters[1]
    assignment = claim_next(campaign=world.campaign, person=person)
    submission = submit(assignment=assignment, person=person, part=PART,
                        payload={"broken": True, "note": "black screen"})  # fmt: skip
    assert submission.payload["broken"] is True
    assert "dimensions" not in submission.payload
    assignment.refresh_from_db()
    assert assignment.state == "done"


def test_submissions_are_immutable_and_a_change_supersedes(world):
    person = world.raters[2]
    assignment = claim_next(campaign=world.campaign, person=person)
    first = submit(assignment=assignment, person=person, part=PART, payload=dims())
    with pytest.raises(PermissionError):
        Submission.objects.filter(pk=first.pk).update(payload={})
    second = supersede(submission=first, person=person, payload=dims(local=None), reason="typo")
    assert second.supersedes_id == first.pk
    assert Submission.objects.filter(assignment=assignment).count() == 2
