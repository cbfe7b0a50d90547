"""The generic campaign API: a participant works through an opaque token only; nobody reaches
another person's assignment or a campaign they are not in; bad input writes nothing."""

from __future__ import annotations

import json

import pytest

from review.campaigns.models import Assignment, Submission
from review.campaigns.services import campaign_create

API = "/api/review"


@pytest.fixture
def campaign(trivial_kind, manifest10, reviewers):
    people = reviewers(3)
    return campaign_create(name="api", kind="trivial", manifest=manifest10, people=people)


def _as(client, user):
    client.force_login(user)
    return client


def _post(client, url, data=None):
    return client.post(url, json.dumps(data or {}), content_type="application/json")


def test_a_participant_claims_drafts_and_submits_by_token(client, campaign):
    person = campaign.people.order_by("username").first()
    _as(client, person)
    claimed = _post(client, f"{API}/campaigns/{campaign.pk}/claim/")
    assert claimed.status_code == 200
    body = claimed.json()
    token = body["token"]
    assert set(body) == {"token", "state", "parts", "parts_done", "next_part", "expires_at", "url"}
    assert body["url"] == f"/trivial/{token}/"
    assignment = Assignment.objects.get(token=token)
    text = claimed.content.decode()
    sample = assignment.item.sample
    for hidden in (str(sample.sample_id), sample.release_step.video_sha256):
        assert hidden not in text
    draft = client.put(
        f"{API}/assignments/{token}/draft/",
        json.dumps({"part": "", "payload": {"answer": "n"}}),
        content_type="application/json",
    )
    assert draft.status_code == 200 and draft.json()["lease_held"]
    assert client.get(f"{API}/assignments/{token}/").json()["draft"] == {"": {"answer": "n"}}
    bad = _post(client, f"{API}/assignments/{token}/submit/", {"part": "", "payload": {"a": 1}})
    assert bad.status_code == 400 and not Submission.objects.exists()
    ok = _post(
        client, f"{API}/assignments/{token}/submit/", {"part": "", "payload": {"answer": "yes"}}
    )
    assert ok.status_code == 201 and ok.json()["state"] == "done"
    again = _post(client, f"{API}/assignments/{token}/supersede/", {"payload": {"answer": "no"}})
    assert again.status_code == 201
    assert Submission.objects.filter(assignment=assignment).count() == 2
    late = _post(client, f"{API}/assignments/{token}/submit/", {"payload": {"answer": "no"}})
    assert late.status_code == 409  # done: no lease any more; supersede instead


def test_nobody_reaches_another_persons_assignment(client, campaign, reviewers):
    a, b, _ = campaign.people.order_by("username")
    _as(client, a)
    token = _post(client, f"{API}/campaigns/{campaign.pk}/claim/").json()["token"]
    _as(client, b)
    for method, path in (
        ("get", ""), ("post", "renew/"), ("post", "release/"), ("post", "submit/"),
        ("post", "supersede/"), ("put", "draft/"),
    ):  # fmt: skip
        url = f"{API}/assignments/{token}/{path}"
        data = json.dumps({"part": "", "payload": {"answer": "yes"}})
        if method == "get":
            r = client.get(url)
        else:
            r = getattr(client, method)(url, data, content_type="application/json")
        assert r.status_code == 404, (method, path, r.status_code)
    outsider = reviewers(1, prefix="outsider")[0]
    _as(client, outsider)
    assert _post(client, f"{API}/campaigns/{campaign.pk}/claim/").status_code == 404
    assert client.get(f"{API}/campaigns/{campaign.pk}/progress/").status_code == 403
    assert Assignment.objects.get(token=token).state == "leased"


def test_admins_read_progress(admin_client, campaign):
    r = admin_client.get(f"{API}/campaigns/{campaign.pk}/progress/")
    assert r.status_code == 200
    assert (r.json()["items"], r.json()["needed"]) == (10, 30)


def test_nothing_left_answers_none(client, trivial_kind, make_manifest, reviewers):
    people = reviewers(1)
    c = campaign_create(
        name="one", kind="trivial", manifest=make_manifest(1, "m1"), people=people, per_item=1
    )
    _as(client, people[0])
    token = _post(client, f"{API}/campaigns/{c.pk}/claim/").json()["token"]
    _post(client, f"{API}/assignments/{token}/submit/", {"payload": {"answer": "yes"}})
    assert _post(client, f"{API}/campaigns/{c.pk}/claim/").json() == {
        "token": None,
        "state": "none",
        "later": 0,
    }
