"""Campaign pages: admins create, follow and close campaigns; a participant opens their next
item through the campaign page; nobody else reaches either."""

from __future__ import annotations

import pytest

from review.campaigns.models import Assignment, Campaign
from review.campaigns.services import campaign_create
from studio.home import home_cards_for

XSS = "<script>alert('x')</script><img src=x onerror=\"alert('y')\">"


@pytest.fixture
def campaign(trivial_kind, manifest10, reviewers, auditor):
    people = [*reviewers(2), auditor]
    return campaign_create(
        name="pages", kind="trivial", manifest=manifest10, people=people, instructions=XSS
    )


def test_admin_creates_a_campaign_in_the_page(admin_client, trivial_kind, manifest10, reviewers):
    people = reviewers(3)
    page = admin_client.get("/admin/review/campaign/create/")
    assert page.status_code == 200 and "trivial" in page.content.decode()
    form = {
        "name": "from_page", "kind": "trivial", "manifest": manifest10.pk,
        "people": [p.pk for p in people], "per_item": 2, "seed": 7, "instructions": "Look well",
    }  # fmt: skip
    created = admin_client.post("/admin/review/campaign/create/", form)
    campaign = Campaign.objects.get(name="from_page")
    assert created.status_code == 302
    assert created["Location"] == f"/admin/review/campaign/{campaign.pk}/progress/"
    assert (campaign.per_item, campaign.seed, campaign.items.count()) == (2, 7, 10)
    # Bad input: the form says why and nothing is written.
    bad = admin_client.post("/admin/review/campaign/create/", {**form, "name": "x2", "per_item": 9})
    assert bad.status_code == 200 and "only 3 take part" in bad.content.decode()
    assert not Campaign.objects.filter(name="x2").exists()


def test_admin_follows_progress_and_closes(admin_client, campaign):
    page = admin_client.get(f"/admin/review/campaign/{campaign.pk}/progress/")
    text = page.content.decode()
    assert page.status_code == 200 and "campaign_progress.js" in text
    assert XSS not in text and "&lt;script&gt;" in text
    fragment = admin_client.get(f"/admin/review/campaign/{campaign.pk}/progress/fragment/")
    assert "0</strong> of 30 judgements" in fragment.content.decode()
    assert admin_client.get("/admin/review/campaign/").status_code == 200
    closed = admin_client.post(f"/admin/review/campaign/{campaign.pk}/close/")
    assert closed.status_code == 302
    campaign.refresh_from_db()
    assert campaign.state == "closed"


def test_only_admins_reach_the_campaign_admin(client, campaign, auditor):
    client.force_login(auditor)
    for url in (
        "/admin/review/campaign/",
        "/admin/review/campaign/create/",
        f"/admin/review/campaign/{campaign.pk}/progress/",
        f"/admin/review/campaign/{campaign.pk}/progress/fragment/",
        "/admin/review/assignment/",
    ):
        r = client.get(url)
        assert r.status_code in (302, 403), url
        assert "pages" not in r.content.decode()
    r = client.post(f"/admin/review/campaign/{campaign.pk}/close/")
    assert r.status_code in (302, 403)
    campaign.refresh_from_db()
    assert campaign.state == "open"


def test_a_participant_starts_their_next_item(client, campaign, auditor):
    client.force_login(auditor)
    page = client.get(f"/review/campaigns/{campaign.pk}/")
    text = page.content.decode()
    assert page.status_code == 200 and "Start my next item" in text
    assert XSS not in text and "&lt;script&gt;" in text
    started = client.post(f"/review/campaigns/{campaign.pk}/")
    assignment = Assignment.objects.get(person=auditor)
    assert started.status_code == 302 and started["Location"] == f"/trivial/{assignment.token}/"
    assert "Continue my item" in client.get(f"/review/campaigns/{campaign.pk}/").content.decode()


def test_outsiders_do_not_reach_a_campaign_page(client, campaign, rater):
    client.force_login(rater)
    assert client.get(f"/review/campaigns/{campaign.pk}/").status_code == 404
    assert client.post(f"/review/campaigns/{campaign.pk}/").status_code == 404
    assert not Assignment.objects.exists()


def test_participants_get_a_home_card(campaign, auditor, rater):
    cards = [c for c in home_cards_for(auditor) if c.title == "pages"]
    assert len(cards) == 1 and cards[0].role == "auditor" and cards[0].count == 10
    assert cards[0].url == f"/review/campaigns/{campaign.pk}/"
    assert not [c for c in home_cards_for(rater) if c.title == "pages"]
