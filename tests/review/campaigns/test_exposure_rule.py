"""The exposure rule across campaigns (review/campaigns/exposure.py): nobody is shown a step's
reference answers while they still have that step to answer blind in a human-baseline campaign,
and nobody is given a step to answer blind whose references they were shown. Held at campaign
creation (an exclusion with its reason, in campaign_status), at the claim and on the item page
(whenever the campaigns were made), on the adjudication pages and in the workspace; QA groups
count for every step their span overlaps."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from annotation.models import VideoAssignment
from annotation.releases import release_freeze
from annotation.services import step_create
from review.campaigns import exposure
from review.campaigns.models import Assignment, Exclusion, Exposure
from review.campaigns.services import (
    ExposureRefused,
    campaign_create,
    claim_next,
    claimable_later,
    save_draft,
    submit,
)
from review.manifests.services import design_create, manifest_freeze
from review.qa.kind import CHECKS, group_steps
from review.qa.selectors import group_for_sample
from tests.conftest import _user
from tests.review.baseline.world import build_world, dims, judgeval_over

pytestmark = pytest.mark.django_db


@pytest.fixture
def raters(rater, django_user_model):
    return [
        rater,
        _user(django_user_model, "rhea", "rater"),
        _user(django_user_model, "ravi", "rater"),
    ]


@pytest.fixture
def world(tmp_path, admin_user, annotator, raters, audit_source):
    return build_world(
        tmp_path=tmp_path, admin=admin_user, annotator=annotator, raters=raters, source=audit_source
    )


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def baseline_for(world, person, admin, name, seed=3):
    return campaign_create(
        name=name, kind="human_baseline", manifest=world.manifest, people=[person], per_item=1,
        seed=seed, author=admin,
    )  # fmt: skip


def answer_every_item(campaign, person) -> None:
    while (assignment := claim_next(campaign=campaign, person=person)) is not None:
        submit(assignment=assignment, person=person, part="response", payload=dims())


def reasons(campaign, person) -> list[str]:
    return sorted(
        Exclusion.objects.filter(campaign=campaign, person=person).values_list("reason", flat=True)
    )


def test_a_rating_campaign_excludes_steps_its_raters_still_answer_blind(world, raters, admin_user):
    """Finding 3 as reported: raters of a human baseline were put in a judge-validation
    campaign over overlapping steps and shown their references."""
    rating = judgeval_over(world, raters, admin_user)
    for person in raters:
        assert reasons(rating, person) == ["still answers this step blind (baseline-one)"] * 2
        assert claim_next(campaign=rating, person=person) is None
    report = io.StringIO()
    call_command("campaign_status", rating.name, stdout=report)
    assert "excluded from 2: still answers this step blind (baseline-one)" in report.getvalue()
    report = io.StringIO()
    call_command("campaign_status", rating.name, "--json", stdout=report)
    row = json.loads(report.getvalue())["people"][0]
    assert row["excluded"] == 2 and row["eligible"] == 0
    assert row["exclusions"] == {"still answers this step blind (baseline-one)": 2}


def test_a_baseline_excludes_steps_whose_references_were_shown(
    world, admin_user, django_user_model
):
    vera = _user(django_user_model, "vera", "rater")
    others = [_user(django_user_model, f"other-{n}", "rater") for n in (1, 2)]
    rating = judgeval_over(world, [vera, *others], admin_user, name="rating-two")
    held = claim_next(campaign=rating, person=vera)
    state = client_for(vera).get(reverse("judgeval:item-state", args=[held.token]))
    assert state.status_code == 200 and state.json()["reference"]["local"]
    baseline = baseline_for(world, vera, admin_user, "baseline-vera")
    # only the step Vera was shown, not the other step of the rating campaign
    assert reasons(baseline, vera) == ["was shown this step's reference answers (rating-two)"]
    excluded = Exclusion.objects.get(campaign=baseline, person=vera).item
    assert excluded.sample.sample_id == held.item.sample.sample_id


def test_the_claim_and_the_page_hold_the_rule_for_campaigns_made_earlier(
    world, admin_user, django_user_model
):
    vera = _user(django_user_model, "vera", "rater")
    others = [_user(django_user_model, f"other-{n}", "rater") for n in (1, 2)]
    rating = judgeval_over(world, [vera, *others], admin_user, name="rating-two")
    held = claim_next(campaign=rating, person=vera)  # claimed, not opened yet
    baseline = baseline_for(world, vera, admin_user, "baseline-vera")
    assert not Exclusion.objects.filter(person=vera).exists()  # nothing shown, nothing pending then

    client = client_for(vera)
    state = client.get(reverse("judgeval:item-state", args=[held.token]))
    assert state.status_code == 409
    assert state.json()["detail"] == (
        "This item is not for you now: you still answer this step blind (baseline-vera)."
    )
    assert not Exposure.objects.filter(person=vera).exists()
    saved = save_draft(assignment=held, person=vera, part="first", payload={"local": 70})
    assert saved["lease_held"]  # nothing typed is lost
    with pytest.raises(ExposureRefused):
        submit(assignment=held, person=vera, part="first", payload={"local": 1, "procedural": 2,
                                                                    "next": 3})  # fmt: skip
    # claiming again gives the held item back and nothing else (both rating items are shared)
    assert claim_next(campaign=rating, person=vera) is None
    held.refresh_from_db()
    assert held.state == Assignment.State.RELEASED
    assert claimable_later(campaign=rating, person=vera) == 2  # they open once she is through

    answer_every_item(baseline, vera)
    again = claim_next(campaign=rating, person=vera)
    assert again.pk == held.pk and again.draft["first"]["local"] == 70
    assert client.get(reverse("judgeval:item-state", args=[again.token])).status_code == 200


def test_a_blind_claim_skips_steps_shown_elsewhere(world, admin_user, django_user_model):
    """Blind work is never given on a step whose references the person saw, even when the
    showing predates the campaign's exclusions (a log row from before the rule)."""
    vera = _user(django_user_model, "vera", "rater")
    baseline = baseline_for(world, vera, admin_user, "baseline-vera")
    seen = world.steps[1].uid
    exposure.references_shown(vera, steps=[seen], source=exposure.WORKSPACE)
    given = []
    while (assignment := claim_next(campaign=baseline, person=vera)) is not None:
        given.append(assignment.item.sample.sample_id)
        submit(assignment=assignment, person=vera, part="response", payload=dims())
    assert len(given) == 3 and seen not in given
    assert claimable_later(campaign=baseline, person=vera) == 0  # finished, not waiting


