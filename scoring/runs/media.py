"""The media of a call, from the media pipeline's rendered and verified files.

For ``video_url`` endpoints the clip is served to the model server under a short-lived opaque URL:
a media grant (media/grants.py) held by a service user that cannot log in, fetched without a
session through ``scoring:model-media``; the URL holds only the token."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files.storage import default_storage
from django.urls import reverse

from media.grants import grant_create
from media.models import RenderedMedia
from scoring.models import MediaInterface
from scoring.providers import MediaPayload, frames_payload, video_base64_payload, video_url_payload

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


def frame_paths(media: RenderedMedia) -> list[Path]:
    return [
        Path(default_storage.path(f"{media.path}/{i:02d}.png")) for i in range(media.frame_count)
    ]


def media_payload(media: RenderedMedia, *, interface: str) -> MediaPayload:
    """The parts of ``media`` in ``interface`` (frame sets are always images)."""
    if media.status != RenderedMedia.Status.READY:
        raise MediaNotReady(f"medium {media.key[:12]} is {media.status}")
    if media.kind == RenderedMedia.Kind.FRAMES:
        return frames_payload(frame_paths(media))
    path = Path(default_storage.path(media.path))
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

        return video_url_payload(url, path)
    return video_base64_payload(path, mime=media.mime_type or "video/mp4")
