"""The media of a call, from the media pipeline's rendered and verified files.

For ``video_url`` endpoints the clip is served to the model server under a short-lived opaque URL:
a media grant (media/grants.py) held by a service user that cannot log in, fetched without a
session through ``scoring:model-media``; the URL holds only the token."""

from __future__ import annotations

import os

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files.storage import default_storage
from django.urls import reverse

from media.ffrender import sound_file
from media.grants import grant_create
from media.models import RenderedMedia
from scoring.models import FileDigest, MediaInterface
from scoring.providers import (
    MediaPayload,
    audio_payload,
    frames_payload,
    video_base64_payload,
    video_url_payload,
)
from scoring.providers.media import digests_known, digests_seed

FETCH_USER = "model-media-fetcher"


class MediaNotReady(Exception):
    """The medium is not rendered (or failed); the item waits."""


def media_fetch_user():
    """The service user that holds the grants of video_url media (no password, inactive)."""
    user, created = get_user_model().objects.get_or_create(
        username=FETCH_USER, defaults={"is_active": False}
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def frame_paths(media: RenderedMedia) -> list[str]:
    """The frame files of a frame set, in order (file system paths)."""
    folder = default_storage.path(media.path)
    return [os.path.join(folder, f"{i:02d}.png") for i in range(media.frame_count)]


def sound_path(media: RenderedMedia) -> str | None:
    """The sound file beside a frame set's images (profiles ``framesN_wav16k``), or None."""
    audio = media.spec.get("audio")
    if media.kind != RenderedMedia.Kind.FRAMES or not audio:
        return None
    return os.path.join(default_storage.path(media.path), sound_file(audio["format"]["container"]))


def media_files(media: RenderedMedia) -> list[str]:
    """The files a medium sends: its frames (and their sound), its clip, or its sound."""
    if media.kind == RenderedMedia.Kind.FRAMES:
        sound = sound_path(media)
        return frame_paths(media) + ([sound] if sound else [])
    return [default_storage.path(media.path)]


def digests_load(media: list[RenderedMedia]) -> None:
    """Give this process the digests any process recorded for the files of ``media`` (a few
    queries for a whole run, instead of hashing every file again)."""
    ready = [m for m in media if m.status == RenderedMedia.Status.READY]
    paths = [p for m in ready for p in media_files(m)]
    for start in range(0, len(paths), 1000):
        rows = FileDigest.objects.filter(path__in=paths[start : start + 1000]).values_list(
            "path", "inode", "size", "mtime_ns", "sha256"
        )
        digests_seed(((p, ino, n, t), n, bytes.fromhex(sha)) for p, ino, n, t, sha in rows)


def digests_record(payloads: list[MediaPayload]) -> None:
    """Record the digests ``payloads`` had to compute, for the other processes."""
    rows = {
        key[0]: FileDigest(path=key[0], inode=key[1], size=size, mtime_ns=key[3], sha256=d.hex())
        for payload in payloads
        for key, size, d in payload.hashed
    }
    if rows:
        FileDigest.objects.bulk_create(
            list(rows.values()),
            update_conflicts=True,
            unique_fields=["path"],
            update_fields=["inode", "size", "mtime_ns", "sha256", "recorded_at"],
            batch_size=500,
        )


def media_payload(media: RenderedMedia, *, interface: str, record: bool = True) -> MediaPayload:
    """The parts of ``media`` in ``interface`` (frame sets are always images). Files this
    process knows no digest of are looked up in the recorded digests, hashed when none is
    recorded, and (with ``record``) their digests recorded."""
    if media.status != RenderedMedia.Status.READY:
        raise MediaNotReady(f"medium {media.key[:12]} is {media.status}")
    files = media_files(media)
    if not digests_known(files):
        digests_load([media])
    if media.kind == RenderedMedia.Kind.FRAMES:
        sound = sound_path(media)
        payload = frames_payload(files[:-1] if sound else files, sound=sound)
        if record:
            digests_record([payload])
        return payload
    path = files[0]
    if media.kind == RenderedMedia.Kind.AUDIO:  # sound alone, whatever the endpoint's interface
        payload = audio_payload(path, mime=media.mime_type or "audio/wav")
        if record:
            digests_record([payload])
        return payload
    sound = bool(media.spec.get("audio"))
    if interface == MediaInterface.VIDEO_URL:
        base = settings.MODEL_MEDIA_BASE_URL.rstrip("/")
        if not base:
            raise MediaNotReady(
                "video_url endpoints need MODEL_MEDIA_BASE_URL (where the model server reaches "
                "this instance)"
            )

        def url() -> str:
            grant_path = grant_create(
                user=media_fetch_user(),
                media=media,
                ttl_seconds=settings.MODEL_MEDIA_URL_TTL_SECONDS,
            )
            token = grant_path.rstrip("/").rsplit("/", 1)[-1]
            return base + reverse("scoring:model-media", args=[token])

        return video_url_payload(url, path, sound=sound)
    payload = video_base64_payload(path, mime=media.mime_type or "video/mp4", sound=sound)
    if record:
        digests_record([payload])
    return payload
