"""A QA decision keeps its proposed edits whichever way it is sent: the review page and the
generic campaign API go through the same submission service (the kind's ``on_submit`` stores
the edits), so both store the same rows."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from review.campaigns.services import claim_next, submit
from review.qa.kind import CHECKS
from review.qa.models import QaEdit
from review.qa.selectors import group_for_sample
from tests.conftest import _user
from tests.review.qa.world import build_qa_world

pytestmark = pytest.mark.django_db

EDITS = [
    {"field": "answer", "turn": 1, "value": "A better answer", "reason": "seen later"},
    {"field": "interval", "turn": 0, "evidence": 0, "value": [0, 600_000],
     "reason": "starts earlier"},
]  # fmt: skip


@pytest.fixture
def reviewers(auditor, django_user_model):
    return [auditor, _user(django_user_model, "bea", "auditor")]


@pytest.fixture
def world(tmp_path, admin_user, reviewers):
    return build_qa_world(tmp_path=tmp_path, admin=admin_user, reviewers=reviewers, per_item=2)


def _claim_chain(world, person):
    """Claim until the three-turn Chain group comes up (others are accepted as they are)."""
    while True:
        assignment = claim_next(campaign=world.campaign, person=person)
        group = group_for_sample(assignment.item.sample)
        if group.structure == "chain":
            return assignment, group
        turns = [dict.fromkeys(CHECKS, "pass") for _ in range(group.turn_count)]
        submit(
            assignment=assignment, person=person, part="",
            payload={"decision": "accept", "turns": turns},
        )  # fmt: skip


def _payload(group) -> dict:
    return {
        "decision": "revise",
        "reasons": ["answer_wrong"],
        "turns": [dict.fromkeys(CHECKS, "pass") for _ in range(group.turn_count)],
        "edits": EDITS,
    }


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _stored(submission_person) -> list[tuple]:
    return [
        (e.group_id, e.field, e.turn, e.evidence, e.original, e.proposed, e.reason, e.state)
        for e in QaEdit.objects.filter(author=submission_person).order_by("id")
    ]


def test_an_api_submission_with_two_edits_stores_both(world, reviewers):
    """Finding 9 as reported: POST /api/review/assignments/<token>/submit/ with two edits
    answered 201 and stored no edit."""
    assignment, group = _claim_chain(world, reviewers[0])
    response = _client(reviewers[0]).post(
        f"/api/review/assignments/{assignment.token}/submit/",
        json.dumps({"part": "", "payload": _payload(group)}),
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    edits = QaEdit.objects.filter(group=group).order_by("id")
    assert [e.field for e in edits] == ["answer", "interval"]
    assert all(e.submission.assignment_id == assignment.pk for e in edits)


def test_the_page_and_the_api_store_the_same_edits(world, reviewers):
    page_person, api_person = reviewers
    page_assignment, group = _claim_chain(world, page_person)
    by_page = _client(page_person).post(
        reverse("qa:item-submit", args=[page_assignment.token]),
        json.dumps({"payload": _payload(group)}),
        content_type="application/json",
    )
    assert by_page.status_code == 201, by_page.content
    api_assignment, same = _claim_chain(world, api_person)  # one holder at a time
    assert same.pk == group.pk
    by_api = _client(api_person).post(
        reverse("review:assignment-submit", args=[api_assignment.token]),
        json.dumps({"part": "", "payload": _payload(group)}),
        content_type="application/json",
    )
    assert by_api.status_code == 201, by_api.content
    from_page, from_api = _stored(page_person), _stored(api_person)
    assert len(from_page) == 2
    assert from_page == from_api


def test_a_superseding_decision_through_the_api_keeps_its_edits(world, reviewers):
    assignment, group = _claim_chain(world, reviewers[0])
    client = _client(reviewers[0])
    first = {**_payload(group), "edits": EDITS[:1]}
    response = client.post(
        reverse("qa:item-submit", args=[assignment.token]),
        json.dumps({"payload": first}),
        content_type="application/json",
    )
    assert response.status_code == 201
    response = client.post(
        reverse("review:assignment-supersede", args=[assignment.token]),
        json.dumps({"part": "", "payload": _payload(group), "reason": "one more"}),
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    rows = list(QaEdit.objects.filter(group=group).order_by("id"))
    assert [e.field for e in rows] == ["answer", "answer", "interval"]
    assert rows[1].submission.supersedes_id == rows[0].submission_id
