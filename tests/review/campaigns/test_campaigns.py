"""Campaign rules without threads: expiry, exclusions, order, drafts, parts, supersession."""

from __future__ import annotations

import hashlib

import pytest
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.utils import DatabaseError

from annotation.models import MicroStep
from annotation.services import step_update
from review.campaigns.models import Assignment, Exclusion, Exposure, ItemOrder, Submission
from review.campaigns.order import order_key, person_order
from review.campaigns.progress import progress
from review.campaigns.services import (
    CampaignClosed,
    LeaseLost,
    campaign_close,
    campaign_create,
    claim_next,
    current_submission,
    parts_done,
    record_exposure,
    release,
    renew,
    save_draft,
    submit,
    supersede,
)

YES = {"answer": "yes"}


def _campaign(manifest, people, name="c", kind="trivial", **kw):
    return campaign_create(name=name, kind=kind, manifest=manifest, people=people, **kw)


def test_an_expired_lease_returns_to_the_queue(trivial_kind, make_manifest, reviewers, clock):
    a, b = reviewers(2)
    campaign = _campaign(make_manifest(1, "m1"), [a, b], per_item=2, lease_seconds=60)
    held = claim_next(campaign=campaign, person=a)
    save_draft(assignment=held, person=a, part="", payload={"answer": "no"})
    assert claim_next(campaign=campaign, person=b) is None  # a holds the only item
    clock(61)
    assert not renew(assignment=held, person=a)
    taken = claim_next(campaign=campaign, person=b)
    assert taken is not None and taken.item_id == held.item_id
    held.refresh_from_db()
    assert held.state == "expired"
    with pytest.raises(LeaseLost):
        submit(assignment=held, person=a, part="", payload=YES)
    assert claim_next(campaign=campaign, person=a) is None  # b holds it now
    submit(assignment=taken, person=b, part="", payload=YES)
    again = claim_next(campaign=campaign, person=a)
    assert again.pk == held.pk and again.state == "leased"  # the same assignment, draft kept
    assert again.draft == {"": {"answer": "no"}}


def test_an_expired_lease_nobody_took_is_kept(trivial_kind, make_manifest, reviewers, clock):
    a, b = reviewers(2)
    campaign = _campaign(make_manifest(1, "m1"), [a, b], per_item=2, lease_seconds=60)
    held = claim_next(campaign=campaign, person=a)
    clock(120)
    assert submit(assignment=held, person=a, part="", payload=YES).payload == YES
    assert claim_next(campaign=campaign, person=b).item_id == held.item_id


def test_never_more_people_than_per_item(trivial_kind, make_manifest, reviewers):
    people = reviewers(4)
    campaign = _campaign(make_manifest(1, "m1"), people, per_item=3)
    for person in people[:3]:
        a = claim_next(campaign=campaign, person=person)
        submit(assignment=a, person=person, part="", payload=YES)
    assert claim_next(campaign=campaign, person=people[3]) is None
    assert progress(campaign=campaign)["complete_items"] == 1


def test_a_reviewer_never_gets_a_step_they_annotated_or_revised(
    trivial_kind, dataset, admin_user, annotator, reviewers, make_manifest
):
    # reviewer00 revises two steps before the release is frozen; annotator created them all.
    r0, r1, r2, r3 = reviewers(4)
    revised = list(MicroStep.objects.order_by("id")[:40])
    for step in revised:
        step_update(step=step, author=r0, version=step.version, values={"next_step": "fixed"})
    manifest = make_manifest(10)
    campaign = _campaign(manifest, [annotator, r0, r1, r2, r3], per_item=2)
    revised_uids = {s.uid for s in revised}
    r0_excluded = {
        e.item.sample.sample_id for e in Exclusion.objects.filter(campaign=campaign, person=r0)
    }
    in_manifest = set(manifest.samples.values_list("sample_id", flat=True))
    assert r0_excluded == revised_uids & in_manifest and r0_excluded
    assert Exclusion.objects.filter(campaign=campaign, person=annotator).count() == 10
    assert claim_next(campaign=campaign, person=annotator) is None
    seen = set()
    while (a := claim_next(campaign=campaign, person=r0)) is not None:
        seen.add(a.item.sample.sample_id)
        submit(assignment=a, person=r0, part="", payload=YES)
    assert seen == in_manifest - revised_uids


