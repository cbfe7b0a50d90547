"""The study pages: admins create, start and follow a study and read its report and downloads;
nobody else reaches any of it (404)."""

import json

import pytest
from django.urls import reverse

from scoring.models import Study
from tests.scoring.studies import create_study, finish_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def done(study_release, models, make_endpoint, packages, stand_in):
    study = create_study(study_release, models, make_endpoint, packages)
    finish_study(study)
    return study


def test_admin_reads_the_study_its_progress_and_its_report(client, admin_user, done):
    client.force_login(admin_user)
    page = client.get(reverse("scoring:study-detail", args=[done.pk])).content.decode()
    assert "Study st" in page and "complete" in page and "st.scene_only.model-a" in page
    fragment = client.get(reverse("scoring:study-progress", args=[done.pk])).content.decode()
    assert 'id="run-progress"' in fragment and "data-poll" not in fragment
    report = client.get(reverse("scoring:study-report", args=[done.pk])).content.decode()
    assert "scene prior" in report and "Exclusions" in report and "By step duration" in report
    assert done.release.manifest_sha256 in report
    listing = client.get(reverse("scoring:study-list")).content.decode()
    assert "st</a>" in listing


def test_downloads_are_the_report_and_its_tables(client, admin_user, done):
    client.force_login(admin_user)
    url = reverse("scoring:study-report-download", args=[done.pk, "json"])
    first = client.get(url).content
    body = json.loads(first)
    assert body["study"] == "st" and body["format"] == "intent-studio.study-report/2"
    assert client.get(url).content == first  # served from the cache: the same bytes
    csv_url = reverse("scoring:study-report-download", args=[done.pk, "csv"])
    text = client.get(csv_url + "?table=exclusions").content.decode()
    assert text.startswith("# format: ") and "condition,items,valid,removed" in text
    assert client.get(csv_url + "?table=nope").status_code == 404
    bad = reverse("scoring:study-report-download", args=[done.pk, "xml"])
    assert client.get(bad).status_code == 404


def test_admin_creates_and_starts_a_study_from_the_pages(
    client, admin_user, study_release, models, make_endpoint, packages, stand_in
):
    judge = make_endpoint("judge", model="stand-in-judge")
    client.force_login(admin_user)
    form = {
        "name": "page-study",
        "template": "evidence",
        "release": study_release.pk,
        "endpoints": [m.pk for m in models],
        "package": packages("frames-prediction").pk,
        "judge_endpoint": judge.pk,
        "judge_package": packages("reference-judge").pk,
        "bootstrap_seed": 3,
        "replicates": 500,
    }
    response = client.post(reverse("scoring:study-list"), form)
    study = Study.objects.get(name="page-study")
    assert response.status_code == 302 and study.conditions[0] == "ordered"
    assert (study.bootstrap_seed, study.replicates) == (3, 500)
    response = client.post(reverse("scoring:study-run", args=[study.pk]), follow=True)
    assert "12 runs started" in response.content.decode()
    assert study.study_runs.count() == 12  # 6 conditions x 2 models; judges come later
    assert 'data-poll="/studies/' in response.content.decode()


def test_a_bad_study_form_shows_the_reason_and_writes_nothing(
    client, admin_user, study_release, models, packages
):
    client.force_login(admin_user)
    response = client.post(
        reverse("scoring:study-list"),
        {
            "name": "x",
            "template": "evidence",
            "endpoints": [m.pk for m in models],
            "package": packages("frames-prediction").pk,
            "judge_endpoint": models[0].pk,
            "judge_package": packages("reference-judge").pk,
            "bootstrap_seed": 0,
            "replicates": 2000,
        },
    )
    assert response.status_code == 200
    assert "Choose a release or a manifest" in response.content.decode()
    assert not Study.objects.exists()


@pytest.mark.parametrize("role", ["annotator", "auditor", "rater", "adjudicator"])
def test_nobody_but_admins_reaches_a_study(client, request, done, role):
    client.force_login(request.getfixturevalue(role))
    for name, args in [
        ("scoring:study-list", []),
        ("scoring:study-detail", [done.pk]),
        ("scoring:study-progress", [done.pk]),
        ("scoring:study-report", [done.pk]),
        ("scoring:study-report-download", [done.pk, "json"]),
        ("scoring:study-report-download", [done.pk, "csv"]),
    ]:
        assert client.get(reverse(name, args=args)).status_code == 404, name
    assert client.post(reverse("scoring:study-run", args=[done.pk])).status_code == 404


def test_charts_are_svg_images_with_their_specs(client, admin_user, done):
    client.force_login(admin_user)
    page = client.get(reverse("scoring:study-report", args=[done.pk])).content.decode()
    for name in ("forest", "profiles"):
        svg_url = reverse("scoring:study-chart", args=[done.pk, name, "svg"])
        # drawn in the page, each mark's values in its <title> (shown on hover)
        assert f'<figure class="chart" data-chart="{name}">' in page
        assert f'<a href="{svg_url}">SVG</a>' in page
        response = client.get(svg_url)
        assert response["Content-Type"].startswith("image/svg+xml")
        assert response.content.startswith(b"<svg") and b"<script" not in response.content
        assert "default-src 'none'" in response["Content-Security-Policy"]
        spec = json.loads(
            client.get(reverse("scoring:study-chart", args=[done.pk, name, "json"])).content
        )
        assert spec["$schema"].endswith("vega-lite/v5.json") and spec["title"]
    assert (
        client.get(reverse("scoring:study-chart", args=[done.pk, "pie", "svg"])).status_code == 404
    )
