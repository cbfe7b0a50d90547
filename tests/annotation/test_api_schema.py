"""Every workspace action is a documented operation of the OpenAPI schema, with its request and
response shapes, and the documented step shape is exactly what the API sends."""

from __future__ import annotations

import pytest

from annotation.api.payloads import step_payload
from annotation.api.serializers import StepOutput
from annotation.services import step_create

OPERATIONS = {
    ("/api/annotation/ping/", "get"): "workspace_ping",
    ("/api/annotation/videos/{video_id}/workspace/", "get"): "workspace_load",
    ("/api/annotation/videos/{video_id}/frame-times/", "get"): "workspace_frame_times",
    ("/api/annotation/videos/{video_id}/source/", "get"): "workspace_source",
    ("/api/annotation/videos/{video_id}/steps/", "post"): "step_create",
    ("/api/annotation/steps/{step_id}/", "get"): "step_read",
    ("/api/annotation/steps/{step_id}/", "patch"): "step_save",
    ("/api/annotation/steps/{step_id}/retract/", "post"): "step_retract",
    ("/api/annotation/steps/{step_id}/restore/", "post"): "step_restore",
    ("/api/annotation/steps/{step_id}/split/", "post"): "step_split",
    ("/api/annotation/steps/{step_id}/merge/", "post"): "step_merge",
    ("/api/annotation/steps/{step_id}/history/", "get"): "step_history",
    ("/api/annotation/steps/{step_id}/preview/", "post"): "step_preview",
}


@pytest.fixture
def schema(admin_client):
    import yaml

    r = admin_client.get("/api/schema/")
    assert r.status_code == 200
    return yaml.safe_load(r.content)


def test_every_workspace_action_is_a_documented_operation(schema):
    paths = schema["paths"]
    for (path, method), operation_id in OPERATIONS.items():
        assert path in paths, path
        operation = paths[path][method]
        assert operation["operationId"] == operation_id
        assert "200" in operation["responses"] or "201" in operation["responses"]
        if method in ("post", "patch") and operation_id != "step_preview":
            assert "requestBody" in operation, operation_id
            assert set(operation["responses"]) >= {"400", "404"}, operation_id
        if operation_id in {
            "step_save",
            "step_retract",
            "step_restore",
            "step_split",
            "step_merge",
        }:
            assert "409" in operation["responses"], operation_id


def test_the_schema_has_no_undocumented_annotation_paths(schema):
    documented = {path for path, _ in OPERATIONS}
    ours = {p for p in schema["paths"] if p.startswith("/api/annotation/")}
    assert ours == documented


def test_the_documented_step_shape_is_what_the_api_sends(video, annotator):
    step = step_create(
        video=video, author=annotator, start_us=0, cutoff_us=10, outcome_us=10, end_us=20
    )
    assert set(step_payload(step)) == set(StepOutput().fields)
