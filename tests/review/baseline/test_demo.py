"""After ``seed_demo`` the demo rater has baseline items waiting on the home page, and the admin
can open the report."""

import json

import pytest
from django.core.management import call_command
from django.test import Client

from review.campaigns.models import Campaign


@pytest.mark.django_db
def test_the_demo_gives_the_rater_baseline_items_and_the_admin_a_report(settings, capsys):
    from django.contrib.auth import get_user_model

    settings.STUDIO_DEMO_PASSWORD = "demo-pass-for-tests"
    call_command("seed_demo", stdout=None)
    campaign = Campaign.objects.get(name="demo-baseline")
    assert campaign.kind == "human_baseline" and campaign.people.count() == 3
    users = get_user_model().objects
    client = Client()
    client.force_login(users.get(username="demo-rater"))
    home = client.get("/").content.decode()
    page = f"/review/campaigns/{campaign.pk}/"
    assert "items waiting" in home and f'href="{page}"' in home
    assert client.post(page)["Location"].startswith("/baseline/i/")
    client.force_login(users.get(username="demo-admin"))
    assert "Human baselines" in client.get("/").content.decode()
    capsys.readouterr()
    call_command("baseline_report", "demo-baseline", "--similarity", "lexical",
                 "--replicates", "200")  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    items = report["items"]
    assert report["responses"] == 2 * items - 1 and report["broken"]["responses"] == 1
    assert report["models"] == [] or report["models"][0]["model"] == "demo-official-stand-in"
    assert report["judge"]["run"] == "demo-baseline-judge"
    from scoring.models import Judgement

    judged = Judgement.objects.filter(run__name="demo-baseline-judge").count()
    assert judged == report["responses"] - report["judge"]["not_judged"].get("unanswerable", 0)