def test_the_order_is_recomputable_from_ids_and_seed(trivial_kind, manifest10, reviewers):
    person = reviewers(1)[0]
    campaign = _campaign(manifest10, [person], per_item=1, seed=12345)
    sample_ids = list(manifest10.samples.values_list("sample_id", flat=True))
    claimed = []
    while (a := claim_next(campaign=campaign, person=person)) is not None:
        claimed.append(str(a.item.sample.sample_id))
        submit(assignment=a, person=person, part="", payload=YES)
    by_hand = sorted(
        sample_ids,
        key=lambda s: hashlib.sha256(f"{person.pk}:{s}:12345".encode()).hexdigest(),
    )
    assert claimed == [str(s) for s in by_hand] == person_order(person.pk, sample_ids, 12345)
    for row in ItemOrder.objects.filter(campaign=campaign).select_related("item__sample"):
        assert row.key == order_key(person.pk, row.item.sample.sample_id, 12345)
    assert claimed != sorted(claimed)  # not just the id order (a 1-in-10! chance to be wrong)


def test_supersede_keeps_both_and_never_edits(trivial_kind, manifest10, reviewers):
    a, b, c = reviewers(3)
    campaign = _campaign(manifest10, [a, b, c])
    assignment = claim_next(campaign=campaign, person=a)
    first = submit(assignment=assignment, person=a, part="", payload=YES)
    second = supersede(submission=first, person=a, payload={"answer": "no"}, reason="second look")
    assert second.supersedes_id == first.pk
    assert current_submission(assignment=assignment, part="") == second
    assert Submission.objects.filter(assignment=assignment).count() == 2
    first.refresh_from_db()
    assert first.payload == YES
    with pytest.raises(ValidationError):
        supersede(submission=first, person=a, payload=YES)  # only the latest one
    with pytest.raises(PermissionError):
        supersede(submission=second, person=b, payload=YES)  # only one's own
    with pytest.raises(PermissionError):
        Submission.objects.filter(pk=first.pk).update(payload={"answer": "no"})
    with pytest.raises(PermissionError):
        first.save()
    with pytest.raises(PermissionError):
        first.delete()
    campaign_close(campaign=campaign)
    with pytest.raises(CampaignClosed):
        supersede(submission=second, person=a, payload=YES)


@pytest.mark.postgres
def test_postgresql_refuses_editing_a_submission_in_sql(trivial_kind, manifest10, reviewers):
    a, b, c = reviewers(3)
    campaign = _campaign(manifest10, [a, b, c])
    assignment = claim_next(campaign=campaign, person=a)
    first = submit(assignment=assignment, person=a, part="", payload=YES)
    for sql in (
        "UPDATE review_submission SET payload = '{}' WHERE id = %s",
        "DELETE FROM review_submission WHERE id = %s",
    ):
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cur:
            cur.execute(sql, [first.pk])


def test_bad_payload_writes_nothing_and_parts_go_in_order(two_part_kind, manifest10, reviewers):
    people = reviewers(2)
    campaign = _campaign(manifest10, people, kind="twopart", per_item=1)
    a = claim_next(campaign=campaign, person=people[0])
    with pytest.raises(ValidationError):
        submit(assignment=a, person=people[0], part="two", payload=YES)  # one comes first
    with pytest.raises(ValidationError):
        submit(assignment=a, person=people[0], part="one", payload={"answer": "maybe"})
    with pytest.raises(ValidationError):
        submit(assignment=a, person=people[0], part="three", payload=YES)
    assert not Submission.objects.exists()
    submit(assignment=a, person=people[0], part="one", payload=YES)
    assert parts_done(a) == ["one"]
    a.refresh_from_db()
    assert a.state == "leased" and a.committed
    with pytest.raises(ValidationError):
        submit(assignment=a, person=people[0], part="one", payload=YES)
    # A committed item keeps its place: released, it comes back to its person first.
    assert release(assignment=a, person=people[0])
    assert claim_next(campaign=campaign, person=people[1]).item_id != a.item_id
    assert claim_next(campaign=campaign, person=people[0]).pk == a.pk
    submit(assignment=a, person=people[0], part="two", payload=YES)
    a.refresh_from_db()
    assert a.state == "done"


