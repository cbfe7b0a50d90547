"""Blinding of the QA review: a crawl as a QA reviewer of every page, API answer and media URL
they reach finds no group uid, source video, provenance, set or manifest name, model output or
judge score, and nothing of another reviewer; every shown state is in the exposure log. Payloads
in questions and answers come back as JSON text and escaped HTML only."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from review.campaigns.models import Exposure
from review.qa.kind import CHECKS
from tests.conftest import _user
from tests.review.audit_world import render_pending
from tests.review.qa.world import build_qa_world
from tests.review.test_audit_blinding import Crawl, client_for

pytestmark = pytest.mark.django_db

OTHERS_COMMENT = "persimmon-comment-of-another-reviewer"
XSS = "<script>window.__x=1</script><img src=x onerror=alert(1)>"


@pytest.fixture
def reviewers(auditor, django_user_model):
    return [auditor, _user(django_user_model, "bea", "auditor")]


@pytest.fixture
def world(tmp_path, admin_user, reviewers):
    return build_qa_world(
        tmp_path=tmp_path, admin=admin_user, reviewers=reviewers, per_item=2, extra=XSS
    )


def _review_one(crawl: Crawl, world, comment=""):
    crawl.get("/")
    campaign_page = reverse("campaigns:next", args=[world.campaign.pk])
    crawl.get(campaign_page)
    item_url = crawl.client.post(campaign_page)["Location"]
    assert re.fullmatch(r"/qa/i/[A-Za-z0-9_-]{43}/", item_url)
    token = item_url.split("/")[3]
    _, page = crawl.get(item_url)
    assert "<script>window.__x" not in page
    crawl.get(reverse("qa:item-state", args=[token]))
    render_pending()
    _, text = crawl.get(reverse("qa:item-state", args=[token]))
    state = json.loads(text)
    assert state["clip"]["status"] == "ready"
    assert state["clip"]["frame_times_us"][0] == 0
    for turn in state["turns"]:
        assert turn["question"].endswith(XSS)  # text, for the page to set as textContent
        for ev in turn["evidence"]:
            assert 0 <= ev["first_frame"] < ev["end_frame"] <= len(state["clip"]["frame_times_us"])
    crawl.fetch_media()
    payload = {
        "decision": "revise",
        "reasons": ["other"],
        "comment": comment or "needs work",
        "turns": [dict.fromkeys(CHECKS, "pass") for _ in state["turns"]],
        "edits": [{"field": "question", "turn": 0, "value": "Clearer?", "reason": comment or "r"}],
    }
    crawl.post_json(reverse("qa:item-draft", args=[token]), {"payload": payload}, 200)
    after = crawl.post_json(reverse("qa:item-submit", args=[token]), {"payload": payload}, 201)
    assert after["done"] and after["answer"]["decision"] == "revise"
    crawl.get(reverse("review:assignment", args=[token]))
    return token


def test_a_crawl_as_a_qa_reviewer_finds_nothing_hidden(world, reviewers):
    forbidden = [*world.secrets, "judgement", "prediction", "score", "model_answer"]
    first = Crawl(client_for(reviewers[0]))
    _review_one(first, world, comment=OTHERS_COMMENT)
    first.assert_none_of(forbidden)
    second = Crawl(client_for(reviewers[1]))
    token = _review_one(second, world)
    second.assert_none_of([*forbidden, OTHERS_COMMENT, reviewers[0].username])
    assert len(first.media) >= 1
    exposures = Exposure.objects.filter(person=reviewers[0])
    assert exposures.exists()
    assert all("turns" in e.fields and "clip" in e.fields for e in exposures)
    assert any(e.grants for e in exposures)
    # The other reviewer's token is a 404 for the first.
    assert first.client.get(reverse("qa:item-state", args=[token])).status_code == 404


def test_roles_are_checked(world, reviewers, rater, annotator, admin_user):
    owner = client_for(reviewers[0])
    item_url = owner.post(reverse("campaigns:next", args=[world.campaign.pk]))["Location"]
    token = item_url.split("/")[3]
    for user in (reviewers[1], rater, annotator, admin_user):
        client = client_for(user)
        for url in (item_url, reverse("qa:item-state", args=[token])):
            assert client.get(url).status_code == 404, (user.username, url)
        response = client.post(
            reverse("qa:item-submit", args=[token]), "{}", content_type="application/json"
        )
        assert response.status_code == 404
    for user in (reviewers[0], rater, annotator):
        client = client_for(user)
        assert client.get(reverse("qa:sets")).status_code == 404
        assert client.get(reverse("qa:set", args=[world.group_set.pk])).status_code == 404
    boss = client_for(admin_user)
    page = boss.get(reverse("qa:set", args=[world.group_set.pk])).content.decode()
    assert "<script>window.__x" not in page
    assert Client().get(item_url).status_code == 302
