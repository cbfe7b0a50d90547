"""Opaque, expiring, per-user media URLs.

A grant is a random 256-bit token bound to one user, one medium (or source video) and an expiry.
The URL holds only the token, so it names no step, video, medium or condition and cannot be
derived from anything a user sees; only its SHA-256 is stored. Minting a grant is the caller's
decision that the user may see the item: the annotation layer mints grants for an annotator's own
videos, the review layer for a rater's assigned items. Media only checks the grant.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.http import Http404
from django.urls import reverse

from media.models import MediaGrant, RenderedMedia, SourceVideo
from studio import services as studio_services


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("ascii", "replace")).hexdigest()


def grant_create(
    *,
    user,
    media: RenderedMedia | None = None,
    source: SourceVideo | None = None,
    ttl_seconds: int | None = None,
) -> str:
    """Mint a grant and return its URL (a path). Exactly one of ``media`` and ``source``."""
    if (media is None) == (source is None):
        raise ValueError("a grant is for exactly one medium or one source video")
    if not user.is_authenticated:
        raise ValueError("grants are for signed-in users")
    if media is not None and media.status != RenderedMedia.Status.READY:
        raise ValueError("the medium is not ready yet")
    ttl = ttl_seconds or settings.MEDIA_GRANT_TTL_SECONDS
    token = secrets.token_urlsafe(32)
    MediaGrant.objects.create(
        token_hash=_hash(token),
        user=user,
        media=media,
        source=source,
        expires_at=studio_services.now() + timedelta(seconds=ttl),
    )
    return reverse("media:file", args=[token])


def frame_url(grant_url: str, position: int) -> str:
    """URL of one image of a frame-set grant (position in presentation order)."""
    return f"{grant_url.rstrip('/')}/{position:02d}.png"


def grant_resolve(*, token: str, user) -> MediaGrant:
    """The live grant behind ``token`` for ``user``; Http404 for anything else (unknown, someone
    else's, expired, not ready) so a probe learns nothing about what exists."""
    if not user.is_authenticated or len(token) > 64:
        raise Http404
    grant = (
        MediaGrant.objects.select_related("media", "source")
        .filter(token_hash=_hash(token), user=user, expires_at__gt=studio_services.now())
        .first()
    )
    if grant is None:
        raise Http404
    if grant.media is not None and grant.media.status != RenderedMedia.Status.READY:
        raise Http404
    return grant
