"""The run pages: admins see runs, items, predictions, judgements and attempts; the progress
fragment; starting, cancelling and resuming; exports. Nobody else reaches any of it."""

import json

import pytest
from django.urls import reverse

from scoring.judges import judge_start
from scoring.models import Endpoint, Run
from scoring.runs import run_drive, run_predict

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged(frozen_release, make_endpoint, packages, stand_in):
    endpoint = make_endpoint()
    run = run_predict(
        name="p",
        endpoint=endpoint,
        package=packages("frames-prediction"),
        condition="prompt_only",
        release=frozen_release,
    )
    run_drive(run_id=run.pk)
    judge = judge_start(
        name="j",
        kind="reference",
        endpoint=endpoint,
        package=packages("reference-judge"),
        runs=[run],
    )
    run_drive(run_id=judge.pk)
    return run, judge


def test_admin_reads_runs_items_and_judgements(client, admin_user, judged):
    run, judge = judged
    client.force_login(admin_user)
    listing = client.get(reverse("scoring:run-list")).content.decode()
    assert "p" in listing and "j" in listing and "stand-in" in listing
    page = client.get(reverse("scoring:run-detail", args=[run.pk])).content.decode()
    item = run.items.first()
    assert item.prediction["local_intent"] in page
    assert "Judge this run" in page
    judge_page = client.get(reverse("scoring:run-detail", args=[judge.pk])).content.decode()
    assert "Micro means" in judge_page and "C01" in judge_page
    detail = client.get(reverse("scoring:item-detail", args=[run.pk, item.pk])).content.decode()
    assert (
        item.prediction["next_step"] in detail and "Attempts" in detail and item.cache_key in detail
    )
    fragment = client.get(reverse("scoring:run-progress", args=[run.pk]))
    assert fragment.status_code == 200 and b'id="run-progress"' in fragment.content
    export = client.get(reverse("scoring:run-export", args=[judge.pk]))
    lines = [json.loads(x) for x in b"".join(export.streaming_content).splitlines()]
    assert len(lines) == 3 and lines[0]["subject"]["run"] == "p"


def test_admin_starts_a_run_and_a_judge_from_the_pages(
    client, admin_user, frozen_release, make_endpoint, packages
):
    endpoint = make_endpoint()
    client.force_login(admin_user)
    response = client.post(
        reverse("scoring:run-list"),
        {
            "name": "from-page",
            "release": frozen_release.pk,
            "condition": "prompt_only",
            "endpoint": endpoint.pk,
            "package": packages("frames-prediction").pk,
        },
    )
    run = Run.objects.get(name="from-page")
    assert response.status_code == 302 and run.items.count() == 3
    run_drive(run_id=run.pk)
    response = client.post(
        reverse("scoring:run-judge", args=[run.pk]),
        {
            "name": "page-judge",
            "kind": "reference",
            "endpoint": endpoint.pk,
            "package": packages("reference-judge").pk,
            "unit": "step",
        },
    )
    judge = Run.objects.get(name="page-judge")
    assert judge.options["unit"] == "step" and judge.items.count() == 3


def test_a_bad_start_shows_the_reason_and_writes_nothing(
    client, admin_user, frozen_release, make_endpoint, packages
):
    client.force_login(admin_user)
    response = client.post(
        reverse("scoring:run-list"),
        {
            "name": "x",
            "condition": "prompt_only",
            "endpoint": make_endpoint().pk,
            "package": packages("frames-prediction").pk,
        },
    )
    assert response.status_code == 200 and b"Choose a release or a manifest" in response.content
    assert not Run.objects.exists()


def test_cancel_and_resume(client, admin_user, frozen_release, make_endpoint, packages, stand_in):
    run = run_predict(
        name="c",
        endpoint=make_endpoint(),
        package=packages("frames-prediction"),
        condition="prompt_only",
        release=frozen_release,
    )
    client.force_login(admin_user)
    client.post(reverse("scoring:run-action", args=[run.pk, "cancel"]))
    run.refresh_from_db()
    assert run.status == "cancelled"
    assert run_drive(run_id=run.pk) == 0 and stand_in.stats()["requests"] == 0
    client.post(reverse("scoring:run-action", args=[run.pk, "resume"]))
    run.refresh_from_db()
    assert run.status == "running"
    run_drive(run_id=run.pk)
    assert set(run.items.values_list("outcome", flat=True)) == {"ok"}


@pytest.mark.parametrize("role", ["annotator", "rater", "auditor", "adjudicator"])
def test_nobody_but_admins_reaches_a_run(client, request, judged, role):
    run, judge = judged
    client.force_login(request.getfixturevalue(role))
    item = run.items.first()
    for url in (
        reverse("scoring:run-list"),
        reverse("scoring:run-detail", args=[run.pk]),
        reverse("scoring:run-progress", args=[run.pk]),
        reverse("scoring:item-detail", args=[run.pk, item.pk]),
        reverse("scoring:run-export", args=[judge.pk]),
    ):
        assert client.get(url).status_code == 404, url
    assert client.post(reverse("scoring:run-action", args=[run.pk, "cancel"])).status_code == 404


def test_the_admin_endpoint_form_refuses_a_metadata_address(client, admin_user):
    client.force_login(admin_user)
    response = client.post(
        reverse("admin:scoring_endpoint_add"),
        {
            "name": "meta",
            "base_url": "http://169.254.169.254/v1",
            "model": "m",
            "media": "frames",
            "frames": 16,
            "max_concurrency": 4,
            "timeout_seconds": 60,
        },
    )
    assert response.status_code == 200 and b"link-local" in response.content
    assert not Endpoint.objects.exists()


def test_the_home_page_counts_runs_in_progress(
    client, admin_user, frozen_release, make_endpoint, packages
):
    run_predict(
        name="h",
        endpoint=make_endpoint(),
        package=packages("frames-prediction"),
        condition="prompt_only",
        release=frozen_release,
    )
    client.force_login(admin_user)
    page = client.get("/").content.decode()
    assert "Model runs" in page and "run in progress" in page
