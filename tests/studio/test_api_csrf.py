"""CSRF comes first on every unsafe API request: a session request without the token gets 403,
whatever body type it sends and whatever response type it asks for; nothing is parsed before."""

from __future__ import annotations

import re

import pytest
import yaml
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.views import APIView

from annotation.models import MicroStep, VideoAssignment
from studio.api import StudioApiView

pytestmark = pytest.mark.django_db

UNSAFE = ("post", "put", "patch", "delete")
BODIES = [
    ("text/plain", "hello"),
    ("application/json", '{"version": 1}'),
    ("application/x-www-form-urlencoded", "a=1&csrfmiddlewaretoken=forged"),
    ("multipart/form-data; boundary=broken", "--not-a-multipart-body"),
    ("application/xml", "<a/>"),
    ("", ""),
]


def _unsafe_operations(admin_user) -> list[tuple[str, str]]:
    client = Client()
    client.force_login(admin_user)
    schema = yaml.safe_load(client.get("/api/schema/").content)
    found = []
    for path, operations in schema["paths"].items():
        concrete = re.sub(r"\{[a-z_]+\}", "1", path)  # ids and tokens: CSRF fails before lookup
        found.extend((method, concrete) for method in operations if method in UNSAFE)
    assert len(found) >= 10  # the workspace's writes and the review API's
    return found


@pytest.mark.parametrize("role", ["admin_user", "annotator"])
def test_unsafe_api_requests_without_a_token_get_403_whatever_the_body(request, role, admin_user):
    user = request.getfixturevalue(role)
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    for method, url in _unsafe_operations(admin_user):
        for content_type, body in BODIES:
            for accept in ("application/json", "text/html"):
                response = client.generic(
                    method.upper(), url, body, content_type=content_type, HTTP_ACCEPT=accept
                )
                where = f"{method} {url} {content_type!r} Accept {accept}"
                assert response.status_code == 403, where
                assert response["Content-Type"] == "application/json", where
                assert response.json()["detail"].startswith("CSRF Failed"), where
    assert not MicroStep.objects.exists()


def test_with_the_token_the_body_type_is_checked_next(annotator, make_video):
    video = make_video()
    VideoAssignment.objects.create(video=video, annotator=annotator)
    url = f"/api/annotation/videos/{video.pk}/steps/"
    client = Client(enforce_csrf_checks=True)
    client.force_login(annotator)
    client.get("/login/")  # sets the csrftoken cookie, as every page does
    token = client.cookies["csrftoken"].value
    response = client.post(
        url,
        "hello",
        content_type="text/plain",
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 415
    # A token in a form field does not count: the API takes it from the header only.
    response = client.post(
        url,
        f"csrfmiddlewaretoken={token}",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 403


def _views(resolver: URLResolver):
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            yield from _views(entry)
        elif isinstance(entry, URLPattern):
            yield entry


def test_every_api_view_is_a_studio_api_view():
    """The order (CSRF, then negotiation, then the body) holds for views added later too."""
    api_views = [
        pattern.callback.cls
        for pattern in _views(get_resolver())
        if isinstance(getattr(pattern.callback, "cls", None), type)
        and issubclass(pattern.callback.cls, APIView)
    ]
    assert len(api_views) > 20
    outside = {
        cls.__name__
        for cls in api_views
        if not issubclass(cls, StudioApiView) and not cls.__module__.startswith("drf_spectacular")
    }
    assert not outside