def test_adjudication_waits_until_the_adjudicator_is_through_the_baseline(
    world, admin_user, auditor, django_user_model
):
    adele = _user(django_user_model, "adele", "adjudicator", "rater")
    design = design_create(
        author=admin_user, name="audit_shared", method="stratified", release=world.release,
        seed=7, params={"target_n": 4}, kind="audit",
    )  # fmt: skip
    manifest = manifest_freeze(design=design, author=admin_user)
    audit = campaign_create(
        name="audit-shared", kind="audit", manifest=manifest, people=[auditor], per_item=1,
        author=admin_user,
    )  # fmt: skip
    item = audit.items.select_related("sample").first()
    baseline = baseline_for(world, adele, admin_user, "baseline-adele")
    url = reverse("audit:adjudicate", args=[audit.pk, item.pk])
    client = client_for(adele)
    refused = client.get(url)
    assert refused.status_code == 403
    assert "still answer this step blind (baseline-adele)" in refused.content.decode()
    clips = client.get(reverse("audit:adjudicate-clips", args=[audit.pk, item.pk]))
    assert clips.status_code == 403 and "blind" in clips.json()["detail"]
    assert not Exposure.objects.filter(person=adele).exists()

    answer_every_item(baseline, adele)
    assert client.get(url).status_code == 200
    shown = Exposure.objects.get(person=adele)
    assert (shown.source, shown.item_id, shown.assignment_id) == ("adjudication", item.pk, None)
    later = baseline_for(world, adele, admin_user, "baseline-adele-again", seed=4)
    assert reasons(later, adele) == [
        "was shown this step's reference answers (adjudication, audit-shared)"
    ]


