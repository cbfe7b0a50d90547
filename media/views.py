"""Media by opaque token. Every response for a token that is not a live grant of the signed-in
user is the same 404."""

from __future__ import annotations

from pathlib import Path

from django.core.files.storage import default_storage
from django.http import Http404, JsonResponse
from django.views.decorators.http import require_safe

from media.grants import frame_url, grant_resolve
from media.models import RenderedMedia
from media.serving import file_response
from studio import services as studio_services


def _max_age(grant) -> int:
    return int((grant.expires_at - studio_services.now()).total_seconds())


@require_safe
def media_file(request, token: str):
    grant = grant_resolve(token=token, user=request.user)
    if grant.source is not None:
        video = grant.source
        return file_response(request, path=Path(video.file.path), storage_name=video.file.name,
                             content_type=video.mime_type, max_age=_max_age(grant))  # fmt: skip
    media = grant.media
    if media.kind == RenderedMedia.Kind.FRAMES:
        # Positions only: source times would reveal the order of a shuffled set.
        url = request.path
        return JsonResponse(
            {"count": media.frame_count,
             "frames": [frame_url(url, i) for i in range(media.frame_count)]},
            headers={"Cache-Control": "private, no-store", "X-Content-Type-Options": "nosniff"},
        )  # fmt: skip
    return file_response(request, path=Path(default_storage.path(media.path)),
                         storage_name=media.path, content_type=media.mime_type,
                         max_age=_max_age(grant))  # fmt: skip


@require_safe
def media_frame(request, token: str, position: str):
    grant = grant_resolve(token=token, user=request.user)
    media = grant.media
    if media is None or media.kind != RenderedMedia.Kind.FRAMES:
        raise Http404
    position = int(position)  # two digits, from the URL pattern
    if not 0 <= position < media.frame_count:
        raise Http404
    name = f"{media.path}/{position:02d}.png"
    return file_response(request, path=Path(default_storage.path(name)), storage_name=name,
                         content_type="image/png", max_age=_max_age(grant))  # fmt: skip
