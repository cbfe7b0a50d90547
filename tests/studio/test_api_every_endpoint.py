"""Every endpoint of the JSON API (every route under ``api/``), asked by an admin of a fresh demo
with every object id the demo holds: no answer is a server error. Finding 5 of issue 23 was
``GET /api/review/manifests/`` answering 500 once a QA-review manifest (no release) existed."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RoutePattern
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db
WRITES = ("post", "put", "patch", "delete")


def _api_routes(resolver=None, prefix=""):
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        if not isinstance(entry.pattern, RoutePattern):
            continue
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _api_routes(entry, route)
        elif isinstance(entry, URLPattern) and route.startswith("api/"):
            yield "/" + route


def _values() -> dict[str, list]:
    """Every id the demo holds, by the name the routes give the parameter."""
    from annotation.models import MicroStep, Release
    from media.models import SourceVideo
    from review.campaigns.models import Assignment, Campaign
    from review.models import Manifest, SampleDesign

    return {
        "video_id": list(SourceVideo.objects.values_list("pk", flat=True)),
        "step_id": list(MicroStep.objects.values_list("pk", flat=True)),
        "release_id": list(Release.objects.values_list("pk", flat=True)),
        "design_id": list(SampleDesign.objects.values_list("pk", flat=True)),
        "manifest_id": list(Manifest.objects.values_list("pk", flat=True)),
        "campaign_id": list(Campaign.objects.values_list("pk", flat=True)),
        "token": list(Assignment.objects.values_list("token", flat=True)),
    }


def _urls(route: str, values: dict) -> list[str]:
    names = re.findall(r"<(?:\w+:)?(\w+)>", route)
    assert len(names) <= 1, f"{route}: teach this test routes with several parameters"
    if not names:
        return [route]
    assert names[0] in values, f"{route}: teach this test where {names[0]} values come from"
    assert values[names[0]], f"the demo holds no {names[0]} for {route}"
    return [re.sub(r"<(?:\w+:)?\w+>", str(v), route) for v in values[names[0]]]


@pytest.fixture
def demo(settings):
    settings.STUDIO_DEMO_PASSWORD = "demo-pass-for-api-check"
    call_command("seed_demo", stdout=None)
    return get_user_model().objects.get(username="demo-admin")


def test_every_api_endpoint_answers_an_admin_of_a_fresh_demo_without_a_server_error(demo):
    from review.models import Manifest

    assert Manifest.objects.filter(release__isnull=True).exists()  # a QA-review manifest
    schema = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    routes = sorted(set(_api_routes()))
    documented = {re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", r) for r in routes}
    assert set(schema) <= documented  # every operation of the schema is a route we ask
    values = _values()
    client = APIClient(raise_request_exception=False)  # a server error is a 500, counted
    client.force_authenticate(demo)
    asked, failures = 0, []
    for route in routes:
        operations = schema.get(re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route), {"get": {}})
        urls = _urls(route, values)
        if "get" in operations:
            for url in urls:
                status = client.get(url).status_code
                asked += 1
                if status >= 500:
                    failures.append(f"GET {url}: {status}")
        for method in WRITES:
            if method in operations:
                # An empty body to every write: refused with a 4xx, never a server error.
                status = getattr(client, method)(urls[0], {}, format="json").status_code
                asked += 1
                if status >= 500:
                    failures.append(f"{method.upper()} {urls[0]}: {status}")
    assert not failures, failures
    assert asked > len(routes)


def test_the_manifests_api_answers_a_manifest_without_a_release(demo):
    from review.models import Manifest

    qa = Manifest.objects.filter(release__isnull=True).first()
    client = APIClient()
    client.force_authenticate(demo)
    listing = client.get("/api/review/manifests/")
    assert listing.status_code == 200
    rows = {m["name"]: m for m in listing.json()}
    assert rows[qa.name]["release"] is None and rows[qa.name]["kind"] == "qa_review"
    assert any(isinstance(m["release"], str) for m in rows.values())  # the others name theirs
    detail = client.get(f"/api/review/manifests/{qa.pk}/")
    assert detail.status_code == 200 and detail.json()["release"] is None
    assert detail.json()["manifest_sha256"] == qa.manifest_sha256
    download = client.get(f"/api/review/manifests/{qa.pk}/download/")
    assert download.status_code == 200 and download["Content-Type"] == "application/zip"
