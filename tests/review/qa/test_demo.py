"""After ``seed_demo`` the demo auditor has QA groups waiting, the admin sees the QA groups and
their report, and every demo QA group is a valid record of the demo video."""

import uuid

import pytest
from django.core.management import call_command
from django.test import Client

from review.campaigns.models import Campaign
from review.qa.models import QaGroupSet


@pytest.mark.django_db
def test_the_demo_opens_a_qa_review_for_the_auditor(settings, tmp_path):

    from tests.scoring.conftest import start_stand_in, stop_stand_in

    settings.VAR_DIR = tmp_path  # the demo writes the stand-in's scripted answers there
    # A stand-in of this test's own (the seed scripts it), on a port no other test shares.
    stand_in = start_stand_in()
    settings.STAND_IN_PROVIDER_PORT = int(stand_in.url.rsplit(":", 1)[1])
    try:
        _seed_and_check(settings)
    finally:
        stop_stand_in(stand_in)


def _seed_and_check(settings):
    from django.contrib.auth import get_user_model

    settings.STUDIO_DEMO_PASSWORD = "demo-pass-for-tests"
    call_command("seed_demo", stdout=None)
    group_set = QaGroupSet.objects.get(name="demo_qa_v1")
    # Five groups on the first demo video (it has sound): one about its clicks, a predictive one.
    assert group_set.is_frozen and group_set.sample_count == 5
    assert group_set.groups.filter(structure="chain", turn_count=3).exists()
    assert group_set.groups.filter(modality="auditory").exists()
    from review.qa.models import QaTurn

    assert QaTurn.objects.filter(group__group_set=group_set, cutoff_us__isnull=False).count() == 1
    # The seed ran the stand-ins on the set under the four media choices, judged and audited
    # them: scripted, the Edge group is a language shortcut and the Chain group redundant.
    from scoring.models import QaAudit, Run
    from scoring.qa.demo import DEMO_AUDIT

    audit = QaAudit.objects.get(name=DEMO_AUDIT)
    assert Run.objects.filter(kind="qa_prediction", name__startswith="demo-qa-").count() == 8
    assert Run.objects.filter(kind="qa", name__startswith="demo-qa-").count() == 8
    assert sorted(audit.result["conditions"]) == ["audio_only", "full", "text_only", "visual_only"]
    structure = dict(group_set.groups.values_list("uid", "structure"))
    flagged = {
        structure[uuid.UUID(r["group"])]: r["flags"] for r in audit.result["groups"] if r["flags"]
    }
    # (the stand-in's own picks, by hash, may make other groups flagged too: they are not
    # scripted, so only the scripted two are asserted)
    assert flagged["edge"] == ["language_shortcut"]
    assert flagged["chain"] == ["redundant_modality"]
    assert (settings.VAR_DIR / "stand-in-rules.json").is_file()
    campaign = Campaign.objects.get(name="demo-qa-review")
    users = get_user_model().objects
    client = Client()
    client.force_login(users.get(username="demo-auditor"))
    home = client.get("/").content.decode()
    page = f"/review/campaigns/{campaign.pk}/"
    assert f'href="{page}"' in home
    item = client.post(page)["Location"]
    assert item.startswith("/qa/i/")
    state = client.get(item + "state").json()
    assert state["turns"] and state["clip"]["status"] in ("preparing", "ready")
    client.force_login(users.get(username="demo-admin"))
    home = client.get("/").content.decode()
    assert "QA groups" in home and "QA review reports" in home
    assert client.get(f"/qa-reports/{campaign.pk}/").status_code == 200
    assert client.get(f"/qa-audits/{audit.pk}/").status_code == 200
