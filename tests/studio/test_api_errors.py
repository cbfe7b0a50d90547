"""API paths answer JSON for every error, in the one shape {detail[, errors]}, and the schema
documents what the server answers: required fields, name patterns, the error answers."""

from __future__ import annotations

import pytest
import yaml
from django.test import Client

from annotation.models import VideoAssignment

pytestmark = pytest.mark.django_db


def _json_error(response, status: int) -> dict:
    assert response.status_code == status, response.content[:200]
    assert response["Content-Type"] == "application/json", response["Content-Type"]
    body = response.json()
    assert isinstance(body["detail"], str) and body["detail"]
    return body


@pytest.mark.parametrize("debug", [False, True], ids=["production", "development"])
def test_unmatched_api_paths_answer_json_404(settings, annotator, debug):
    settings.DEBUG = debug
    client = Client()
    client.force_login(annotator)
    for url in (
        "/api/annotation/steps/abc/",  # a non-integer id matches no URL
        "/api/annotation/videos/1.5/workspace/",
        "/api/review/releases/-1/",
        "/api/no-such-thing/",
    ):
        _json_error(client.get(url), 404)
    assert client.get("/no-such-page/")["Content-Type"].startswith("text/html")  # pages stay HTML


def test_a_wrong_method_answers_json_405(annotator, make_video):
    video = make_video()
    VideoAssignment.objects.create(video=video, annotator=annotator)
    client = Client()
    client.force_login(annotator)
    _json_error(client.delete(f"/api/annotation/videos/{video.pk}/workspace/"), 405)
    _json_error(client.put("/api/annotation/ping/"), 405)


@pytest.mark.urls("tests.studio.error_urls")
def test_a_server_error_on_an_api_path_answers_json_500(db, settings):
    settings.DEBUG = False
    client = Client(raise_request_exception=False)
    body = _json_error(client.get("/api/boom/"), 500)
    assert "a bug" not in str(body)  # no exception text leaks
    assert client.get("/boom/")["Content-Type"].startswith("text/html")


def test_invalid_input_has_the_one_error_shape(admin_user):
    client = Client()
    client.force_login(admin_user)
    response = client.post(
        "/api/review/releases/", {"name": "Not A Name!"}, content_type="application/json"
    )
    body = _json_error(response, 400)
    assert "lower-case letters" in body["detail"]
    assert set(body["errors"]) == {"name"}
    malformed = client.post("/api/review/releases/", "{", content_type="application/json")
    _json_error(malformed, 400)


@pytest.fixture
def schema(admin_user):
    client = Client()
    client.force_login(admin_user)
    return yaml.safe_load(client.get("/api/schema/").content)


def test_the_step_save_schema_requires_the_version(schema):
    body = schema["paths"]["/api/annotation/steps/{step_id}/"]["patch"]["requestBody"]
    ref = body["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert schema["components"]["schemas"][ref]["required"] == ["version"]


def test_names_carry_their_pattern_in_the_schema(schema):
    components = schema["components"]["schemas"]
    for name in ("ReleaseFreezeInput", "DesignInput", "ManifestFreezeInput"):
        assert components[name]["properties"]["name"]["pattern"] == r"^[a-z0-9][a-z0-9_.-]{0,79}$"


def test_every_operation_documents_its_error_answers(schema):
    for path, operations in schema["paths"].items():
        if not path.startswith("/api/") or path.startswith("/api/schema"):
            continue
        for method, operation in operations.items():
            documented = set(operation["responses"])
            assert "403" in documented, (method, path)
            if "{" in path:
                assert "404" in documented, (method, path)
            if "requestBody" in operation:
                assert {"400", "415"} <= documented, (method, path)
