"""After ``seed_demo`` the demo auditor has audit items waiting on the home page and the demo
adjudicator has a queue."""

import pytest
from django.core.management import call_command
from django.test import Client

from review.audit.decisions import adjudication_queue
from review.campaigns.models import Campaign


@pytest.mark.django_db
def test_the_demo_gives_the_auditor_items_and_the_adjudicator_a_queue(settings):
    from django.contrib.auth import get_user_model

    settings.STUDIO_DEMO_PASSWORD = "demo-pass-for-tests"
    call_command("seed_demo", stdout=None)
    campaign = Campaign.objects.get(name="demo-audit")
    assert campaign.people.count() == 3 and campaign.per_item == 3
    assert [w for _, w in adjudication_queue(campaign)] == [["C7"]]
    users = get_user_model().objects
    auditor, adjudicator = (
        users.get(username="demo-auditor"),
        users.get(username="demo-adjudicator"),
    )
    client = Client()
    client.force_login(auditor)
    home = client.get("/").content.decode()
    campaign_page = f"/review/campaigns/{campaign.pk}/"
    assert "items waiting" in home and f'href="{campaign_page}"' in home
    assert client.post(campaign_page)["Location"].startswith("/audit/i/")
    client.force_login(adjudicator)
    home = client.get("/").content.decode()
    # the demo's one disagreement, counted in the right form (ngettext)
    assert "<strong data-count>1</strong> criterion to adjudicate" in home
    assert "Adjudicate" in client.get("/audit/adjudicate/").content.decode()
