"""Blinding of the rater page: a crawl as each rater of every page, API answer and media URL
they can reach, before and after submitting, finds no scene or event name, no video name or
SHA-256, no id, no reference label, no model output and nothing of another rater. And the role
checks of the rater and report pages."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from review.campaigns.models import Exposure
from tests.review.audit_world import render_pending
from tests.review.baseline.world import dims
from tests.review.test_audit_blinding import Crawl, client_for

pytestmark = pytest.mark.django_db

OTHERS_ANSWER = "tangerine-answer-of-another-rater"


def _crawl_item(crawl: Crawl, world, *, answer="Lift the cup"):
    crawl.get("/")
    campaign_page = reverse("campaigns:next", args=[world.campaign.pk])
    crawl.get(campaign_page)
    item_url = crawl.client.post(campaign_page)["Location"]
    assert re.fullmatch(r"/baseline/i/[A-Za-z0-9_-]{43}/", item_url)
    token = item_url.split("/")[3]
    crawl.get(item_url)
    crawl.get(reverse("baseline:item-state", args=[token]))
    render_pending()
    _, text = crawl.get(reverse("baseline:item-state", args=[token]))
    state = json.loads(text)
    assert state["clip"]["status"] == "ready" and not state["submitted"]
    assert set(state) == {"submitted", "campaign_open", "lease_held", "instructions",
                          "dimensions", "confidence", "draft", "answer", "clip",
                          "progress"}  # fmt: skip
    assert set(state["progress"]) == {"position", "of", "seconds", "done"}
    crawl.fetch_media()
    after = crawl.post_json(
        reverse("baseline:item-submit", args=[token]),
        {"payload": dims(local=[answer], nxt=[answer + " next", "wash it"])},
        201,
    )
    assert after["submitted"] and after["answer"]["dimensions"]["local"]["answers"] == [answer]
    assert "seconds" not in after["answer"]
    crawl.get(reverse("baseline:item-state", args=[token]))
    crawl.get(item_url)
    crawl.get(reverse("review:assignment", args=[token]))
    crawl.get(campaign_page)
    crawl.fetch_media()
    return token


def test_a_crawl_as_each_rater_finds_nothing_they_must_not_see(world, raters):
    forbidden = [*world.secrets, "judgement", "prediction", "score", "reference"]
    first = Crawl(client_for(raters[0]))
    _crawl_item(first, world, answer=OTHERS_ANSWER)
    first.assert_none_of(forbidden)
    for rater in raters[1:]:
        crawl = Crawl(client_for(rater))
        _crawl_item(crawl, world)
        crawl.assert_none_of([*forbidden, OTHERS_ANSWER, raters[0].username])
    assert len(first.media) >= 1
    exposures = Exposure.objects.filter(person=raters[0])
    assert exposures.exists()
    assert all(e.fields == ["official_clip"] for e in exposures)


def test_nobody_else_reaches_an_assignment_and_reports_are_for_admins(
    world, raters, auditor, annotator, adjudicator, admin_user
):
    owner = client_for(raters[0])
    item_url = owner.post(reverse("campaigns:next", args=[world.campaign.pk]))["Location"]
    token = item_url.split("/")[3]
    urls = [item_url, reverse("baseline:item-state", args=[token])]
    for user in (raters[1], auditor, adjudicator, annotator, admin_user):
        client = client_for(user)
        for url in urls:
            assert client.get(url).status_code == 404, (user.username, url)
        response = client.post(
            reverse("baseline:item-submit", args=[token]), "{}", content_type="application/json"
        )
        assert response.status_code == 404
    # an audit token on the baseline pages is a 404 too (a kind's page serves its kind only)
    staff = [
        reverse("scoring:baseline-list"),
        reverse("scoring:baseline-report", args=[world.campaign.pk]),
    ]
    for user in (raters[0], auditor, annotator, adjudicator):
        client = client_for(user)
        for url in staff:
            assert client.get(url).status_code == 404, (user.username, url)
    boss = client_for(admin_user)
    assert boss.get(staff[0]).status_code == 200
    page = boss.get(staff[1] + "?similarity=lexical")
    assert page.status_code == 200 and b"not judged yet" in page.content
    data = json.loads(boss.get(staff[1] + "?similarity=lexical&format=json").content)
    assert data["campaign"] == world.campaign.name and data["judge"] is None
    assert Client().get(item_url).status_code == 302


def test_a_draft_survives_and_bad_input_writes_nothing(world, raters):
    client = client_for(raters[0])
    item_url = client.post(reverse("campaigns:next", args=[world.campaign.pk]))["Location"]
    token = item_url.split("/")[3]
    draft = {"dimensions": {"next": {"answerable": True, "answers": ["", "half typed"]}}}
    response = client.put(
        reverse("baseline:item-draft", args=[token]),
        json.dumps({"payload": draft}),
        content_type="application/json",
    )
    assert response.status_code == 200
    state = client.get(reverse("baseline:item-state", args=[token])).json()
    assert state["draft"]["dimensions"]["next"]["answers"] == ["", "half typed"]
    bad = client.post(
        reverse("baseline:item-submit", args=[token]),
        json.dumps({"payload": dims(nxt=())}),
        content_type="application/json",
    )
    assert bad.status_code == 400 and "next" in bad.json()
    from review.campaigns.models import Submission

    assert not Submission.objects.filter(campaign=world.campaign).exists()
    flagged = client.post(reverse("baseline:item-submit", args=[token]),
                          json.dumps({"payload": {"broken": True, "note": "frozen frame"}}),
                          content_type="application/json")  # fmt: skip
    assert flagged.status_code == 201 and flagged.json()["answer"]["broken"] is True
