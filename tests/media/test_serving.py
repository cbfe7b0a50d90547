"""Serving by opaque, expiring, per-user tokens with HTTP Range."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.storage import default_storage

from media.grants import grant_create
from media.models import MediaGrant
from media.renders import media_render, media_request
from media.synth import read_frame_numbers
from tests.conftest import PASSWORD
from tests.media.conftest import step_at

pytestmark = pytest.mark.django_db


@pytest.fixture
def video(import_source, cfr_video):
    return import_source(cfr_video)


def _ready(video, condition="official", profile="clip", start=40, cutoff=77):
    step = step_at(video.frame_times_us(), start, cutoff, cutoff + 8, cutoff + 13)
    media = media_request(video=video, condition=condition, step=step, profile=profile)
    return media_render(media_id=media.pk)


def _body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def _login(client, user):
    assert client.login(username=user.username, password=PASSWORD)


def test_media_url_is_opaque_and_names_nothing(video, rater):
    media = _ready(video)
    url = grant_create(user=rater, media=media)
    assert re.fullmatch(r"/m/[A-Za-z0-9_-]{43}", url)
    token = url.rsplit("/", 1)[1]
    for secret in (media.key[:8], video.sha256[:8]):
        assert secret not in token
    assert token != str(media.pk) and str(media.pk) not in url.split("/")
    # Only a hash of the token is stored: the database holds no usable URL.
    assert not MediaGrant.objects.filter(token_hash=token).exists()
    # Two grants of the same medium share nothing.
    assert grant_create(user=rater, media=media) != url


def test_clip_is_served_whole_and_by_range(client, video, rater):
    media = _ready(video)
    url = grant_create(user=rater, media=media)
    data = Path(default_storage.path(media.path)).read_bytes()
    _login(client, rater)

    whole = client.get(url)
    assert whole.status_code == 200
    assert whole["Content-Type"] == "video/mp4"
    assert whole["X-Content-Type-Options"] == "nosniff"
    assert whole["Accept-Ranges"] == "bytes"
    assert whole["Cache-Control"].startswith("private")
    assert _body(whole) == data

    part = client.get(url, headers={"Range": "bytes=100-199"})
    assert part.status_code == 206
    assert part["Content-Range"] == f"bytes 100-199/{len(data)}"
    assert part["Content-Length"] == "100"
    assert _body(part) == data[100:200]

    tail = client.get(url, headers={"Range": "bytes=-64"})
    assert tail.status_code == 206 and _body(tail) == data[-64:]
    rest = client.get(url, headers={"Range": f"bytes={len(data) - 10}-"})
    assert rest.status_code == 206 and _body(rest) == data[-10:]
    beyond = client.get(url, headers={"Range": f"bytes={len(data)}-"})
    assert beyond.status_code == 416 and beyond["Content-Range"] == f"bytes */{len(data)}"
    head = client.head(url)
    assert head.status_code == 200 and head["Content-Length"] == str(len(data))


def test_a_token_works_only_for_the_user_it_was_minted_for(client, video, rater, auditor):
    url = grant_create(user=rater, media=_ready(video))
    _login(client, auditor)
    assert client.get(url).status_code == 404
    client.logout()
    assert client.get(url).status_code == 404  # anonymous: the same 404, not a login page


def test_guessed_or_altered_tokens_find_nothing(client, video, rater):
    url = grant_create(user=rater, media=_ready(video))
    _login(client, rater)
    token = url.rsplit("/", 1)[1]
    altered = token[:-1] + ("A" if token[-1] != "A" else "B")
    assert client.get(f"/m/{altered}").status_code == 404
    assert client.get("/m/" + "A" * 43).status_code == 404
    other = _ready(video, start=90, cutoff=120)  # another step of the same video
    assert client.get(url).status_code == 200
    assert other.pk != MediaGrant.objects.get().media_id  # no grant of the other step exists


def test_grants_expire(client, video, rater, monkeypatch):
    from studio import services as studio_services

    url = grant_create(user=rater, media=_ready(video), ttl_seconds=60)
    _login(client, rater)
    assert client.get(url).status_code == 200
    later = studio_services.now() + timedelta(seconds=61)
    monkeypatch.setattr(studio_services, "now", lambda: later)
    assert client.get(url).status_code == 404


def test_served_clip_holds_no_frame_past_its_window(client, video, rater, tmp_path):
    media = _ready(video)
    url = grant_create(user=rater, media=media)
    _login(client, rater)
    served = tmp_path / "served.mp4"
    served.write_bytes(_body(client.get(url)))
    numbers = read_frame_numbers(served)
    assert numbers == list(range(40, 77))  # the cutoff frame 77 and everything after: absent


def test_frame_sets_are_served_by_position_without_source_times(client, video, rater):
    media = _ready(video, condition="shuffled", profile="frames16")
    url = grant_create(user=rater, media=media)
    _login(client, rater)
    listing = client.get(url).json()
    assert listing["count"] == 16
    assert listing["frames"][3] == f"{url}/03.png"
    assert "time" not in str(listing)  # times would reveal the shuffled order
    frame = client.get(listing["frames"][0])
    assert frame.status_code == 200 and frame["Content-Type"] == "image/png"
    assert _body(frame).startswith(b"\x89PNG")
    assert client.get(f"{url}/16.png").status_code == 404


def test_source_video_grant_uses_the_probed_type(client, video, annotator):
    url = grant_create(user=annotator, source=video)
    _login(client, annotator)
    response = client.get(url, headers={"Range": "bytes=0-15"})
    assert response.status_code == 206
    assert response["Content-Type"] == video.mime_type == "video/mp4"
    assert _body(response)[4:8] == b"ftyp"


def test_grants_need_a_ready_medium_and_exactly_one_target(video, rater):
    step = step_at(video.frame_times_us(), 10, 20, 21, 22)
    pending = media_request(video=video, condition="official", step=step)
    with pytest.raises(ValueError, match="not ready"):
        grant_create(user=rater, media=pending)
    with pytest.raises(ValueError, match="exactly one"):
        grant_create(user=rater)


def test_production_hand_off_to_the_web_server(client, video, rater, settings):
    media = _ready(video)
    url = grant_create(user=rater, media=media)
    _login(client, rater)
    settings.MEDIA_SENDFILE = "nginx"
    settings.MEDIA_SENDFILE_PREFIX = "/protected-media/"
    response = client.get(url)
    assert response["X-Accel-Redirect"] == f"/protected-media/{media.path}"
    assert response["Content-Type"] == "video/mp4" and response.content == b""
    settings.MEDIA_SENDFILE = "apache"
    assert client.get(url)["X-Sendfile"] == str(Path(default_storage.path(media.path)).resolve())
