"""The judge-validation manifest and blind rating campaign: freezing the design with its
triplets, the rater's page and JSON, validation, order, blinding and exposure."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from review.campaigns.models import Exposure, Submission
from review.campaigns.services import claim_next
from review.judgeval.kind import slot_order
from review.judgeval.models import JudgeTriplet
from review.judgeval.services import judgeval_freeze
from tests.conftest import _user
from tests.review.judgeval_world import CLOSED_RUN, PARAMS, build_world

pytestmark = pytest.mark.django_db

SCORES = {"local": 80, "procedural": 65, "next": 40, "reason": ""}


@pytest.fixture
def raters(rater, django_user_model):
    return [
        rater,
        _user(django_user_model, "rhea", "rater"),
        _user(django_user_model, "ravi", "rater"),
    ]


@pytest.fixture
def world(make_video, admin_user, annotator, raters):
    return build_world(make_video=make_video, admin=admin_user, annotator=annotator, raters=raters)


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def post(client, url, data):
    return client.post(url, json.dumps(data), content_type="application/json")


def test_freeze_writes_the_design_and_two_triplets_per_step(world):
    manifest = world.manifest
    assert (manifest.kind, manifest.method, manifest.sample_count) == (
        "judge_validation",
        "milp",
        4,
    )
    header = json.loads(manifest.manifest_text)
    assert header["design"]["steps_per_scene"] == 2
    assert len(header["design"]["pairs"]) == 4
    assert header["design"]["pool"]["closed_runs"] == [CLOSED_RUN]
    assert "time_limit_s" not in header["design"]
    triplets = JudgeTriplet.objects.filter(manifest=manifest)
    assert triplets.count() == 8
    assert set(triplets.values_list("slot", flat=True)) == {"closed", "open"}
    with pytest.raises(PermissionError):
        triplets.update(local="changed")


def test_same_pool_and_seed_give_the_same_design_bytes(world):
    again = judgeval_freeze(
        name="jv_again", release=world.release, pool=list(reversed(world.pool)),
        predictions=world.predictions, seed=11, params=PARAMS,
    )  # fmt: skip
    first, second = json.loads(world.manifest.manifest_text), json.loads(again.manifest_text)
    assert first["design"] == second["design"]
    assert first["sample_list_sha256"] == second["sample_list_sha256"]


def test_infeasible_freeze_names_the_constraint_and_writes_nothing(world):
    from review.models import Manifest

    before = Manifest.objects.count()
    with pytest.raises(ValidationError, match="steps per scene"):
        judgeval_freeze(
            name="jv_bad", release=world.release, pool=world.pool, predictions=world.predictions,
            seed=1, params={**PARAMS, "steps_per_scene": 4, "duration_counts": [8],
                            "triplets_per_model": None, "pairing_min": None, "pairing_max": None},
        )  # fmt: skip
    assert Manifest.objects.count() == before


def test_a_rater_scores_both_triplets_of_a_step_in_their_order(world):
    rater = world.raters[0]
    assignment = claim_next(campaign=world.campaign, person=rater)
    client = client_for(rater)
    page = client.get(reverse("judgeval:item", args=[assignment.token]))
    assert page.status_code == 200
    state_url = reverse("judgeval:item-state", args=[assignment.token])
    submit_url = reverse("judgeval:item-submit", args=[assignment.token])
    state = client.get(state_url).json()
    assert state["part"] == "first" and state["position"] == 1
    order = slot_order(rater.pk, assignment.item.sample.sample_id, world.campaign.seed)
    assert state["prediction"]["local"].startswith(f"{order[0]} says")
    answered = post(client, submit_url, {"part": "first", "payload": SCORES})
    assert answered.status_code == 201
    second = answered.json()
    assert second["part"] == "second"
    assert second["prediction"]["local"].startswith(f"{order[1]} says")
    done = post(
        client, submit_url, {"part": "second", "payload": {**SCORES, "reason": "too_vague"}}
    )
    assert done.status_code == 201 and done.json()["part"] == "done"
    subs = Submission.objects.filter(assignment=assignment).order_by("id")
    assert [s.part for s in subs] == ["first", "second"]
    assert subs[1].payload == {"local": 80, "procedural": 65, "next": 40, "reason": "too_vague"}
    assert Exposure.objects.filter(assignment=assignment).count() == 2


@pytest.mark.parametrize(
    "payload",
    [
        {"local": 101, "procedural": 1, "next": 1},
        {"local": -1, "procedural": 1, "next": 1},
        {"local": 5.5, "procedural": 1, "next": 1},
        {"local": 5, "procedural": 1},
        {"local": 5, "procedural": 1, "next": 1, "reason": "bogus"},
        {"local": 5, "procedural": 1, "next": 1, "model": "x"},
        {"local": True, "procedural": 1, "next": 1},
    ],
)
def test_bad_scores_are_refused_and_nothing_is_written(world, payload):
    rater = world.raters[0]
    assignment = claim_next(campaign=world.campaign, person=rater)
    client = client_for(rater)
    response = post(
        client, reverse("judgeval:item-submit", args=[assignment.token]),
        {"part": "first", "payload": payload},
    )  # fmt: skip
    assert response.status_code == 400
    assert not Submission.objects.filter(assignment=assignment).exists()


def test_drafts_keep_partial_scores(world):
    rater = world.raters[0]
    assignment = claim_next(campaign=world.campaign, person=rater)
    client = client_for(rater)
    url = reverse("judgeval:item-draft", args=[assignment.token])
    saved = client.put(url, json.dumps({"part": "first", "payload": {"local": 7}}),
                       content_type="application/json")  # fmt: skip
    assert saved.status_code == 200
    state = client.get(reverse("judgeval:item-state", args=[assignment.token])).json()
    assert state["draft"]["first"] == {"local": 7, "reason": ""}


def test_another_users_token_is_a_404(world):
    assignment = claim_next(campaign=world.campaign, person=world.raters[0])
    other = client_for(world.raters[1])
    for name in ("judgeval:item", "judgeval:item-state"):
        assert other.get(reverse(name, args=[assignment.token])).status_code == 404


def test_a_crawl_as_a_rater_finds_no_hidden_string(world):
    """Every page and answer a rater reaches: no model or run name, scene, video, step or
    sample id, annotator, automatic score or other rater's scores."""
    others = world.raters[1]
    theirs = claim_next(campaign=world.campaign, person=others)
    oc = client_for(others)
    for part in ("first", "second"):
        post(oc, reverse("judgeval:item-submit", args=[theirs.token]),
             {"part": part, "payload": {"local": 13, "procedural": 17, "next": 19,
                                        "reason": "plausible_alternative"}})  # fmt: skip
    rater = world.raters[0]
    client = client_for(rater)
    texts = [client.get("/").content.decode()]
    campaign_page = client.get(reverse("campaigns:next", args=[world.campaign.pk]))
    texts.append(campaign_page.content.decode())
    for _ in range(4):
        assignment = claim_next(campaign=world.campaign, person=rater)
        if assignment is None:
            break
        texts.append(client.get(reverse("judgeval:item", args=[assignment.token])).content.decode())
        state_url = reverse("judgeval:item-state", args=[assignment.token])
        texts.append(client.get(state_url).content.decode())
        for part in ("first", "second"):
            answer = post(client, reverse("judgeval:item-submit", args=[assignment.token]),
                          {"part": part, "payload": SCORES})  # fmt: skip
            texts.append(answer.content.decode())
    assert len(texts) > 6
    body = "\n".join(texts)
    # The other rater's scores never show (their distinctive values as they would be written).
    assert '"procedural": 17' not in body and '"next": 19' not in body
    for secret in [*world.secrets, "closed", "open_weights"]:
        if secret == "closed":
            # The word never names the slot of the shown prediction: predictions here start
            # with "closed says"/"open says" on purpose, so only check the JSON keys.
            assert '"slot"' not in body
            continue
        assert secret not in body, secret
    assert '"run_name"' not in body and '"sample_id"' not in body
