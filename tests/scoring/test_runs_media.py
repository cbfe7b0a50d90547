"""Runs on real rendered media: what a model receives is exactly the condition's media (16
images for a frames endpoint, the clip for a video endpoint), hashed into the cache key, with no
label, scene, title or id anywhere in the request; a run waits for media that is not ready."""

import base64
import hashlib
import json
import os

import pytest

from scoring.judges import judge_start
from scoring.models import RunItem
from scoring.runs import run_drive, run_predict
from tests.scoring.conftest import LABELS, render_run_media

pytestmark = pytest.mark.django_db


def _forbidden(release) -> list[str]:
    step = release.steps.first()
    words = ["indoor/kitchen", "kitchen", "secret-title", step.video_sha256, str(step.sample_id)]
    for local, why, nxt, plausible in LABELS:
        words += [local, why, nxt, *plausible]
    return words


def test_a_frames_request_carries_exactly_16_images_and_nothing_else(
    media_release, make_endpoint, packages, stand_in
):
    run = run_predict(
        name="frames",
        endpoint=make_endpoint(media="frames"),
        package=packages("official-prediction"),
        condition="official",
        release=media_release,
    )
    assert run_drive(run_id=run.pk, seconds=2) == 0  # nothing is ready: it waits
    assert stand_in.stats()["requests"] == 0
    render_run_media(run)
    run_drive(run_id=run.pk)
    assert set(run.items.values_list("outcome", flat=True)) == {"ok"}
    bodies = stand_in.bodies(2)
    assert len(bodies) == 2
    for body in bodies:
        user = body["messages"][1]["content"]
        images = [p for p in user if p["type"] == "image_url"]
        assert len(images) == 16
        assert all(p["image_url"]["url"].startswith("data:image/png;base64,") for p in images)
        assert [p["type"] for p in user] == ["text"] + ["image_url"] * 16
        # Everything sent but the image bytes: no label, scene, title or id anywhere in it.
        text = json.dumps({**body, "messages": [body["messages"][0], user[0]]})
        for word in _forbidden(media_release):
            assert word not in text, word
        assert len(body["messages"]) == 2 and body["model"] == "stand-in-vision"
        assert body["temperature"] == 0
    item = run.items.first()
    digest = hashlib.sha256()
    for part in next(b for b in bodies if True)["messages"][1]["content"][1:]:
        data = base64.b64decode(part["image_url"]["url"].split(",", 1)[1])
        digest.update(f"image/png {len(data)}\n".encode() + hashlib.sha256(data).digest())
    assert digest.hexdigest() in set(run.items.values_list("media_sha256", flat=True))
    assert item.interface == "frames"


def test_a_video_endpoint_gets_the_clip_as_a_data_url(
    media_release, make_endpoint, packages, stand_in
):
    run = run_predict(
        name="video",
        endpoint=make_endpoint(media="video_base64"),
        package=packages("official-prediction"),
        condition="official",
        release=media_release,
    )
    render_run_media(run)
    run_drive(run_id=run.pk)
    body = stand_in.bodies(1)[0]
    parts = body["messages"][1]["content"]
    assert [p["type"] for p in parts] == ["text", "video_url"]
    assert parts[1]["video_url"]["url"].startswith("data:video/mp4;base64,")
    assert set(run.items.values_list("interface", flat=True)) == {"video_base64"}


def test_media_bytes_are_part_of_the_cache_key(media_release, make_endpoint, packages, stand_in):
    endpoint = make_endpoint(media="frames")
    runs = []
    for name, condition in (("official", "official"), ("early", "early")):
        run = run_predict(
            name=name,
            endpoint=endpoint,
            package=packages("official-prediction"),
            condition=condition,
            release=media_release,
        )
        render_run_media(run)
        run_drive(run_id=run.pk)
        runs.append(run)
    keys = [set(r.items.values_list("cache_key", flat=True)) for r in runs]
    assert not keys[0] & keys[1]
    assert stand_in.stats()["requests"] == 4


def test_the_video_judge_sees_the_observation_and_no_reference(
    media_release, make_endpoint, packages, stand_in
):
    run = run_predict(
        name="p",
        endpoint=make_endpoint(),
        package=packages("frames-prediction"),
        condition="prompt_only",
        release=media_release,
    )
    run_drive(run_id=run.pk)
    judge = judge_start(
        name="vj",
        kind="video",
        endpoint=make_endpoint("vj", media="frames"),
        package=packages("video-judge"),
        runs=[run],
    )
    render_run_media(judge)
    run_drive(run_id=judge.pk)
    rows = list(judge.judgements.all())
    assert {r.outcome for r in rows} == {"ok"}
    assert all(0 <= v <= 4 for r in rows for v in (r.gf, r.hic, r.tpc, r.npf))
    body = stand_in.bodies(1)[0]
    parts = body["messages"][1]["content"]
    assert sum(p["type"] == "image_url" for p in parts) == 16
    data = json.loads(parts[0]["text"].split("\n", 1)[1])
    assert set(data) == {"candidates", "observation"}
    assert "reference" not in json.dumps(data) and LABELS[0][0] not in json.dumps(data)


def test_a_next_visible_run_skips_the_last_step_and_says_why(
    media_release, make_endpoint, packages
):
    run = run_predict(
        name="nv",
        endpoint=make_endpoint(),
        package=packages("frames-prediction"),
        condition="next_visible",
        release=media_release,
    )
    assert run.items.count() == 1
    assert "following step" in run.provenance["skipped"][0]["reason"]
    assert RunItem.objects.filter(run=run).first().media is not None