def test_drafts_autosave_and_are_checked(trivial_kind, manifest10, reviewers):
    a, b, c = reviewers(3)
    campaign = _campaign(manifest10, [a, b, c])
    assignment = claim_next(campaign=campaign, person=a)
    saved = save_draft(assignment=assignment, person=a, part="", payload={"answer": "y"})
    assert saved["lease_held"]
    with pytest.raises(ValidationError):
        save_draft(assignment=assignment, person=a, part="", payload=["not", "an", "object"])
    with pytest.raises(ValidationError):
        save_draft(assignment=assignment, person=a, part="", payload={"x": "é" * 200_000})
    with pytest.raises(PermissionError):
        save_draft(assignment=assignment, person=b, part="", payload={})
    assignment.refresh_from_db()
    assert assignment.draft == {"": {"answer": "y"}}
    submit(assignment=assignment, person=a, part="", payload=YES)
    assignment.refresh_from_db()
    assert assignment.draft == {}


def test_exposure_is_logged_and_append_only(trivial_kind, manifest10, reviewers):
    a, b, c = reviewers(3)
    campaign = _campaign(manifest10, [a, b, c])
    assignment = claim_next(campaign=campaign, person=a)
    shown = record_exposure(
        assignment=assignment, part="", grants=["grant-1"], fields=["local_intent"]
    )
    row = Exposure.objects.get()
    assert (row.person_id, row.item_id, row.grants, row.fields) == (
        a.pk, assignment.item_id, ["grant-1"], ["local_intent"],
    )  # fmt: skip
    with pytest.raises(PermissionError):
        shown.save()


def test_bad_campaigns_are_refused_and_write_nothing(trivial_kind, manifest10, reviewers):
    people = reviewers(2)
    from review.campaigns.models import Campaign

    for kwargs, field in (
        ({"kind": "nope"}, "kind"),
        ({"per_item": 3}, "per_item"),  # 3 per item, 2 people
        ({"per_item": 0}, "per_item"),
        ({"seed": -1}, "seed"),
        ({"people": []}, "people"),
        ({"people": [people[0], people[0]]}, "people"),
        ({"name": "bad name!"}, "name"),
    ):
        args = {"name": "c", "kind": "trivial", "manifest": manifest10, "people": people}
        args.update({"per_item": 1, **kwargs})
        with pytest.raises(ValidationError) as caught:
            campaign_create(**args)
        assert field in caught.value.message_dict, (kwargs, caught.value)
    assert not Campaign.objects.exists()


def test_closed_campaigns_and_outsiders_get_nothing(trivial_kind, manifest10, reviewers):
    a, b, c, outsider = reviewers(4)
    campaign = _campaign(manifest10, [a, b, c])
    with pytest.raises(PermissionError):
        claim_next(campaign=campaign, person=outsider)
    held = claim_next(campaign=campaign, person=a)
    campaign_close(campaign=campaign)
    with pytest.raises(CampaignClosed):
        claim_next(campaign=campaign, person=b)
    with pytest.raises(CampaignClosed):
        submit(assignment=held, person=a, part="", payload=YES)
    assert not Assignment.objects.filter(state="leased").exists()


def test_progress_counts_people_and_items(trivial_kind, manifest10, reviewers):
    a, b, c = reviewers(3)
    campaign = _campaign(manifest10, [a, b, c])
    for person in (a, b):
        x = claim_next(campaign=campaign, person=person)
        submit(assignment=x, person=person, part="", payload=YES)
    claim_next(campaign=campaign, person=c)
    report = progress(campaign=campaign)
    assert (report["items"], report["needed"], report["done"], report["leased"]) == (10, 30, 2, 1)
    rows = {r["person"]: r for r in report["people"]}
    assert rows[a.username]["done"] == 1 and rows[c.username]["leased"] == 1
    assert rows[a.username]["eligible"] == 10