def test_the_workspace_is_withheld_while_its_steps_are_answered_blind(
    world, admin_user, django_user_model
):
    wes = _user(django_user_model, "wes", "annotator", "rater")
    VideoAssignment.objects.create(video=world.video, annotator=wes)
    baseline = baseline_for(world, wes, admin_user, "baseline-wes")
    client = client_for(wes)
    workspace = f"/api/annotation/videos/{world.video.pk}/workspace/"
    assert client.get(workspace).status_code == 404
    assert client.get(f"/api/annotation/steps/{world.steps[0].pk}/").status_code == 404
    assert client.get(reverse("annotation:workspace", args=[world.video.pk])).status_code == 404
    assert world.video.title not in client.get(reverse("annotation:video-list")).content.decode()
    assert not Exposure.objects.filter(person=wes).exists()

    answer_every_item(baseline, wes)
    assert client.get(workspace).status_code == 200
    assert client.get(workspace).status_code == 200  # each step is logged once per person
    logged = Exposure.objects.filter(person=wes, source="workspace")
    assert sorted(logged.values_list("step_uid", flat=True), key=str) == sorted(
        (s.uid for s in world.steps), key=str
    )
    later = baseline_for(world, wes, admin_user, "baseline-wes-again", seed=4)
    assert reasons(later, wes) == ["was shown this step's reference answers (workspace)"] * 4


def test_a_qa_group_counts_for_the_steps_its_span_overlaps(
    tmp_path, admin_user, annotator, django_user_model
):
    from tests.review.qa.world import build_qa_world

    quinn = _user(django_user_model, "quinn", "auditor", "rater")
    qa = build_qa_world(tmp_path=tmp_path, admin=admin_user, reviewers=[quinn])
    S = 1_000_000
    # one step inside the Chain group's span only (its evidence runs from 0.5 s to 4.33 s, the
    # other groups' end by 3.5 s), one after every group
    labels = {"procedural_intent": "Call them in", "next_step": "Wait"}
    inside = step_create(
        video=qa.video, author=annotator, start_us=3_600_000, cutoff_us=3_900_000,
        outcome_us=3_900_000, end_us=4_200_000, local_intent="Ring the bell", **labels,
    )  # fmt: skip
    after = step_create(
        video=qa.video, author=annotator, start_us=7 * S, cutoff_us=7 * S + S // 2,
        outcome_us=7 * S + S // 2, end_us=8 * S - 1, local_intent="Leave", **labels,
    )  # fmt: skip
    release = release_freeze(name="qa_video_release", author=admin_user)
    steps_of = group_steps(list(qa.campaign.items.select_related("sample")))
    covered = set().union(*steps_of.values())
    assert inside.uid in covered and after.uid not in covered
    overlapping = {item_id for item_id, uids in steps_of.items() if inside.uid in uids}

    design = design_create(
        author=admin_user, name="qa_video_baseline", method="stratified", release=release,
        seed=2, params={"target_n": 2}, kind="human_baseline",
    )  # fmt: skip
    campaign_create(
        name="baseline-quinn", kind="human_baseline",
        manifest=manifest_freeze(design=design, author=admin_user), people=[quinn], per_item=1,
        author=admin_user,
    )  # fmt: skip
    given = []
    while (assignment := claim_next(campaign=qa.campaign, person=quinn)) is not None:
        given.append(assignment.item_id)
        group = group_for_sample(assignment.item.sample)
        turns = [dict.fromkeys(CHECKS, "pass") for _ in range(group.turn_count)]
        payload = {"decision": "accept", "turns": turns}
        submit(assignment=assignment, person=quinn, part="", payload=payload)
    assert len(overlapping) == 1 and given and not set(given) & overlapping
    assert len(given) == qa.campaign.items.count() - len(overlapping)
    fresh = campaign_create(
        name="qa-again", kind="qa_review", manifest=qa.manifest, people=[quinn], per_item=1,
        author=admin_user,
    )  # fmt: skip
    [excluded] = Exclusion.objects.filter(campaign=fresh, person=quinn).select_related("item")
    assert excluded.reason == "still answers this step blind (baseline-quinn)"
    [chain] = qa.campaign.items.filter(pk__in=overlapping)
    assert excluded.item.sample_id == chain.sample_id
