"""Fixtures for the workspace API and pages: a video assigned to ``annotator`` and logged-in
clients that speak JSON."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from annotation.models import VideoAssignment

S = 1_000_000


class JsonClient:
    """A Django test client whose unsafe requests send JSON bodies."""

    def __init__(self, client: Client):
        self.client = client

    def get(self, url, **extra):
        return self.client.get(url, **extra)

    def _send(self, method, url, data, **extra):
        return getattr(self.client, method)(
            url, data=json.dumps(data), content_type="application/json", **extra
        )

    def post(self, url, data=None, **extra):
        return self._send("post", url, data or {}, **extra)

    def patch(self, url, data=None, **extra):
        return self._send("patch", url, data or {}, **extra)


@pytest.fixture
def login():
    def make(user, *, enforce_csrf: bool = False) -> JsonClient:
        client = Client(enforce_csrf_checks=enforce_csrf)
        client.force_login(user)
        return JsonClient(client)

    return make


@pytest.fixture
def video(make_video, annotator):
    """A 60 s, 30 fps video assigned to ``annotator``."""
    video = make_video(title="kitchen-01.mp4")
    VideoAssignment.objects.create(video=video, annotator=annotator)
    return video
