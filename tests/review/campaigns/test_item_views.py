"""The one item mechanism of every kind (review/campaigns/item_views.py): each kind's item URLs
open only its own kind's assignments (a token of another kind is a 404 and writes nothing), and
the JSON helpers say what is wrong with a body."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.test import RequestFactory
from django.urls import reverse

from review.audit.kind import KIND as AUDIT
from review.baseline.kind import KIND as BASELINE
from review.boundary.kind import KIND as BOUNDARY
from review.campaigns.item_views import ItemPages, body_of, errors_of, json_response
from review.campaigns.models import Assignment, Campaign, CampaignItem, Submission
from review.judgeval.kind import KIND as JUDGEVAL
from review.qa.kind import KIND as QA
from studio.services import now

NAMESPACES = {AUDIT: "audit", BASELINE: "baseline", BOUNDARY: "boundary", JUDGEVAL: "judgeval",
              QA: "qa"}  # fmt: skip
GETS = ("item", "item-state")
POSTS = ("item-draft", "item-submit", "item-renew")


@pytest.fixture
def tokens(manifest10, auditor):
    """One leased assignment of ``auditor`` in a campaign of every kind (rows made directly: the
    kinds' own worlds are not needed to reach, or be refused, a page)."""
    sample = manifest10.samples.first()
    found = {}
    for kind in NAMESPACES:
        campaign = Campaign.objects.create(
            name=f"cross_{kind}", kind=kind, manifest=manifest10, per_item=1, seed=1
        )
        item = CampaignItem.objects.create(campaign=campaign, sample=sample)
        assignment = Assignment.objects.create(
            campaign=campaign,
            item=item,
            person=auditor,
            token=f"tok{kind.replace('_', '')}".ljust(32, "x"),
            lease_expires_at=now() + timedelta(minutes=5),
        )
        found[kind] = assignment.token
    return found


def test_every_kinds_item_urls_are_a_404_for_another_kinds_token(client, auditor, tokens):
    client.force_login(auditor)
    for kind, token in tokens.items():
        for other, namespace in NAMESPACES.items():
            for name in GETS + POSTS:
                url = reverse(f"{namespace}:{name}", args=[token])
                if name in GETS:
                    response = client.get(url)
                else:
                    body = {"part": "", "payload": {"answer": "x"}}
                    response = client.post(url, body, content_type="application/json")
                where = f"{kind} token on {namespace}:{name}"
                if other != kind:
                    assert response.status_code == 404, where
                elif name == "item":
                    # Its own kind's page opens (the state needs the kind's world: its tests).
                    assert response.status_code == 200, where
                    assert f"/{namespace}/i/{token}/state" in response.content.decode(), where
    assert not Submission.objects.exists()
    assert not Assignment.objects.exclude(draft={}).exists()


def test_another_users_token_is_a_404_on_every_item_url(client, tokens, rater):
    client.force_login(rater)
    for kind, token in tokens.items():
        namespace = NAMESPACES[kind]
        for name in GETS:
            assert client.get(reverse(f"{namespace}:{name}", args=[token])).status_code == 404
        for name in POSTS:
            url = reverse(f"{namespace}:{name}", args=[token])
            assert client.post(url, {}, content_type="application/json").status_code == 404


def test_the_part_is_the_kinds_fixed_part_or_the_bodys():
    fixed = ItemPages(kind="k", namespace="k", template="t.html", state=dict, part="response")
    free = ItemPages(kind="k", namespace="k", template="t.html", state=dict)
    assert fixed.part_of({"part": "phase2"}) == "response"
    assert free.part_of({"part": "phase2"}) == "phase2"
    assert free.part_of({}) == ""


def test_a_body_that_is_not_a_json_object_is_refused_with_the_reason():
    factory = RequestFactory()
    for raw, message in ((b"{nope", "The body is not JSON."), (b"[1, 2]", "Send a JSON object."),
                         (b"\xff", "The body is not JSON.")):  # fmt: skip
        request = factory.post("/", raw, content_type="application/json")
        with pytest.raises(ValidationError) as caught:
            body_of(request)
        assert errors_of(caught.value) == {"detail": [message]}
    assert body_of(factory.post("/", b"", content_type="application/json")) == {}
    assert body_of(factory.post("/", b'{"a": 1}', content_type="application/json")) == {"a": 1}


def test_errors_name_their_fields_and_answers_are_never_cached():
    assert errors_of(ValidationError({"C1": ["Choose one.", "Too long."]})) == {
        "C1": ["Choose one.", "Too long."]
    }
    assert errors_of(ValidationError("Broken.")) == {"detail": ["Broken."]}
    response = json_response({"text": "é"}, status=409)
    assert response.status_code == 409
    assert response["Cache-Control"] == "private, no-store"
    assert response.content.decode() == '{"text": "é"}'
