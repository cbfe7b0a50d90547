"""Blinding of the audit pages: a crawl as each reviewer of every page, API answer and media URL
they can reach finds no scene or event name, no video file name or SHA-256, no step or sample id,
no annotator name, nothing of another reviewer, and no phase-2 field before phase 1 is submitted.
And the role checks of every audit page."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from review.campaigns.models import Exposure
from tests.conftest import _user
from tests.review.audit_world import answers, build_world, render_pending

pytestmark = pytest.mark.django_db

OTHERS_COMMENT = "tangerine-comment-of-another-reviewer"


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
        instructions="Judge carefully.",
    )


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


class Crawl:
    """Everything one user fetched, to search for what must not be there."""

    def __init__(self, client: Client):
        self.client = client
        self.texts: list[tuple[str, str]] = []
        self.media: list[str] = []

    def get(self, url, expect=200):
        response = self.client.get(url)
        assert response.status_code == expect, (url, response.status_code)
        if hasattr(response, "streaming_content"):
            body = b"".join(response.streaming_content)
        else:
            body = response.content
        text = body.decode("utf-8", "replace")
        self.texts.append((url, text))
        if response.get("Content-Type", "").startswith("application/json"):
            self.media += re.findall(r'"(/m/[A-Za-z0-9_-]+)"', text)
        return response, text

    def post_json(self, url, data, expect):
        response = self.client.post(
            url, json.dumps(data), content_type="application/json", HTTP_ACCEPT="application/json"
        )
        assert response.status_code == expect, (url, response.content[:300])
        self.texts.append((url, response.content.decode()))
        return response.json()

    def fetch_media(self):
        for url in sorted(set(self.media)):
            self.get(url)

    def assert_none_of(self, forbidden):
        for url, text in self.texts:
            lowered = text.lower()
            for word in forbidden:
                assert word.lower() not in lowered, f"{word!r} reached through {url}"


def _crawl_item(crawl: Crawl, world, reviewer, *, comment=""):
    """Home, audit home, claim, item page, state, submit phase 1; returns (token urls, states)."""
    crawl.get("/")
    campaign_page = reverse("campaigns:next", args=[world.campaign.pk])
    crawl.get(campaign_page)
    item_url = crawl.client.post(campaign_page)["Location"]
    assert re.fullmatch(r"/audit/i/[A-Za-z0-9_-]{43}/", item_url)
    token = item_url.split("/")[3]
    crawl.get(item_url)
    crawl.get(reverse("audit:item-state", args=[token]))
    render_pending()
    _, before_ready = crawl.get(reverse("audit:item-state", args=[token]))
    state = json.loads(before_ready)
    assert state["phase"] == "phase1" and "context" not in state
    assert state["observation"]["clip"]["status"] == "ready"
    # Phase-2 fields are not in anything served before phase 1 is submitted.
    crawl.fetch_media()
    from review.campaigns.models import Assignment

    step = Assignment.objects.get(token=token).item.sample.release_step
    for url, text in crawl.texts:
        for phase2 in [step.next_step, *step.plausible_next_steps]:
            assert phase2 not in text, f"phase-2 text {phase2!r} before phase 1 in {url}"
    assert not Exposure.objects.filter(person=reviewer, part="phase2").exists()
    payload = answers(
        "phase1", C1={"label": "invalid", "comment": comment, "error_types": ["multi_goal_step"]}
    )
    after = crawl.post_json(
        reverse("audit:item-submit", args=[token]), {"part": "phase1", "payload": payload}, 201
    )
    assert after["phase"] == "phase2" and after["context"]["next_step"]
    # Phase 1 stays locked, through the generic campaign API too.
    crawl.post_json(reverse("review:assignment-supersede", args=[token]),
                    {"part": "phase1", "payload": answers("phase1")}, 400)  # fmt: skip
    render_pending()
    crawl.get(reverse("audit:item-state", args=[token]))
    crawl.get(reverse("review:assignment", args=[token]))
    crawl.fetch_media()
    return token


def test_a_crawl_as_each_reviewer_finds_nothing_they_must_not_see(world, reviewers, settings):
    forbidden = [*world.secrets, OTHERS_COMMENT, "judgement", "prediction", "score"]
    first = Crawl(client_for(reviewers[0]))
    _crawl_item(first, world, reviewers[0], comment=OTHERS_COMMENT)
    first.assert_none_of([w for w in forbidden if w != OTHERS_COMMENT])
    for reviewer in reviewers[1:]:
        crawl = Crawl(client_for(reviewer))
        token = _crawl_item(crawl, world, reviewer)
        crawl.assert_none_of([*forbidden, reviewers[0].username])
        # Another reviewer's token is a 404, whichever page or API it names.
        own = reverse("audit:item-state", args=[token])
        assert crawl.client.get(own).status_code == 200
    # Media bytes were fetched too: a clip holds no file name or hash in its metadata.
    assert len(first.media) >= 2
    exposures = Exposure.objects.filter(person=reviewers[0]).order_by("id")
    assert [e.part for e in exposures][:1] == ["phase1"]
    assert "next_step" in exposures.filter(part="phase2").first().fields
    assert all("next_step" not in e.fields for e in exposures.filter(part="phase1"))


def test_nobody_else_reaches_an_assignment_and_roles_are_checked(
    world, reviewers, rater, adjudicator, annotator, admin_user
):
    owner = client_for(reviewers[0])
    item_url = owner.post(reverse("campaigns:next", args=[world.campaign.pk]))["Location"]
    token = item_url.split("/")[3]
    urls = [item_url, reverse("audit:item-state", args=[token])]
    for user in (reviewers[1], rater, adjudicator, annotator, admin_user):
        client = client_for(user)
        for url in urls:
            assert client.get(url).status_code == 404, (user.username, url)
        response = client.post(
            reverse("audit:item-submit", args=[token]), "{}", content_type="application/json"
        )
        assert response.status_code == 404
    # Reviewers and annotators do not reach the adjudication, report or corrections pages.
    item = world.campaign.items.first()
    staff = [
        reverse("audit:queue"),
        reverse("audit:adjudicate", args=[world.campaign.pk, item.pk]),
        reverse("audit:reports"),
        reverse("audit:report", args=[world.campaign.pk]),
        reverse("audit:corrections", args=[world.campaign.pk]),
    ]
    for user in (reviewers[0], rater, annotator):
        client = client_for(user)
        for url in staff:
            assert client.get(url).status_code == 404, (user.username, url)
    adj = client_for(adjudicator)
    assert adj.get(staff[0]).status_code == 200 and adj.get(staff[1]).status_code == 200
    assert adj.get(staff[3]).status_code == 404  # reports are for admins
    boss = client_for(admin_user)
    for url in staff:
        assert boss.get(url).status_code == 200, url
    assert boss.get(staff[3] + "?format=json").json()["campaign"] == world.campaign.name
    # Anonymous users are sent to log in.
    assert Client().get(item_url).status_code == 302


def test_the_adjudication_page_names_reviewers_by_letter_only(world, reviewers, adjudicator):
    from review.audit.imports import decisions_load

    step = world.steps[0]
    lines = [
        {
            "kind": "decision",
            "reviewer": r.username,
            "step": str(step.uid),
            "criterion": "C7",
            "label": label,
            "comment": f"note {label}",
        }
        for r, label in zip(reviewers, ["valid", "invalid", "uncertain"], strict=True)
    ]
    decisions_load(campaign=world.campaign, lines=lines)
    item = world.campaign.items.get(sample__sample_id=step.uid)
    client = client_for(adjudicator)
    queue = client.get(reverse("audit:queue")).content.decode()
    assert reverse("audit:adjudicate", args=[world.campaign.pk, item.pk]) in queue
    page = client.get(reverse("audit:adjudicate", args=[world.campaign.pk, item.pk]))
    text = page.content.decode()
    assert "Reviewer A" in text and "Reviewer C" in text and "note uncertain" in text
    for reviewer in reviewers:
        assert reviewer.username not in text.replace(adjudicator.username, "")
    assert world.annotator.username not in text.replace(adjudicator.username, "")
    response = client.post(
        reverse("audit:adjudicate", args=[world.campaign.pk, item.pk]), {"label-C7": "valid"}
    )
    assert response.status_code == 302
    assert item.adjudications.get().label == "valid"
