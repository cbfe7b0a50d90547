"""After ``seed_demo`` the demo auditor has boundary steps waiting on the home page, the demo
adjudicator has windows to decide and the admin a boundary report."""

import pytest
from django.core.management import call_command
from django.test import Client

from review.audit.decisions import adjudication_queue
from review.boundary.kind import SCHEME
from review.campaigns.models import Campaign


@pytest.mark.django_db
def test_the_demo_gives_every_boundary_role_work(settings):
    from django.contrib.auth import get_user_model

    settings.STUDIO_DEMO_PASSWORD = "demo-pass-for-tests"
    call_command("seed_demo", stdout=None)
    campaign = Campaign.objects.get(name="demo-boundary")
    assert campaign.kind == "boundary" and campaign.manifest.kind == "diagnostic"
    assert campaign.people.count() == 3 and campaign.per_item == 3
    assert [w for _, w in adjudication_queue(campaign, SCHEME)] == [["early"]]
    users = get_user_model().objects
    client = Client()
    client.force_login(users.get(username="demo-auditor"))
    home = client.get("/").content.decode()
    page = f"/review/campaigns/{campaign.pk}/"
    assert f'href="{page}"' in home and "Boundary audit" in home
    assert client.post(page)["Location"].startswith("/boundary/i/")
    client.force_login(users.get(username="demo-adjudicator"))
    home = client.get("/").content.decode()
    assert "<strong data-count>1</strong> window to adjudicate" in home
    assert "Adjudicate" in client.get("/boundary/adjudicate/").content.decode()
    client.force_login(users.get(username="demo-admin"))
    assert "Boundary audit reports" in client.get("/").content.decode()
    report = client.get(f"/boundary/campaigns/{campaign.pk}/report/?format=json").json()
    assert report["sets"]["audited"] == campaign.items.count()
