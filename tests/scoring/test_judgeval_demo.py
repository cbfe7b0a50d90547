"""After ``seed_demo`` the demo rater has judge-validation items waiting on the home page, the
page opens, and the admin reaches the report."""

import pytest
from django.core.management import call_command
from django.test import Client

from review.campaigns.models import Campaign, Exclusion


@pytest.mark.django_db
def test_the_demo_gives_the_rater_triplets_to_rate(settings):
    from django.contrib.auth import get_user_model

    settings.STUDIO_DEMO_PASSWORD = "demo-pass-for-tests"
    call_command("seed_demo", stdout=None)
    campaign = Campaign.objects.get(name="demo-judge-validation")
    assert campaign.people.count() == 3 and campaign.per_item == 3
    # The demo rater answers the human baseline blind too: the two campaigns share no step, so
    # the exposure rule has nothing to keep apart (no exclusion, every rating item claimable).
    baseline = Campaign.objects.get(name="demo-baseline")
    assert campaign.people.filter(pk__in=baseline.people.all()).count() == 1

    def steps(c):
        return set(c.manifest.samples.values_list("sample_id", flat=True))

    assert steps(campaign) and not steps(campaign) & steps(baseline)
    assert not Exclusion.objects.filter(campaign__in=[campaign, baseline]).exists()
    assert campaign.manifest.kind == "judge_validation" and campaign.manifest.sample_count >= 2
    users = get_user_model().objects
    client = Client()
    client.force_login(users.get(username="demo-rater"))
    home = client.get("/").content.decode()
    page = f"/review/campaigns/{campaign.pk}/"
    assert f'href="{page}"' in home
    location = client.post(page)["Location"]
    assert location.startswith("/judgeval/i/")
    assert client.get(location).status_code == 200
    assert client.get(location + "state").json()["prediction"]["local"]
    client.force_login(users.get(username="demo-admin"))
    report = client.get(f"/judge-validation/{campaign.pk}/?format=json").json()
    assert report["incomplete_triplets"] == 2 * campaign.manifest.sample_count
