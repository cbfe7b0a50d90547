"""The run pages: admins see runs, items, predictions, judgements and attempts; the progress
fragment; starting, cancelling and resuming; exports. Nobody else reaches any of it."""

import json
import re

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


def test_run_items_are_named_by_their_step_and_stretch(client, admin_user, judged):
    """An admin reads "Step 2 of v.mp4 (0:03.000 to 0:06.000, an en dash between)", not the
    sample uid; a judge's item also names the run it judged; outcomes and conditions by their
    labels."""
    run, judge = judged
    client.force_login(admin_user)
    page = client.get(reverse("scoring:run-detail", args=[run.pk])).content.decode()
    step = run.items.order_by("position").first()
    assert str(step.sample_id) not in page.split("Provenance")[0]
    rows = re.findall(r'<a href="/runs/\d+/items/\d+/">([^<]+)</a>', page)
    assert len(rows) == 3 and all(
        re.fullmatch(r"Step \d of .+ \(\d:\d\d\.\d{3}\u2013\d:\d\d\.\d{3}\)", r) for r in rows
    )
    assert "<dd>Prompt only</dd>" in page and ">parse failure</a>" in page
    judge_page = client.get(reverse("scoring:run-detail", args=[judge.pk])).content.decode()
    judged_rows = re.findall(r'<a href="/runs/\d+/items/\d+/">([^<]+)</a>', judge_page)
    assert judged_rows and all(r.endswith(" · p") for r in judged_rows)
    assert "Candidate C01" in judge_page and "Local intent " in judge_page
    item = run.items.first()
    detail = client.get(reverse("scoring:item-detail", args=[run.pk, item.pk])).content.decode()
    assert "<h1>Step " in detail and f"<code>{item.key}</code>" in detail  # the key, on demand


def test_a_finished_runs_rate_is_its_average_and_stays(judged, monkeypatch):
    """While a run runs its rate is the last minute's; once it finished, its average from
    creation to its last item, which no longer falls as time passes."""
    from datetime import timedelta

    from scoring.runs.progress import run_progress
    from studio import services as studio_services

    run, _ = judged
    run.refresh_from_db()
    assert run.status == "finished"
    first = run_progress(run)
    assert first["rate_over"] == "average" and first["items_per_second"] > 0
    later = studio_services.now() + timedelta(hours=5)
    monkeypatch.setattr(studio_services, "now", lambda: later)
    assert run_progress(run)["items_per_second"] == first["items_per_second"]
    run.status = "running"
    assert run_progress(run)["rate_over"] == "recent"
    assert run_progress(run)["items_per_second"] == 0  # nothing finished in the last minute