def test_a_video_url_endpoint_gets_a_short_lived_opaque_url(
    media_release, make_endpoint, packages, stand_in, settings, client
):
    settings.MODEL_MEDIA_BASE_URL = "http://testserver"
    run = run_predict(
        name="url",
        endpoint=make_endpoint(media="video_url"),
        package=packages("official-prediction"),
        condition="official",
        release=media_release,
    )
    render_run_media(run)
    run_drive(run_id=run.pk)
    url = stand_in.bodies(1)[0]["messages"][1]["content"][1]["video_url"]["url"]
    path = url.removeprefix("http://testserver")
    assert path.startswith("/model-media/") and len(path.rsplit("/", 1)[1]) >= 40
    for word in _forbidden(media_release):
        assert word not in url
    response = client.get(path)  # no session: the token is the credential
    assert response.status_code == 200 and response["Content-Type"] == "video/mp4"
    data = b"".join(response.streaming_content)
    head = f"video/mp4 {len(data)}\n".encode()
    digest = hashlib.sha256(head + hashlib.sha256(data).digest()).hexdigest()
    assert digest in set(run.items.values_list("media_sha256", flat=True))
    assert client.get("/model-media/" + "x" * 43).status_code == 404


def test_the_request_bytes_are_the_json_of_the_body_with_its_media(tmp_path):
    """The media are spliced into the request as bytes; the result is exactly what
    ``json.dumps`` of the body with the data URLs in it gives (escapes included)."""
    from scoring.providers import body_bytes, frames_payload, video_base64_payload

    frames = []
    for i in range(3):
        frames.append(tmp_path / f"{i:02d}.png")
        frames[-1].write_bytes(bytes(range(256)) * (i + 1) + b'"\\\n')

    def make(parts):
        text = {"type": "text", "text": 'a "quoted" é \u2028 {"json": true}'}
        return {"model": "m", "messages": [{"role": "user", "content": [text, *parts]}]}

    for build in (
        lambda: frames_payload(frames),
        lambda: video_base64_payload(frames[0], mime='video/mp4; codecs="avc1"'),
    ):
        expected = json.dumps(make(build().parts), ensure_ascii=False).encode()
        assert body_bytes(make, build()) == expected
        sent = json.loads(body_bytes(make, build()))
        urls = [p[p["type"]]["url"] for p in sent["messages"][0]["content"][1:]]
        assert base64.b64decode(urls[0].split(",", 1)[1]) == frames[0].read_bytes()


def test_a_body_encodes_its_media_only_as_it_is_sent_and_again_for_a_retry(tmp_path):
    """The body knows its length before encoding anything, holds no base64 until it is
    iterated, and gives the same bytes every time it is sent, also once the bytes read for
    hashing are released (the files are read again)."""
    from scoring.providers import Body, body_pieces, frames_payload

    frames = []
    for i in range(4):
        frames.append(tmp_path / f"{i:02d}.png")
        frames[-1].write_bytes(bytes(range(256)) * (4 * i + 2) + bytes(i))
    payload = frames_payload(frames)
    body = body_pieces(lambda parts: {"model": "m", "parts": parts}, payload)
    assert isinstance(body, Body)
    held = sum(len(p) for p in body.pieces if isinstance(p, bytes))
    assert held < 400  # the JSON around the parts; no image's base64 (each is over 300 bytes)
    first = bytes(body)
    assert len(first) == body.length
    payload.release()  # what a call does: the bytes read for hashing go
    assert bytes(body) == first
    sent = json.loads(first)
    for part, frame in zip(sent["parts"], frames, strict=True):
        assert base64.b64decode(part["image_url"]["url"].split(",", 1)[1]) == frame.read_bytes()
    for size in range(7):
        assert Body([(size, lambda n=size: b"a" * n)]).length == len(base64.b64encode(b"a" * size))


def test_digests_recorded_once_serve_other_processes_until_a_file_changes(
    media_release, make_endpoint, packages, stand_in
):
    """A worker uses the digests another process recorded instead of hashing again; a file that
    changed on disk is hashed again, so it is never sent under its old hash."""
    from scoring.models import FileDigest
    from scoring.providers import body_bytes
    from scoring.providers import media as provider_media
    from scoring.runs.media import frame_paths, media_payload

    run = run_predict(
        name="digests",
        endpoint=make_endpoint(media="frames"),
        package=packages("official-prediction"),
        condition="official",
        release=media_release,
    )
    render_run_media(run)
    run_drive(run_id=run.pk)
    item = run.items.select_related("media").first()
    paths = frame_paths(item.media)
    assert FileDigest.objects.filter(path__in=paths).count() == 16

    provider_media._memo.clear()  # a process that hashed nothing itself
    payload = media_payload(item.media, interface="frames")
    assert payload.hashed == []  # every digest came from the records
    assert payload.sha256 == item.media_sha256

    with open(paths[3], "ab") as f:  # the file changes (size and mtime)
        f.write(b"changed")
    provider_media._memo.clear()
    payload = media_payload(item.media, interface="frames")
    assert [key[0] for key, _size, _digest in payload.hashed] == [paths[3]]
    assert payload.sha256 != item.media_sha256
    sent = json.loads(body_bytes(lambda parts: {"parts": parts}, payload))
    digest = hashlib.sha256()
    for part in sent["parts"]:
        data = base64.b64decode(part["image_url"]["url"].split(",", 1)[1])
        digest.update(f"image/png {len(data)}\n".encode() + hashlib.sha256(data).digest())
    assert digest.hexdigest() == payload.sha256  # the hash of exactly the bytes sent
    row = FileDigest.objects.get(path=paths[3])
    assert row.size == os.path.getsize(paths[3])
